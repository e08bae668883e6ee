/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * alloc.c - the object API: malloc, calloc, realloc, aligned alloc, free.
 *
 * The two hot paths are here and kept short.  reap_malloc() bumps the
 * frontier while the heap is empty (the "clear-optimized" path of the 2002
 * reaps: a region's cost plus one header store), and otherwise pops a quick
 * list of the exact size, carves dv, or bumps when the bins' bitmap shows
 * no block that fits; anything else goes to alloc_slow(), which tries
 * the heap's bins, then the current chunk, then (once something has been
 * freed) coalesces the quick lists and looks at the bins again, where
 * retired chunks' tails wait, and only then takes a new chunk.  reap_free() checks the header with one
 * compare (in use, not quick, not large or a fence, this reap's tag; a
 * block that fails it is a misuse, reported by rp_misuse, unless it is a
 * large object), then
 * gives the block back to the frontier when it borders it, parks a small
 * block on its quick list, or frees it onto the bins.  Objects above the
 * large threshold go to region.c's large objects.
 *
 * In ASan and Valgrind builds (annotate.h) each public call first asks
 * RP_ANNOTATED() and, when annotating, takes an ann_* function below that
 * runs the plain path and then tells the tool what the program may touch;
 * in normal builds that test is a constant 0 and compiles away.
 */
#include <string.h>

#include "internal.h"
#include "util/trace.h"

/* ---- checks ---------------------------------------------------------------- */


/* p is aligned as r's objects are: else it cannot be one of them. */
static inline bool aligned_in(const reap_t *r, const void *p)
{
    return ((uintptr_t)p & r->grain_mask) == 0;
}

/* r is a reap; otherwise the misuse is reported (the caller returns when
 * rp_misuse does). */
static inline bool reap_given(reap_t *r, const void *p, const char *what)
{
    if (RP_LIKELY(r != NULL))
        return true;
    rp_misuse(REAP_MISUSE_NULL_REAP, what, r, p);
    return false;
}

/* Returns the block of p after the checks a free or realloc needs: cheap
 * ones always, ownership and the heap walk in debug builds; NULL once a
 * misuse is reported and rp_misuse returned. */
static rp_block_t *checked_block(reap_t *r, void *p, bool realloc)
{
    rp_block_t *b = rp_mem2b(p);
    const char *foreign = realloc ? RP_REALLOC_FOREIGN : RP_FREE_FOREIGN;
    size_t h = aligned_in(r, p) ? b->head : RP_FENCE; /* misaligned: foreign */
    if (RP_UNLIKELY((h >> RP_TAG_SHIFT) != r->tag || (h & RP_FENCE))) {
        rp_misuse(REAP_MISUSE_FOREIGN, foreign, r, p);
        return NULL;
    }
    if (RP_UNLIKELY(!(h & RP_CINUSE) || (h & RP_QUICK))) {
        if (realloc)
            rp_misuse(REAP_MISUSE_FREED_REALLOC, "realloc of a freed pointer", r, p);
        else
            rp_misuse(REAP_MISUSE_DOUBLE_FREE, "double free of", r, p);
        return NULL;
    }
    if (config_debug) {
        if (!rp_region_owns(r, p)) {
            rp_misuse(REAP_MISUSE_FOREIGN, foreign, r, p);
            return NULL;
        }
        rp_heap_check(r);
    }
    return b;
}

/* ---- allocation -------------------------------------------------------------- */

/* Count b, size bytes, as handed out and return its payload (8 bytes in
 * while the reap is a region, past the header otherwise). */
static inline void *handed_out(reap_t *r, rp_block_t *b, size_t size)
{
    r->live_bytes += size;
    r->allocs++;
    return (char *)b + 8 + r->head_room;
}

static RP_NOINLINE void *alloc_slow(reap_t *r, size_t n)
{
    if (!reap_given(r, NULL, "NULL reap passed to reap_malloc")) {
        errno = EINVAL;
        return NULL;
    }
    if (n > r->bump_max) {
        void *p = rp_large_alloc(r, n, RP_GRAIN);
        if (p)
            r->allocs++;
        return p;
    }
    size_t csz = rp_request2size(r, n);
    rp_block_t *b = NULL;
    if (!r->heap_empty)
        b = rp_heap_alloc(r, csz);
    if (!b && csz <= (size_t)(r->bump_end - r->bump))
        b = rp_region_bump(r, csz);
    if (!b && !r->heap_empty) {
        /* before growing: what the quick blocks join into, retired tails
         * (a reap that never freed is a region and leaves tails alone) */
        if (r->quick_bytes)
            rp_heap_consolidate(r);
        b = rp_heap_alloc(r, csz);
    }
    if (!b && rp_region_has_holes(r)) /* a region's discards, first */
        b = rp_region_hole_take(r, csz);
    if (!b)
        b = rp_region_bump(r, csz);
    if (!b)
        return NULL;
    return handed_out(r, b, r->head_room ? rp_bsize(b) : csz); /* a region's have no head */
}

/* The rest of an allocation once reap_malloc_bump() has failed (or, while
 * annotating or tracing, could not succeed: inline_limit is 0 then). */
static inline void *malloc_after_bump(reap_t *r, size_t n)
{
    if (RP_LIKELY(r != NULL) && !r->heap_empty && n <= r->bump_max) {
        size_t csz = rp_request2size(r, n);
        if (csz >= RP_SMALL_LIMIT)
            return alloc_slow(r, n);
        rp_block_t *qb = rp_quick_pop(r, csz);
        if (qb)
            return handed_out(r, qb, rp_bsize(qb));
        if (r->heap_free_bytes) {
            /* dv is a small frontier: carve it unless an exact fit waits */
            if (r->dv_size >= csz + RP_MIN_BLOCK && !r->heap->bin[csz / RP_GRAIN])
                return handed_out(r, rp_dv_carve(r, csz), csz);
            /* a bin that fits, or dv whole: the heap serves it */
            if (r->dv_size >= csz || rp_heap_fits(r->heap, csz))
                return alloc_slow(r, n);
        } else if (!r->quick_bytes) {
            rp_set_heap_empty(r, true); /* all reused: a region again (rp_quick_pop) */
        }
        /* nothing freed fits (rp_heap_alloc would find none): bump */
        void *p = reap_frontier_bump((reap_frontier_t *)(void *)r, csz);
        if (RP_LIKELY(p != NULL))
            return p;
    }
    return alloc_slow(r, n);
}

/* Not annotating, so inline_limit is bump_max + 1 while the heap is empty
 * and 0 otherwise: reap_malloc_bump() is the region case whole. */
static inline void *malloc_plain(reap_t *r, size_t n)
{
    if (RP_LIKELY(r != NULL)) {
        void *p = reap_malloc_bump(r, n);
        if (RP_LIKELY(p != NULL))
            return p;
    }
    return malloc_after_bump(r, n);
}

static RP_NOINLINE void *ann_malloc(reap_t *r, size_t n);

/* reap_malloc() without its trace event, for the calls that make up a
 * bigger one (realloc). */
static inline void *malloc_any(reap_t *r, size_t n)
{
    if (RP_ANNOTATED())
        return ann_malloc(r, n);
    return malloc_plain(r, n);
}

static RP_NOINLINE void *traced_malloc(reap_t *r, size_t n)
{
    void *p = malloc_any(r, n);
    if (p)
        rp_trace_alloc(r, n, p);
    return p;
}

/* Tracing (util/trace.h): while it is on, every reap's inline_limit is 0
 * (as while annotating), so the bump below never succeeds and every
 * allocation reaches the test of rp_trace_state; the region path pays
 * nothing for it, the others one test, and the traced path is a tail
 * call, so neither keeps a stack frame. */
void *reap_malloc(reap_t *r, size_t n)
{
    void *p = r != NULL ? reap_malloc_bump(r, n) : NULL;
    if (RP_LIKELY(p != NULL))
        return p;
    if (RP_UNLIKELY(rp_tracing()))
        return traced_malloc(r, n);
    if (RP_ANNOTATED())
        return ann_malloc(r, n);
    return malloc_after_bump(r, n);
}

void *reap_calloc(reap_t *r, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = reap_given(r, NULL, "NULL reap passed to reap_calloc") ? ENOMEM : EINVAL;
        return NULL;
    }
    void *p = reap_malloc(r, total);
    if (p)
        memset(p, 0, total);
    return p;
}

/* Over-allocate, then give back the part before the aligned address and the
 * part after the object. */
static void *aligned_small(reap_t *r, size_t alignment, size_t n)
{
    size_t csz = rp_request2size(r, n);
    char *p = malloc_plain(r, csz + alignment + RP_MIN_BLOCK);
    if (!p)
        return NULL;
    rp_block_t *b = rp_mem2b(p);
    if ((uintptr_t)p % alignment != 0) {
        char *q = (char *)(((uintptr_t)p + RP_MIN_BLOCK + alignment - 1) & ~(uintptr_t)(alignment - 1));
        size_t lead = (size_t)(q - p), size = rp_bsize(b);
        rp_block_t *nb = rp_at(b, lead);
        nb->head = (size - lead) | RP_PINUSE | RP_CINUSE | ((size_t)r->tag << RP_TAG_SHIFT);
        b->head = lead | (b->head & RP_PINUSE) | RP_CINUSE | ((size_t)r->tag << RP_TAG_SHIFT);
        rp_heap_free(r, b);
        rp_live_sub(r, lead);
        b = nb;
    }
    size_t before = rp_bsize(b);
    rp_heap_trim(r, b, csz);
    rp_live_sub(r, before - rp_bsize(b));
    return rp_b2mem(b);
}

/* A region's blocks have no header to split: bump the slack too, and let
 * the object start at the aligned address (region.c makes the bytes before
 * it a freed block of their own). */
static void *aligned_region(reap_t *r, size_t alignment, size_t n)
{
    char *p = malloc_plain(r, n + alignment);
    if (!p)
        return NULL;
    char *q = (char *)(((uintptr_t)p + alignment - 1) & ~(uintptr_t)(alignment - 1));
    if (q != p)
        rp_region_move_start(r, p, q);
    return q;
}

static void *aligned_plain(reap_t *r, size_t alignment, size_t n)
{
    if (alignment <= r->grain_mask + 1)
        return malloc_plain(r, n);
    if (n >= RP_MAX_REQUEST || alignment >= RP_MAX_REQUEST)
        return NULL;
    /* aligned_small() asks for the object plus alignment slack: route by
     * that padded size, or its block could come back as a large object. */
    if (rp_request2size(r, n) + alignment + RP_MIN_BLOCK > rp_opt.large_threshold) {
        void *p = rp_large_alloc(r, n, alignment);
        if (p)
            r->allocs++;
        return p;
    }
    if (r->head_room == 0)
        return aligned_region(r, alignment, n);
    return aligned_small(r, alignment, n);
}

static void *ann_aligned(reap_t *r, size_t alignment, size_t n);

void *reap_aligned_alloc(reap_t *r, size_t alignment, size_t n)
{
    if (!reap_given(r, NULL, "NULL reap passed to reap_aligned_alloc")) {
        errno = EINVAL;
        return NULL;
    }
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        errno = EINVAL;
        return NULL;
    }
    void *p = RP_ANNOTATED() ? ann_aligned(r, alignment, n) : aligned_plain(r, alignment, n);
    if (RP_UNLIKELY(rp_tracing()) && p)
        rp_trace_alloc(r, n, p);
    return p;
}

/* ---- free ---------------------------------------------------------------------- */

static RP_NOINLINE void free_large(reap_t *r, void *p)
{
    rp_block_t *b = checked_block(r, p, false);
    if (!b)
        return;
    r->frees++;
    rp_large_free(r, b);
}

/* b passed the checks: give it back to the frontier if it borders it, park
 * it on its quick list if it is small, else free it onto the bins. */
static inline void free_block(reap_t *r, rp_block_t *b, size_t h)
{
    size_t size = h & RP_SIZE_MASK;
    r->frees++;
    rp_live_sub(r, size);
    if (size < r->quick_below && (char *)b + size != r->bump) {
        rp_quick_push(r, b, size);
        return;
    }
    rp_heap_free(r, b);
}

static RP_NOINLINE void free_slow(reap_t *r, void *p)
{
    /* Debug builds look before they read: a large object freed twice has
     * already gone back to the base allocator. */
    if (config_debug && !rp_region_owns(r, p)) { /* also a large object freed twice */
        rp_misuse(REAP_MISUSE_FOREIGN, RP_FREE_FOREIGN, r, p);
        return;
    }
    rp_block_t *b = rp_mem2b(p);
    if ((b->head & RP_LARGE) && ((uintptr_t)p % RP_GRAIN) == 0) { /* large: 16-byte aligned */
        free_large(r, p);
        return;
    }
    b = checked_block(r, p, false);
    if (b)
        free_block(r, b, b->head);
}

static inline void free_plain(reap_t *r, void *p)
{
    size_t h = rp_mem2b(p)->head;
    const size_t checked = RP_TAG_MASK | RP_CINUSE | RP_QUICK | RP_LARGE | RP_FENCE;
    if (RP_LIKELY((h & checked) == (r->head_bits & (RP_TAG_MASK | RP_CINUSE)) &&
                  aligned_in(r, p) && !config_debug))
        free_block(r, rp_mem2b(p), h);
    else
        free_slow(r, p);
}

static void ann_free(reap_t *r, void *p);

/* A free: with closes (reap_free, not reap_discard or a realloc), the
 * first one of a reap that is still a region makes the blocks from here on
 * get headers, so that their frees reuse them.  A block without header
 * (from while the reap was a region) is checked against its chunk's
 * bitmaps by region.c, which keeps it for reuse while the reap is a region
 * (its holes) and else leaves its memory to the clear. */
static inline void free_any(reap_t *r, void *p, bool closes)
{
    if (p == NULL || !reap_given(r, p, "NULL reap passed to reap_free"))
        return;
    if (r->region_start) { /* every pool of the reap-backed APR */
        if (closes && r->head_room == 0)
            rp_region_close(r);
        if (rp_region_may_own(r, p) && rp_region_free(r, p))
            return;
    }
    if (RP_ANNOTATED()) {
        ann_free(r, p);
        return;
    }
    free_plain(r, p);
}

/* The event goes first: once freed, the block may be handed out again. */
static RP_NOINLINE void traced_free(reap_t *r, void *p, bool discard)
{
    if (p)
        rp_trace_free_as(r, p, discard);
    free_any(r, p, !discard);
}

void reap_discard(reap_t *r, void *p)
{
    if (RP_UNLIKELY(rp_tracing())) {
        traced_free(r, p, true);
        return;
    }
    free_any(r, p, false);
}

void reap_free(reap_t *r, void *p)
{
    if (RP_UNLIKELY(rp_tracing())) {
        traced_free(r, p, false);
        return;
    }
    free_any(r, p, true);
}

/* Bytes from p to the end of its block: what the program may use. */
static size_t block_usable(const rp_block_t *b)
{
    if (b->head & RP_LARGE)
        return rp_large_usable(b);
    return rp_bsize(b) - RP_HEADER;
}

size_t reap_usable_size(const void *p)
{
    if (p == NULL)
        return 0;
    if (RP_ANNOTATED()) { /* the caller may use them all now: open them */
        rp_ann_quiet_begin();
        size_t span = block_usable(rp_mem2b(p));
        rp_ann_quiet_end();
        rp_ann_open(p, rp_ann_accessible(p, span), span);
        return span;
    }
    return block_usable(rp_mem2b(p));
}

/* ---- realloc --------------------------------------------------------------------- */

/* Grow or shrink b in place to csz bytes; false when it cannot. */
static bool resize_in_place(reap_t *r, rp_block_t *b, size_t csz)
{
    size_t size = rp_bsize(b);
    rp_block_t *next = rp_at(b, size);
    if (csz > size) {
        if ((char *)next == r->bump) {
            if (csz - size > (size_t)(r->bump_end - r->bump))
                return false;
            r->bump = (char *)b + csz;
            b->head = csz | (b->head & RP_PINUSE) | RP_CINUSE | ((size_t)r->tag << RP_TAG_SHIFT);
            r->live_bytes += csz - size;
            return true;
        }
        if ((next->head & RP_CINUSE) || size + rp_bsize(next) < csz)
            return false;
        size_t ns = rp_bsize(next);
        rp_heap_unlink(r, next, ns);
        rp_set_inuse(r, b, size + ns);
        r->live_bytes += ns;
        size += ns;
    }
    rp_heap_trim(r, b, csz);
    rp_live_sub(r, size - rp_bsize(b));
    return true;
}

/* Can p (block b) hold n bytes where it is?  Resizes a small block. */
static bool realloc_in_place(reap_t *r, rp_block_t *b, size_t n)
{
    if (b->head & RP_LARGE) /* still worth its own block; shrinking it would copy */
        return n <= rp_large_usable(b) && n > rp_opt.large_threshold / 2;
    return n <= rp_opt.large_threshold && resize_in_place(r, b, rp_request2size(r, n));
}

/* Move p, of which old bytes are the program's, to a new object of n. */
static void *realloc_move(reap_t *r, void *p, size_t n, size_t old)
{
    void *q = malloc_any(r, n);
    if (!q)
        return NULL;
    memcpy(q, p, n < old ? n : old);
    free_any(r, p, false);
    return q;
}

static void *ann_realloc(reap_t *r, void *p, rp_block_t *b, size_t n);

/* The block of p when realloc may resize it; NULL once a freed or foreign
 * p is reported (its header may be poisoned: read quietly). */
static rp_block_t *realloc_block(reap_t *r, void *p)
{
    rp_ann_quiet_begin();
    rp_block_t *b = checked_block(r, p, true);
    rp_ann_quiet_end();
    return b;
}

/* realloc of p, a block without header (from while r was a region) of
 * size bytes in chunk c: shrunk where it is, grown where it is when the
 * frontier follows it, else moved (and the old block freed).  A freed or
 * foreign p has been reported: NULL. */
static void *realloc_region(reap_t *r, rp_chunk_t *c, void *p, size_t n)
{
    size_t size = rp_region_checked(r, c, p, true);
    if (size == 0) {
        errno = EINVAL;
        return NULL;
    }
    size_t old = RP_ANNOTATED() ? rp_ann_accessible(p, size) : size;
    if (n == 0) {
        rp_region_release(r, c, p, size);
        return NULL;
    }
    char *b = (char *)p - 8;
    size_t csz = rp_request2size(r, n);
    if (n <= size || (c == r->chunk && r->head_room == 0 && b + size == r->bump &&
                      n <= rp_opt.large_threshold && csz - size <= (size_t)(r->bump_end - r->bump))) {
        if (n > size) { /* the last block: the frontier moves */
            r->bump = b + csz;
            r->live_bytes += csz - size;
        }
        rp_ann_object_resize(r, p, old, size > csz ? size : csz, n);
        return p;
    }
    void *q = malloc_any(r, n);
    if (!q)
        return NULL;
    memcpy(q, p, old);
    rp_region_release(r, c, p, size);
    return q;
}

static void *realloc_any(reap_t *r, void *p, size_t n)
{
    if (p == NULL)
        return malloc_any(r, n);
    rp_chunk_t *c = r != NULL && r->region_start && rp_region_may_own(r, p) ? rp_region_chunk(r, p) : NULL;
    if (c)
        return realloc_region(r, c, p, n);
    rp_block_t *b = reap_given(r, p, "NULL reap passed to reap_realloc") ? realloc_block(r, p) : NULL;
    if (!b) {
        errno = EINVAL;
        return NULL;
    }
    if (n == 0) {
        free_any(r, p, false);
        return NULL;
    }
    if (RP_ANNOTATED())
        return ann_realloc(r, p, b, n);
    if (realloc_in_place(r, b, n))
        return p;
    return realloc_move(r, p, n, block_usable(b));
}

/* realloc's event: an allocation, a free or a move, as it turned out. */
static RP_NOINLINE void trace_realloc(reap_t *r, void *p, void *q, size_t n)
{
    if (p == NULL && q)
        rp_trace_alloc(r, n, q);
    else if (p && n == 0)
        rp_trace_free(r, p);
    else if (p && q)
        rp_trace_realloc(r, p, q, n);
}

void *reap_realloc(reap_t *r, void *p, size_t n)
{
    void *q = realloc_any(r, p, n);
    if (RP_UNLIKELY(rp_tracing()))
        trace_realloc(r, p, q, n);
    return q;
}

/* ---- annotated paths (ASan, Valgrind: annotate.h) ---------------------------------- */

#if RP_ANNOTATE

static RP_NOINLINE void *ann_malloc(reap_t *r, size_t n)
{
    rp_ann_quiet_begin();
    void *p = malloc_after_bump(r, n); /* inline_limit is 0: no bump to try */
    rp_ann_quiet_end();
    if (p)
        rp_ann_object(r, p, n);
    return p;
}

static void *ann_aligned(reap_t *r, size_t alignment, size_t n)
{
    rp_ann_quiet_begin();
    void *p = aligned_plain(r, alignment, n);
    rp_ann_quiet_end();
    if (p)
        rp_ann_object(r, p, n);
    return p;
}

/* The object is poisoned before the plain free, which may give a large
 * object's memory back to the system; only when its header is sound, as
 * a wild pointer's "size" could be anything. */
static void ann_free(reap_t *r, void *p)
{
    rp_ann_quiet_begin();
    size_t h = rp_mem2b(p)->head;
    bool live = aligned_in(r, p) && (h >> RP_TAG_SHIFT) == r->tag &&
                (h & (RP_CINUSE | RP_QUICK | RP_FENCE)) == RP_CINUSE;
    size_t span = live ? block_usable(rp_mem2b(p)) : 0;
    rp_ann_quiet_end();
    if (live) /* else free_plain reports the misuse */
        rp_ann_object_free(r, p, span);
    rp_ann_quiet_begin();
    free_plain(r, p);
    rp_ann_quiet_end();
}

static void *ann_realloc(reap_t *r, void *p, rp_block_t *b, size_t n)
{
    rp_ann_quiet_begin();
    size_t before = block_usable(b);
    rp_ann_quiet_end();
    size_t old = rp_ann_accessible(p, before);
    rp_ann_quiet_begin();
    bool kept = realloc_in_place(r, b, n);
    size_t after = block_usable(b);
    rp_ann_quiet_end();
    if (!kept)
        return realloc_move(r, p, n, old);
    rp_ann_object_resize(r, p, old, before > after ? before : after, n);
    return p;
}

#else /* never called: RP_ANNOTATED() is 0 */

static void *ann_malloc(reap_t *r, size_t n) { return malloc_after_bump(r, n); }
static void *ann_aligned(reap_t *r, size_t alignment, size_t n) { return aligned_plain(r, alignment, n); }
static void ann_free(reap_t *r, void *p) { free_plain(r, p); }
static void *ann_realloc(reap_t *r, void *p, rp_block_t *b, size_t n)
{
    (void)b;
    return realloc_any(r, p, n);
}

#endif
