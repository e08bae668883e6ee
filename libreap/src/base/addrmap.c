/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * addrmap.c - which addresses are the allocator's, found without touching
 * the address: a byte for every S-aligned granule of address space.
 *
 * free() and reaps find a block's header from its address (hoard.h,
 * rp_hd_hdr), which reads memory at the granule's start.  For a pointer
 * the allocator never handed out (a stack or static address, (void *)1,
 * 1 GiB past a block) that memory may be unmapped, and the read would
 * fault inside the allocator.  The map says first whether the read is
 * safe: a granule's byte is
 *   0            not the allocator's (or its start is not mapped by it);
 *   1            its start is mapped by the allocator: a superblock's or a
 *                large object's header may be there (or nothing yet);
 *   k in 2..255  the k-1'th granule after the head of a large object (255:
 *                at least 254th: step back and look again), so an interior
 *                pointer of a large object finds its header.
 * Two levels: a static top table indexed by address >> 32 (512 KiB of bss,
 * of which a page is touched in a typical process), and a leaf of 2^32 / S
 * bytes mapped for each 4 GiB range the allocator has memory in.  The top
 * table holds each leaf's distance from rp_hd_map_none, a leaf of zeros
 * in bss that is never written (so never resident), and an entry of 0
 * means no leaf: a lookup has no test for a missing one (free makes one
 * on every call, hoard.h's rp_hd_map_byte).  Writers
 * are the map's owners in space.c and large.c, each writing only the
 * granules of memory it is handing out or taking back; a leaf is made
 * under map_lock and published with a release store.  Readers take
 * relaxed loads: a granule changes only while its memory changes hands,
 * and a pointer into such memory is a misuse whichever byte it reads.
 */
#define _GNU_SOURCE /* PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP */
#include <pthread.h>

#include "hoard.h"

#define TOP_SHIFT 32
#define TOP_SIZE ((size_t)1 << (RP_HD_MAP_BITS - TOP_SHIFT))

_Atomic intptr_t rp_hd_map_top[TOP_SIZE]; /* read inline by free (hoard.h) */
/* bss, not rodata: a const array of zeros would take its size in the file */
_Alignas(4096) uint8_t rp_hd_map_none[RP_HD_MAP_LEAF_MAX];
static pthread_mutex_t map_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
unsigned rp_hd_map_shift; /* log2(S), set before the first leaf */

static size_t leaf_bytes(void) { return (size_t)1 << (TOP_SHIFT - rp_hd_map_shift); }

/* The leaf of address a, or NULL when it has none. */
static _Atomic uint8_t *leaf_of(uintptr_t a, memory_order mo)
{
    intptr_t off = atomic_load_explicit(&rp_hd_map_top[a >> TOP_SHIFT], mo);
    return off ? (_Atomic uint8_t *)((uintptr_t)rp_hd_map_none + (uintptr_t)off) : NULL;
}

/* The leaf for address a, made when missing (NULL: out of memory). */
static _Atomic uint8_t *leaf_make(uintptr_t a)
{
    _Atomic uint8_t *leaf = leaf_of(a, memory_order_acquire);
    if (leaf)
        return leaf;
    pthread_mutex_lock(&map_lock);
    leaf = leaf_of(a, memory_order_relaxed);
    if (!leaf) {
        /* zeroed: nothing ours.  Not counted as held: of its 2^32 / S
         * bytes, a page is touched for every 4096 granules in use. */
        leaf = rp_hd_os_reserve(leaf_bytes(), rp_hd_os_page());
        if (leaf)
            atomic_store_explicit(&rp_hd_map_top[a >> TOP_SHIFT],
                                  (intptr_t)((uintptr_t)leaf - (uintptr_t)rp_hd_map_none),
                                  memory_order_release);
    }
    pthread_mutex_unlock(&map_lock);
    return leaf;
}

static size_t granule_in_leaf(uintptr_t a) { return (a >> rp_hd_map_shift) & (leaf_bytes() - 1); }

void rp_hd_map_init(void) { rp_hd_map_shift = (unsigned)__builtin_ctzl(rp_hd_opt.sb_size); }

bool rp_hd_map_set(const void *start, size_t len, uint8_t v)
{
    uintptr_t s = (uintptr_t)1 << rp_hd_map_shift;
    uintptr_t a = ((uintptr_t)start + s - 1) & ~(s - 1); /* granules that start inside */
    uintptr_t end = (uintptr_t)start + len;
    for (; a < end; a += s) {
        if (a >> RP_HD_MAP_BITS)
            return false;
        _Atomic uint8_t *leaf = leaf_make(a);
        if (!leaf)
            return false;
        atomic_store_explicit(&leaf[granule_in_leaf(a)], v, memory_order_relaxed);
    }
    return true;
}

void rp_hd_map_large(const void *head, const void *end, bool live)
{
    uintptr_t s = (uintptr_t)1 << rp_hd_map_shift, h = (uintptr_t)head;
    for (uintptr_t a = h + s, k = 2; a < (uintptr_t)end; a += s, k += k < 255) {
        _Atomic uint8_t *leaf = leaf_of(a, memory_order_relaxed); /* set by rp_hd_map_set */
        atomic_store_explicit(&leaf[granule_in_leaf(a)], live ? (uint8_t)k : 1, memory_order_relaxed);
    }
}

uint8_t rp_hd_map_get(const void *p) { return rp_hd_map_byte(p); }

const rp_hd_sb_t *rp_hd_map_header(const void *p)
{
    uintptr_t a = (uintptr_t)p & rp_hd_sb_mask;
    uint8_t k = rp_hd_map_get(p);
    while (k == 255) { /* a large object longer than 254 granules */
        a -= (uintptr_t)254 << rp_hd_map_shift;
        k = rp_hd_map_get((const void *)a);
    }
    if (k == 0)
        return NULL;
    return (const rp_hd_sb_t *)(a - ((uintptr_t)(k - 1) << rp_hd_map_shift));
}
