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
extern unsigned rp_desc_min_shift RP_INTERNAL;
extern intptr_t rp_desc_off[64] RP_INTERNAL;
extern uint32_t rp_desc_colours[64] RP_INTERNAL;
extern uint32_t rp_desc_bytes[64] RP_INTERNAL;

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
/* rp_chunk_block()'s common case, with no call: p in an aligned block of
 * the base allocator that is not its superblock's first slot (every
 * bumped chunk but the first of a superblock's and a few large ones).
 * NULL when the answer needs rp_chunk_block_slow(), or there is none. */
static inline rp_chunk_t *rp_chunk_aligned(const void *p, uintptr_t *start)
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
    return NULL;
}
static inline rp_chunk_t *rp_chunk_block(const void *p, uintptr_t *start)
{
    rp_chunk_t *c = rp_chunk_aligned(p, start);
    return RP_LIKELY(c != NULL) ? c : rp_chunk_block_slow(p, start);
}
/* The chunk holding p when p lies in a live chunk (bumped or solo), else
 * NULL. */
static inline rp_chunk_t *rp_chunk_find(const void *p)
{
    uintptr_t start;
    rp_chunk_t *c = rp_chunk_block(p, &start);
    return c && (c->key == rp_chunk_key(c) || c->key == rp_solo_key(c)) ? c : NULL;
}

/* The freed bits of the n granules (fewer than 128: an exact list's
 * block) from bit k of pair w go: live again.  A block of a few hundred
 * bytes has its bits in one word, and none in more than three. */
static RP_ALWAYS_INLINE void rp_freed_clear_short(rp_pair_t *w, unsigned k, unsigned n)
{
    if (RP_LIKELY(k + n < 64)) {
        w->freed &= ~((((uint64_t)1 << n) - 1) << k);
        return;
    }
    w[0].freed &= ~(~(uint64_t)0 << k);
    if (k + n < 128) { /* into the next word: its first k + n - 64 bits */
        w[1].freed &= ~((((uint64_t)1 << (k + n - 64)) - 1));
    } else { /* the whole next word, and the first k + n - 128 of the one after */
        w[1].freed = 0;
        w[2].freed &= ~((((uint64_t)1 << (k + n - 128)) - 1));
    }
}

/* The freed bits of [b, b + size) of c, whose pair w is b's, go. */
static RP_ALWAYS_INLINE void rp_freed_clear(const rp_chunk_t *c, rp_pair_t *w, char *b, size_t size)
{
    if (RP_LIKELY(size < RP_NEXACT * RP_GRANULE))
        rp_freed_clear_short(w, (unsigned)((uintptr_t)b >> 3 & 63), (unsigned)(size / RP_GRANULE));
    else
        rp_freed_clear_range(c, b, b + size);
}

/* The pair of b, a block on one of r's lists, found in chunk c (a
 * lookup's answer; start, its first byte), when c is r's and b's bits
 * say a freed block starts there; NULL when not: the program wrote over
 * the link that led to b. */
static RP_ALWAYS_INLINE rp_pair_t *rp_listed_pair(const reap_t *r, const rp_chunk_t *c, uintptr_t start,
                                                  const void *b)
{
    if (rp_chunk_not_owned(c, r))
        return NULL;
    rp_pair_t *w = rp_pair_in(c, start, b);
    return RP_LIKELY(w->start & w->freed & rp_bit(b)) ? w : NULL;
}

/* The freed lists' commonest take (leaheap.c has the others): the first
 * block of bsize's exact list, as filed.  rp_heap_poppable() says whether
 * there is one: r has lists and bsize's exact list holds a block. */
static inline bool rp_heap_poppable(const reap_t *r, size_t bsize)
{
    const rp_heap_t *h = r->heap;
    unsigned i = (unsigned)(bsize / RP_GRANULE);
    return h != NULL && i < RP_NEXACT && (h->map[i / 64] >> (i % 64) & 1);
}

/* That block, in a chunk the address map finds alone: its chunk and bits
 * checked, its link, its freed bits and the counts, with no split and no
 * call.  NULL when it is not that case (rp_heap_take() sorts out the
 * rest). */
static RP_ALWAYS_INLINE char *rp_heap_pop(reap_t *r, size_t bsize)
{
    rp_heap_t *h = r->heap;
    unsigned i = (unsigned)(bsize / RP_GRANULE);
    char *b = h->list[i];
    uintptr_t start;
    rp_chunk_t *c = rp_chunk_aligned(b, &start);
    rp_pair_t *w = rp_listed_pair(r, c, start, b);
    if (RP_UNLIKELY(w == NULL))
        return NULL;
    rp_ann_quiet_begin(); /* the link lives in freed memory */
    void *next = *(void **)(void *)b;
    rp_ann_quiet_end();
    h->list[i] = next;
    if (next == NULL)
        h->map[i / 64] &= ~((uint64_t)1 << (i % 64));
    rp_freed_clear_short(w, (unsigned)((uintptr_t)b >> 3 & 63), i);
    rp_count_taken(r, bsize);
    return b;
}

#endif /* RP_REGION_H */
