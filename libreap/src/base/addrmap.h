/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * addrmap.h - the base allocator's address map, readable inline: a byte
 * for every S-aligned granule of address space (addrmap.c fills it).
 *
 * It tells, for any pointer and without reading memory at it, whether the
 * allocator mapped it and where the block holding it starts.  The reaps'
 * free path reads it inline (rp_base_map_aligned) to find a chunk from an
 * object's address in one load of a hot line; everything else calls
 * rp_base_block_of() (base.h).  A granule's byte is
 *   0x00          not the allocator's (or its start is not mapped by it);
 *   0x01          its start is mapped by the allocator: a superblock's or a
 *                 large object's header may be there (or nothing yet);
 *   0x02..0x7f    the k-1'th granule after the head of a large object
 *                 (0x7f: at least the 126th: step back and look again);
 *   0x80 | s      a superblock whose blocks are 2^s bytes, each aligned to
 *                 its size (power-of-two classes above the header's size,
 *                 hoard.h): a block starts at p rounded down to 2^s, and
 *                 the granule's first 2^s bytes are the header's.
 * Two levels: a static top table indexed by address >> 32, and a leaf of
 * 2^32 / S bytes for each 4 GiB range the allocator has memory in.
 */
#ifndef RP_BASE_ADDRMAP_H
#define RP_BASE_ADDRMAP_H

#include <stdatomic.h>
#include <stdint.h>

#include "../util/common.h" /* RP_INTERNAL */

#define RP_BASE_MAP_BITS 48 /* user addresses the map covers */
#define RP_BASE_MAP_TOP_SHIFT 32
#define RP_BASE_MAP_ALIGNED 0x80u
#define RP_BASE_MAP_CONT_MAX 0x7fu

extern _Atomic(_Atomic uint8_t *) rp_base_map_top[(size_t)1 << (RP_BASE_MAP_BITS - RP_BASE_MAP_TOP_SHIFT)] RP_INTERNAL;
extern unsigned rp_base_map_shift RP_INTERNAL;   /* log2(S) */
extern uintptr_t rp_base_map_leaf_mask RP_INTERNAL; /* granules in a leaf, less one */

/* The byte of p's granule (relaxed: a granule changes only while its
 * memory changes hands, and a pointer into such memory is a misuse). */
static inline uint8_t rp_base_map_get(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (a >> RP_BASE_MAP_BITS)
        return 0;
    _Atomic uint8_t *leaf = atomic_load_explicit(&rp_base_map_top[a >> RP_BASE_MAP_TOP_SHIFT],
                                                 memory_order_acquire);
    if (!leaf)
        return 0;
    return atomic_load_explicit(&leaf[(a >> rp_base_map_shift) & rp_base_map_leaf_mask], memory_order_relaxed);
}

/* The block holding p when p lies in a superblock of aligned blocks: p
 * rounded down to the block size; NULL otherwise (another kind of memory,
 * which rp_base_block_of() knows).  In the superblock's first slot this
 * is its header: the caller tells its own blocks by their contents. */
static inline void *rp_base_map_aligned(const void *p)
{
    uint8_t m = rp_base_map_get(p);
    if (!(m & RP_BASE_MAP_ALIGNED))
        return NULL;
    return (void *)((uintptr_t)p & ((uintptr_t)-1 << (m & 0x3f)));
}

#endif /* RP_BASE_ADDRMAP_H */
