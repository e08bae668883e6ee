/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * addrmap.c - which addresses are the allocator's, found without touching
 * the address: the map of addrmap.h, kept here.
 *
 * free() and reaps find a block's header from its address (hoard.h,
 * rp_hd_hdr), which reads memory at the granule's start.  For a pointer
 * the allocator never handed out (a stack or static address, (void *)1,
 * 1 GiB past a block) that memory may be unmapped, and the read would
 * fault inside the allocator.  The map says first whether the read is
 * safe, and for superblocks of aligned blocks where the block starts
 * without reading anything.  Writers are the map's owners in space.c,
 * superblock.c and large.c, each writing only the granules of memory it
 * is handing out or taking back; a leaf is made under map_lock and
 * published with a release store.
 */
#define _GNU_SOURCE /* PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP */
#include <pthread.h>

#include "hoard.h"

#define TOP_SHIFT RP_BASE_MAP_TOP_SHIFT
#define top rp_base_map_top
#define granule_shift rp_base_map_shift

_Atomic(_Atomic uint8_t *) rp_base_map_top[(size_t)1 << (RP_BASE_MAP_BITS - RP_BASE_MAP_TOP_SHIFT)];
unsigned rp_base_map_shift; /* log2(S), set before the first leaf */
uintptr_t rp_base_map_leaf_mask;
static pthread_mutex_t map_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

static size_t leaf_bytes(void) { return (size_t)1 << (TOP_SHIFT - granule_shift); }

/* The leaf for address a, made when missing (NULL: out of memory). */
static _Atomic uint8_t *leaf_make(uintptr_t a)
{
    _Atomic uint8_t *leaf = atomic_load_explicit(&top[a >> TOP_SHIFT], memory_order_acquire);
    if (leaf)
        return leaf;
    pthread_mutex_lock(&map_lock);
    leaf = atomic_load_explicit(&top[a >> TOP_SHIFT], memory_order_relaxed);
    if (!leaf) {
        /* zeroed: nothing ours.  Not counted as held: of its 2^32 / S
         * bytes, a page is touched for every 4096 granules in use. */
        leaf = rp_hd_os_reserve(leaf_bytes(), rp_hd_os_page());
        if (leaf)
            atomic_store_explicit(&top[a >> TOP_SHIFT], leaf, memory_order_release);
    }
    pthread_mutex_unlock(&map_lock);
    return leaf;
}

static size_t granule_in_leaf(uintptr_t a) { return (a >> granule_shift) & rp_base_map_leaf_mask; }

void rp_hd_map_init(void)
{
    granule_shift = (unsigned)__builtin_ctzl(rp_hd_opt.sb_size);
    rp_base_map_leaf_mask = ((uintptr_t)1 << (TOP_SHIFT - granule_shift)) - 1;
}

bool rp_hd_map_set(const void *start, size_t len, uint8_t v)
{
    uintptr_t s = (uintptr_t)1 << granule_shift;
    uintptr_t a = ((uintptr_t)start + s - 1) & ~(s - 1); /* granules that start inside */
    uintptr_t end = (uintptr_t)start + len;
    for (; a < end; a += s) {
        if (a >> RP_BASE_MAP_BITS)
            return false;
        _Atomic uint8_t *leaf = leaf_make(a);
        if (!leaf)
            return false;
        atomic_store_explicit(&leaf[granule_in_leaf(a)], v, memory_order_relaxed);
    }
    return true;
}

/* Leads the granules of [from, stop) to the large object's header at
 * head: the k-th granule from it says k, up to RP_BASE_MAP_CONT_MAX ("go
 * back that many less one, and look again").  The head's own granule is
 * set through rp_hd_map_set, which makes its leaf; every other granule of
 * the mapping already has one. */
static void lead(uintptr_t head, uintptr_t from, uintptr_t stop)
{
    uintptr_t s = (uintptr_t)1 << granule_shift;
    if (from == head) {
        rp_hd_map_set((const void *)head, 1, 1);
        from += s;
    }
    for (uintptr_t a = from; a < stop; a += s) {
        uintptr_t k = ((a - head) >> granule_shift) + 1;
        _Atomic uint8_t *leaf = atomic_load_explicit(&top[a >> TOP_SHIFT], memory_order_relaxed);
        atomic_store_explicit(&leaf[granule_in_leaf(a)],
                              (uint8_t)(k < RP_BASE_MAP_CONT_MAX ? k : RP_BASE_MAP_CONT_MAX),
                              memory_order_relaxed);
    }
}

void rp_hd_map_large(const void *head, const void *end, bool live)
{
    uintptr_t h = (uintptr_t)head;
    if (live) {
        lead(h, h, (uintptr_t)end);
        return;
    }
    /* plain mapped memory again, header granule included */
    uintptr_t s = (uintptr_t)1 << granule_shift;
    for (uintptr_t a = h; a < (uintptr_t)end; a += s) {
        _Atomic uint8_t *leaf = atomic_load_explicit(&top[a >> TOP_SHIFT], memory_order_relaxed);
        atomic_store_explicit(&leaf[granule_in_leaf(a)], 1, memory_order_relaxed);
    }
}

void rp_hd_map_large_from(const void *head, const void *from, const void *end)
{
    uintptr_t s = (uintptr_t)1 << granule_shift, a = (uintptr_t)from;
    /* past CONT_MAX - 1 granules from any head every byte is CONT_MAX */
    uintptr_t stop = a + (uintptr_t)(RP_BASE_MAP_CONT_MAX - 1) * s;
    if (stop > (uintptr_t)end || stop < a)
        stop = (uintptr_t)end;
    lead((uintptr_t)head, a, stop);
}

const rp_hd_sb_t *rp_hd_map_header(const void *p)
{
    uintptr_t a = (uintptr_t)p & rp_hd_sb_mask;
    uint8_t k = rp_base_map_get(p);
    while (k == RP_BASE_MAP_CONT_MAX) { /* a large object of many granules */
        a -= (uintptr_t)(RP_BASE_MAP_CONT_MAX - 1) << granule_shift;
        k = rp_base_map_get((const void *)a);
    }
    if (k == 0)
        return NULL;
    if (k & RP_BASE_MAP_ALIGNED)
        return (const rp_hd_sb_t *)a;
    return (const rp_hd_sb_t *)(a - ((uintptr_t)(k - 1) << granule_shift));
}
