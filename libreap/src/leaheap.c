/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * leaheap.c - a reap's heap: Lea-style bins of free blocks.
 *
 * After its first free a reap keeps freed blocks here, in the manner of
 * dlmalloc 2.7: exact bins below 1 KiB, ranged bins above, a bitmap of
 * non-empty bins to find the next larger one, splitting of larger blocks
 * and immediate coalescing with both neighbours through the boundary tags
 * (see internal.h for the layout).  A ranged bin is not kept sorted (a
 * sorted insert walks the bin, and a request pool that frees thousands of
 * kilobyte blocks made every free quadratic): a free pushes the block,
 * and allocation takes the best fit among the first RP_FIT_SCAN blocks of
 * the bin (the best fit when the bin holds no more), else the smallest of
 * the first few of the next non-empty bin, and reads the whole bin only
 * when no larger block exists, so a reap never takes new memory while a
 * block that fits is free.
 * Small frees first wait on per-size quick lists, still marked in use, as
 * dlmalloc 2.7's fastbins do: reusing a block of the same size is then a
 * list pop, and they are coalesced in one pass (rp_heap_consolidate) when
 * nothing else serves a request, before the reap would take a new chunk.
 * (dlmalloc also consolidates before every request of 1 KiB or more; with
 * a tenth of a request pool's objects that big, that pass ran every few
 * allocations.)  A
 * block freed next to the frontier goes back to the frontier instead of a
 * bin, and a retired chunk whose arena is one free block goes back to the
 * base allocator.  The bins live in a block carved from the reap on its
 * first free (region.c), so a reap that never frees never touches them.
 */
#include <stdio.h>

#include "internal.h"

unsigned rp_bin_index(size_t size)
{
    if (size < RP_SMALL_LIMIT)
        return (unsigned)(size / RP_GRAIN);
    unsigned lg = 63u - (unsigned)__builtin_clzl(size); /* >= 10 */
    unsigned i = RP_NSMALL + (lg - 10) * 4 + (unsigned)((size >> (lg - 2)) & 3);
    return i < RP_NBINS ? i : RP_NBINS - 1;
}

static void map_set(rp_heap_t *h, unsigned i) { h->map[i / 64] |= (uint64_t)1 << (i % 64); }
static void map_clear(rp_heap_t *h, unsigned i) { h->map[i / 64] &= ~((uint64_t)1 << (i % 64)); }

/* The first non-empty bin at or above i, or RP_NBINS. */
static unsigned map_next(const rp_heap_t *h, unsigned i)
{
    for (unsigned w = i / 64; w < RP_NBINS / 64; w++) {
        uint64_t bits = h->map[w];
        if (w == i / 64)
            bits &= ~(uint64_t)0 << (i % 64);
        if (bits)
            return w * 64 + (unsigned)__builtin_ctzll(bits);
    }
    return RP_NBINS;
}

void rp_heap_insert(reap_t *r, rp_block_t *b, size_t size)
{
    RP_ASSERT(!(b->head & RP_CINUSE) && rp_bsize(b) == size && size >= RP_MIN_BLOCK);
    RP_ASSERT(rp_at(b, size)->prev_foot == size && !(rp_at(b, size)->head & RP_PINUSE));
    rp_heap_t *h = r->heap;
    unsigned i = rp_bin_index(size);
    rp_bin_list_insert(&h->bin[i], NULL, b);
    map_set(h, i);
    r->heap_free_bytes += size;
}

void rp_heap_unlink(reap_t *r, rp_block_t *b, size_t size)
{
    rp_heap_t *h = r->heap;
    r->heap_free_bytes -= size;
    if (b == r->dv) { /* not in a bin: its links are stale */
        r->dv = NULL;
        r->dv_size = 0;
        rp_heap_update_empty(r);
        return;
    }
    unsigned i = rp_bin_index(size);
    rp_bin_list_unlink(&h->bin[i], b);
    if (!h->bin[i])
        map_clear(h, i);
    rp_heap_update_empty(r);
}

/* b (free, size bytes, not binned) becomes in use with csz bytes; a
 * remainder big enough to be a block goes back on a bin. */
static void take(reap_t *r, rp_block_t *b, size_t size, size_t csz)
{
    size_t rem = size - csz;
    if (rem < RP_MIN_BLOCK) {
        rp_set_inuse(r, b, size);
        return;
    }
    rp_heap_insert(r, rp_split(r, b, csz, rem), rem);
    rp_heap_update_empty(r); /* the rest is reusable, as b was */
}

/* Each list is taken whole before its blocks are freed: a small block
 * with no free neighbour goes back on it (rp_heap_free) and waits there.
 * The largest sizes go first, so the small ones find more neighbours free. */
void rp_heap_consolidate(reap_t *r)
{
    rp_heap_t *h = r->heap;
    for (unsigned i = RP_NSMALL; i-- > 0 && r->quick_bytes;) {
        rp_block_t *b = h->quick[i];
        h->quick[i] = NULL;
        while (b) {
            rp_block_t *next = b->fd;
            b->head &= ~RP_QUICK;
            r->quick_bytes -= rp_bsize(b);
            rp_heap_free(r, b);
            b = next;
        }
    }
}

/* Take csz bytes from dv: all of it when the rest would be too small. */
static rp_block_t *take_dv(reap_t *r, size_t csz)
{
    rp_block_t *b;
    if (r->dv_size - csz >= RP_MIN_BLOCK) {
        b = rp_dv_carve(r, csz);
    } else {
        b = r->dv;
        r->heap_free_bytes -= r->dv_size;
        rp_set_inuse(r, b, r->dv_size);
        r->dv = NULL;
        r->dv_size = 0;
    }
    rp_heap_update_empty(r);
    return b;
}

/* b (free, unlinked, size bytes) becomes dv; the old dv goes to a bin. */
static void make_dv(reap_t *r, rp_block_t *b, size_t size)
{
    if (r->dv) { /* counted already: rp_heap_insert counts it again */
        r->heap_free_bytes -= r->dv_size;
        rp_heap_insert(r, r->dv, r->dv_size);
    }
    r->dv = b;
    r->dv_size = size;
    r->heap_free_bytes += size;
}

/* The best fit for csz among the first `scan` blocks of a ranged bin, or
 * NULL when none of them is large enough. */
#define RP_FIT_SCAN 16
static rp_block_t *best_of(rp_block_t *b, size_t csz, size_t scan)
{
    rp_block_t *best = NULL;
    size_t best_size = SIZE_MAX;
    for (size_t n = 0; b && n < scan; b = b->fd, n++) {
        size_t sz = rp_bsize(b);
        if (sz >= csz && sz < best_size) {
            best = b, best_size = sz;
            if (sz == csz)
                break;
        }
    }
    return best;
}

rp_block_t *rp_heap_alloc(reap_t *r, size_t csz)
{
    rp_heap_t *h = r->heap;
    unsigned i = rp_bin_index(csz);
    if (i < RP_NSMALL) {
        rp_block_t *q = rp_quick_pop(r, csz);
        if (q) {
            rp_heap_update_empty(r);
            return q;
        }
        if (!h->bin[i] && r->dv_size >= csz)
            return take_dv(r, csz);
    }
    /* an exact bin's blocks all fit, but for the i*16 ones of a request
     * of i*16 + 8 (8-byte grain) */
    rp_block_t *b = i < RP_NSMALL && csz % RP_GRAIN == 0 ? h->bin[i] : best_of(h->bin[i], csz, RP_FIT_SCAN);
    if (!b) {
        unsigned j = map_next(h, i + 1);
        if (j < RP_NBINS) /* every block of a larger bin fits: the smallest seen */
            b = j < RP_NSMALL ? h->bin[j] : best_of(h->bin[j], csz, RP_FIT_SCAN);
        else if (i >= RP_NSMALL) /* nothing larger: the whole bin, before new memory */
            b = best_of(h->bin[i], csz, SIZE_MAX);
        if (!b)
            return r->dv_size >= csz ? take_dv(r, csz) : NULL;
    }
    size_t size = rp_bsize(b);
    rp_heap_unlink(r, b, size);
    if (i < RP_NSMALL && size - csz >= RP_MIN_BLOCK) { /* its rest serves the next ones */
        make_dv(r, b, size);
        return take_dv(r, csz);
    }
    take(r, b, size, csz);
    return b;
}

/* The frontier takes back b and, when it is free, the block before it. */
static void to_frontier(reap_t *r, rp_block_t *b)
{
    if (!(b->head & RP_PINUSE)) {
        rp_block_t *p = rp_prev(b, b->prev_foot);
        rp_heap_unlink(r, p, rp_bsize(p));
        b = p;
    }
    RP_ASSERT(b->head & RP_PINUSE); /* the block before the frontier is in use */
    r->bump = (char *)b;
}

static void free_lost(reap_t *r);

/* b (in use, size bytes) was freed while no bin table could be made (a
 * limit): it waits on the lost list, marked as a quick block so that
 * freeing it again is reported. */
static void lose(reap_t *r, rp_block_t *b, size_t size)
{
    b->head |= RP_QUICK;
    b->fd = r->lost;
    r->lost = b;
    r->lost_bytes += size;
}

void rp_heap_free(reap_t *r, rp_block_t *b)
{
    size_t size = rp_bsize(b);
    rp_block_t *next = rp_at(b, size);
    b->head &= ~RP_CINUSE; /* a second free of b is caught even once merged */
    if ((char *)next == r->bump) {
        to_frontier(r, b);
        return;
    }
    if (RP_UNLIKELY(!(next->head & RP_PINUSE)))
        rp_misuse(REAP_MISUSE_CORRUPTION, "heap corruption (next block says this one is free) at free of",
                  r, rp_b2mem(b));
    if (!(next->head & RP_CINUSE)) {
        size_t ns = rp_bsize(next);
        rp_heap_unlink(r, next, ns);
        size += ns;
        next = rp_at(next, ns);
    }
    if (!(b->head & RP_PINUSE)) {
        rp_block_t *p = rp_prev(b, b->prev_foot);
        size_t ps = rp_bsize(p);
        rp_heap_unlink(r, p, ps);
        size += ps;
        b = p;
    }
    /* coalesced: no two free blocks are neighbours */
    RP_ASSERT((b->head & RP_PINUSE) && ((next->head & RP_CINUSE) || (char *)next == r->bump));
    if (RP_UNLIKELY(size < RP_MIN_BLOCK)) { /* a small block, alone: no room for links */
        b->head |= RP_CINUSE;
        if (rp_region_heap_ensure(r))
            rp_quick_push(r, b, size);
        else
            lose(r, b, size);
        return;
    }
    if ((next->head & RP_FENCE) && (b->head & RP_PINUSE) && rp_region_try_release(r, b, size))
        return;
    if (RP_UNLIKELY(!r->heap) && !rp_region_heap_ensure(r)) {
        /* No memory for the bins (a limit): with no heap there were no free
         * neighbours, so b is as it was. */
        b->head |= RP_CINUSE;
        lose(r, b, size);
        return;
    }
    rp_set_heap_empty(r, false); /* something freed waits: allocation looks first */
    b->head = size | RP_PINUSE | ((size_t)r->tag << RP_TAG_SHIFT);
    next->prev_foot = size;
    next->head &= ~RP_PINUSE;
    rp_heap_insert(r, b, size);
    if (RP_UNLIKELY(r->lost != NULL)) /* after b is binned: they may merge */
        free_lost(r);
}

/* The bins exist now: give them the blocks freed while they could not be
 * made (their frees were counted then). */
static void free_lost(reap_t *r)
{
    while (r->lost) {
        rp_block_t *b = r->lost;
        r->lost = b->fd;
        r->lost_bytes -= rp_bsize(b);
        b->head &= ~RP_QUICK;
        rp_heap_free(r, b);
    }
}

void rp_heap_trim(reap_t *r, rp_block_t *b, size_t csz)
{
    size_t size = rp_bsize(b);
    if (size - csz < RP_MIN_BLOCK)
        return;
    size_t tag = (size_t)r->tag << RP_TAG_SHIFT;
    b->head = csz | (b->head & RP_PINUSE) | RP_CINUSE | tag;
    rp_block_t *rest = rp_at(b, csz);
    rest->head = (size - csz) | RP_PINUSE | RP_CINUSE | tag;
    rp_heap_free(r, rest);
}

/* ---- debug: the full invariant walk ------------------------------------------ */

static void check_fail(const reap_t *r, const void *where, const char *what)
{
    rp_misuse(REAP_MISUSE_CORRUPTION, what, (reap_t *)r, where);
}

/* Walk the blocks of one chunk from its arena to the frontier or fence;
 * returns the bytes of free blocks met and adds those of quick ones. */
static size_t check_chunk(const reap_t *r, const rp_chunk_t *c, size_t *quick_bytes)
{
    size_t free_bytes = 0;
    bool prev_inuse = true;
    rp_block_t *b = (rp_block_t *)rp_chunk_arena(r, c);
    if (c->starts) { /* blocks without headers first (the reap was a region) */
        if (c == r->chunk && r->head_room == 0)
            return 0;
        b = (rp_block_t *)(c->region_end - 8); /* the first with one, or the fence */
    }
    for (;;) {
        if ((char *)b == r->bump && c == r->chunk) {
            if (!prev_inuse)
                check_fail(r, b, "free block before the frontier");
            return free_bytes;
        }
        size_t h = b->head, s = rp_bsize(b);
        if ((h >> RP_TAG_SHIFT) != r->tag)
            check_fail(r, b, "block with a foreign tag");
        if (!!(h & RP_PINUSE) != prev_inuse)
            check_fail(r, b, "RP_PINUSE out of step with the previous block");
        if (h & RP_FENCE)
            return free_bytes;
        if (s < RP_MIN_SIZE || (s & r->grain_mask))
            check_fail(r, b, "block of impossible size");
        if (!(h & RP_CINUSE)) {
            if (s < RP_MIN_BLOCK)
                check_fail(r, b, "free block too small for its links");
            if (!prev_inuse)
                check_fail(r, b, "two free blocks side by side");
            if (rp_at(b, s)->prev_foot != s)
                check_fail(r, b, "free block without its footer");
            free_bytes += s;
        } else if (h & RP_QUICK) {
            *quick_bytes += s;
        }
        prev_inuse = (h & RP_CINUSE) != 0;
        b = rp_at(b, s);
    }
}

static void heap_check(const reap_t *r);

/* Tests call it directly: the walk reads poisoned headers (annotate.h). */
void rp_heap_check(const reap_t *r)
{
    rp_ann_quiet_begin();
    heap_check(r);
    rp_ann_quiet_end();
}

static void heap_check(const reap_t *r)
{
    size_t walked = 0, binned = 0, quick_walked = 0, quick_listed = 0;
    for (const rp_chunk_t *c = r->chunk; c; c = c->older)
        walked += check_chunk(r, c, &quick_walked);
    if (r->heap)
        for (unsigned i = 0; i < RP_NBINS; i++) {
            bool set = (r->heap->map[i / 64] >> (i % 64)) & 1;
            if (set != (r->heap->bin[i] != NULL))
                check_fail(r, r->heap, "bin bitmap out of step");
            for (rp_block_t *b = r->heap->bin[i]; b; b = b->fd) {
                if (rp_bin_index(rp_bsize(b)) != i || (b->head & RP_CINUSE))
                    check_fail(r, b, "block in the wrong bin");
                if (b->fd && b->fd->bk != b)
                    check_fail(r, b, "broken bin links");
                binned += rp_bsize(b);
            }
        }
    if (r->heap)
        for (unsigned i = 0; i < RP_NSMALL; i++)
            for (rp_block_t *b = r->heap->quick[i]; b; b = b->fd) {
                if (rp_bsize(b) / RP_GRAIN != i || !(b->head & RP_QUICK) || !(b->head & RP_CINUSE))
                    check_fail(r, b, "block on the wrong quick list");
                quick_listed += rp_bsize(b);
            }
    if (r->dv && (rp_bsize(r->dv) != r->dv_size || (r->dv->head & RP_CINUSE)))
        check_fail(r, r->dv, "dv is not the free block it claims to be");
    if (walked != binned + r->dv_size || binned + r->dv_size != r->heap_free_bytes)
        check_fail(r, r->heap, "free bytes walked, binned and counted differ");
    size_t lost_listed = 0; /* marked as quick blocks, on no quick list */
    for (const rp_block_t *b = r->lost; b; b = b->fd) {
        if (!(b->head & RP_QUICK) || !(b->head & RP_CINUSE))
            check_fail(r, b, "block on the lost list not marked");
        lost_listed += rp_bsize(b);
    }
    if (lost_listed != r->lost_bytes)
        check_fail(r, r->lost, "lost bytes listed and counted differ");
    if (quick_walked != quick_listed + lost_listed || quick_listed != r->quick_bytes)
        check_fail(r, r->heap, "quick bytes walked, listed and counted differ");
    /* heap_empty may be true with tails in the bins, never with quick blocks
     * or dv; it may be false with nothing waiting (it lags a quick pop) */
    if (r->heap_empty && (quick_listed || r->dv_size))
        check_fail(r, r->heap, "heap_empty out of step");
    if (r->inline_limit != (r->heap_empty ? r->inline_open : 0))
        check_fail(r, r->heap, "inline_limit out of step with heap_empty");
}
