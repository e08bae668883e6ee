/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * region.h - finding a chunk from an address: the hot lookup that a free
 * and a take from the lists make, inline, on region.c's tables.
 */
#ifndef RP_REGION_H
#define RP_REGION_H

#include "internal.h"

/* Descriptors by chunk size (log2), set up once (region.c): from
 * rp_desc_min_shift up, in the superblock's first slot, rp_desc_off[s]
 * from it and shifted by a colour (rp_desc_colours[s] masks the
 * superblock's number); below, at the chunk's start, rp_desc_bytes[s]. */
extern unsigned rp_desc_min_shift;
extern intptr_t rp_desc_off[64];
extern uint32_t rp_desc_colours[64];
extern uint32_t rp_desc_bytes[64];

/* Bytes a chunk of size bytes spends on a descriptor at its start (0 when
 * it keeps it in its superblock's first slot). */
static inline size_t rp_chunk_head(size_t size)
{
    unsigned s = (unsigned)__builtin_ctzl(size);
    return s < rp_desc_min_shift ? rp_desc_bytes[s] : 0;
}

/* Where what follows its descriptor starts in the chunk of size bytes at
 * b: b, or past a descriptor kept at its start. */
static inline char *rp_chunk_body(char *b, size_t size) { return b + rp_chunk_head(size); }

/* Nothing allocated since creation or the last reset: a reset would change
 * nothing. */
static inline bool rp_region_untouched(const reap_t *r)
{
    return r->bump == r->first->arena && r->chunk == r->first && r->first->older == NULL &&
           r->free_bytes == 0;
}

/* The descriptor of the chunk of 2^s bytes at b. */
static inline rp_chunk_t *rp_desc(uintptr_t b, unsigned s)
{
    if (s < rp_desc_min_shift)
        return (rp_chunk_t *)b;
    uintptr_t sb = b & ((uintptr_t)-1 << rp_base_map_shift);
    uintptr_t colour = (sb >> rp_base_map_shift) & rp_desc_colours[s];
    return (rp_chunk_t *)(sb + ((b - sb) >> 4) + (uintptr_t)rp_desc_off[s] + (colour << (s - 5)));
}

/* The descriptor of the chunk holding p, or NULL; any pointer may be asked
 * (nothing is read that the base allocator does not own), and the caller
 * checks the key.  *start gets the chunk's first byte.  A bumped chunk is
 * found by the address map alone (addrmap.h): one load of a hot line. */
rp_chunk_t *rp_chunk_block_slow(const void *p, uintptr_t *start);
static inline rp_chunk_t *rp_chunk_block(const void *p, uintptr_t *start)
{
    uint8_t m = rp_base_map_get(p);
    if (RP_LIKELY(m & RP_BASE_MAP_ALIGNED)) {
        unsigned s = m & 0x3f;
        uintptr_t b = (uintptr_t)p & ((uintptr_t)-1 << s);
        if (RP_LIKELY(b & (((uintptr_t)1 << rp_base_map_shift) - 1))) {
            *start = b;
            return rp_desc(b, s);
        }
    }
    return rp_chunk_block_slow(p, start);
}
/* The chunk holding p when p lies in a live chunk (bumped or solo), else
 * NULL. */
static inline rp_chunk_t *rp_chunk_find(const void *p)
{
    uintptr_t start;
    rp_chunk_t *c = rp_chunk_block(p, &start);
    return c && (c->key == rp_chunk_key(c) || c->key == rp_solo_key(c)) ? c : NULL;
}

#endif /* RP_REGION_H */
