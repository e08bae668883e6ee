/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * alloc.c - the object API: malloc, calloc, realloc, aligned alloc, free.
 *
 * The two hot paths are here and kept short.  reap_malloc() bumps the
 * frontier while its chunk has room (reap.h's inline bump: the region's
 * cost and one start bit), then takes from the lists (leaheap.c), sweeps
 * when that pays, and only then takes a new chunk (region.c).
 * reap_free() finds the object's chunk from its address (the frontier's
 * chunk by its range, any other through the base allocator's map, its
 * block and the chunk's key), checks its two bits there (a start, not
 * freed), finds its end at the next start bit, sets its freed bit and
 * files it on its list: it reads nothing of the object and writes one
 * link into it.  The last block before the frontier goes back to the
 * frontier at once.
 * Every other misuse is told apart by the same bits, in free_misuse().
 * Objects above the large threshold get solo chunks (region.c).
 *
 * In ASan and Valgrind builds (annotate.h) each public call first asks
 * RP_ANNOTATED() and, when annotating, takes an ann_* function below that
 * runs the plain path and then tells the tool what the program may touch;
 * in normal builds that test is a constant 0 and compiles away.
 */
#include <string.h>

#include "region.h"
#include "util/trace.h"

/* r is a reap; otherwise the misuse is reported (the caller returns when
 * rp_misuse does). */
static inline bool reap_given(reap_t *r, const void *p, const char *what)
{
    if (RP_LIKELY(r != NULL))
        return true;
    rp_misuse(REAP_MISUSE_NULL_REAP, what, r, p);
    return false;
}

/* ---- the checks of a free or realloc ------------------------------------------------ */

/* What a pointer passed to free or realloc is. */
typedef enum { P_LIVE, P_SOLO, P_FREED, P_FOREIGN } p_kind_t;

/* Classifies p for r from the metadata alone: *cp gets its chunk. */
static p_kind_t classify(reap_t *r, const void *p, rp_chunk_t **cp)
{
    uintptr_t start;
    rp_chunk_t *c = rp_chunk_block(p, &start);
    *cp = c;
    if (!c || c->reap != r || ((uintptr_t)p & r->grain_mask) != 0)
        return P_FOREIGN;
    if (rp_chunk_solo(c))
        return (const char *)p == c->arena ? P_SOLO : P_FOREIGN;
    if (c->key != rp_chunk_key(c)) /* a solo chunk given back keeps its key inverted */
        return c->key == rp_solo_freed_key(c) && (const char *)p == c->arena ? P_FREED : P_FOREIGN;
    if (c == r->chunk && (const char *)p >= r->bump) /* freed, and taken back by the frontier */
        return (const char *)p < r->high ? P_FREED : P_FOREIGN;
    const rp_pair_t *w = rp_pair_at(c, p);
    uint64_t bit = rp_bit(p);
    if (w->freed & bit) /* a freed block's start, or one a sweep joined to the block before */
        return P_FREED;
    return (w->start & bit) ? P_LIVE : P_FOREIGN;
}

/* Reports p, which is not a live object of r, as free or realloc found it. */
RP_COLD static void misuse(reap_t *r, const void *p, p_kind_t kind, bool realloc)
{
    if (kind == P_FREED)
        rp_misuse(realloc ? REAP_MISUSE_FREED_REALLOC : REAP_MISUSE_DOUBLE_FREE,
                  realloc ? "realloc of a freed pointer" : "double free of", r, p);
    else
        rp_misuse(REAP_MISUSE_FOREIGN, realloc ? RP_REALLOC_FOREIGN : RP_FREE_FOREIGN, r, p);
}

/* ---- allocation ------------------------------------------------------------------------ */

/* A block of bsize bytes when the frontier has no room: from the lists,
 * by a sweep when one is due, else from a new chunk. */
static RP_NOINLINE void *malloc_more(reap_t *r, size_t bsize)
{
    char *b;
    if (r->heap != NULL && (b = rp_heap_take(r, bsize)))
        return b;
    if (rp_sweep_due(r, bsize)) {
        rp_sweep(r);
        if ((b = rp_heap_take(r, bsize))) /* without lists, a scan */
            return b;
        if (bsize <= (size_t)(r->bump_end - r->bump)) /* the frontier may have gone back */
            return reap_frontier_bump((reap_frontier_t *)(void *)r, bsize);
    }
    if ((b = rp_region_bump(r, bsize)) || r->free_bytes < bsize)
        return b;
    /* the reap cannot grow (a limit, no memory): whatever was freed, even
     * since a sweep not worth its walk, before it fails */
    rp_sweep(r);
    return rp_heap_take(r, bsize);
}

/* The commonest take from the lists (rp_heap_pop(), region.h), in a
 * function of its own: the registers it needs are saved on this way
 * only. */
static RP_NOINLINE void *malloc_popped(reap_t *r, size_t bsize)
{
    char *b = rp_heap_pop(r, bsize);
    return RP_LIKELY(b != NULL) ? b : malloc_more(r, bsize);
}

/* Everything but the inline bump.  It makes only tail calls, so it needs
 * no stack frame of its own. */
static RP_NOINLINE void *malloc_slow(reap_t *r, size_t n)
{
    if (!reap_given(r, NULL, "NULL reap passed to reap_malloc")) {
        errno = EINVAL;
        return NULL;
    }
    if (n > rp_opt.large_threshold)
        return rp_solo_alloc(r, n, RP_GRAIN);
    size_t bsize = rp_block_size(r, n);
    if (bsize <= (size_t)(r->bump_end - r->bump))
        return reap_frontier_bump((reap_frontier_t *)(void *)r, bsize);
    if (rp_heap_poppable(r, bsize))
        return malloc_popped(r, bsize);
    return malloc_more(r, bsize);
}

static RP_NOINLINE void *ann_malloc(reap_t *r, size_t n);

/* reap_malloc() without its trace event, for the calls that make up a
 * bigger one (realloc). */
static inline void *malloc_any(reap_t *r, size_t n)
{
    if (RP_ANNOTATED())
        return ann_malloc(r, n);
    void *p = r != NULL ? reap_malloc_bump(r, n) : NULL;
    return RP_LIKELY(p != NULL) ? p : malloc_slow(r, n);
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
RP_HOT_ALIGN void *reap_malloc(reap_t *r, size_t n)
{
    void *p = r != NULL ? reap_malloc_bump(r, n) : NULL;
    if (RP_LIKELY(p != NULL))
        return p;
    if (RP_UNLIKELY(rp_tracing()))
        return traced_malloc(r, n);
    if (RP_ANNOTATED())
        return ann_malloc(r, n);
    return malloc_slow(r, n);
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

/* [b, b + size) of c, cut from a live block, is a freed block, filed at
 * once as a free's would be (the lists are made for it if need be). */
static void free_tail(reap_t *r, const rp_chunk_t *c, char *b, size_t size)
{
    if (!r->heap)
        rp_heap_ensure(r);
    rp_bits_free_tail(r, c, b, size);
}

/* Shrinks live block p of c, ending at e, to want bytes: the rest goes to
 * the frontier or becomes a freed block. */
static void shrink_in_place(reap_t *r, rp_chunk_t *c, char *p, char *e, size_t want)
{
    char *cut = p + want;
    if (cut == e)
        return;
    rp_settle(r); /* before a start bit is added or the frontier moves */
    r->live_bytes -= (uint64_t)(e - cut);
    if (c == r->chunk && e == r->bump) {
        rp_frontier_back(r, cut);
        return;
    }
    free_tail(r, c, cut, (size_t)(e - cut));
}

/* The object starts at the aligned address inside a block bumped or taken
 * with room for the slack; the bytes before it are a freed block. */
static void *aligned_plain(reap_t *r, size_t alignment, size_t n)
{
    if (alignment <= r->grain_mask + 1)
        return malloc_slow(r, n);
    if (n >= RP_MAX_REQUEST || alignment >= RP_MAX_REQUEST)
        return NULL;
    if (n + alignment > rp_opt.large_threshold)
        return rp_solo_alloc(r, n, alignment);
    char *b = malloc_slow(r, n + alignment);
    if (!b)
        return NULL;
    char *q = (char *)(((uintptr_t)b + alignment - 1) & ~(uintptr_t)(alignment - 1));
    rp_chunk_t *c = rp_chunk_find(b);
    char *e = rp_block_end(r, c, b);
    if (q != b) { /* the bytes before q: a freed block */
        rp_settle(r); /* the start bit at q is no new block */
        rp_pair_at(c, q)->start |= rp_bit(q);
        free_tail(r, c, b, (size_t)(q - b));
        r->live_bytes -= (uint64_t)(q - b);
    }
    shrink_in_place(r, c, q, e, rp_block_size(r, n)); /* and what follows the object */
    return q;
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

/* ---- free ---------------------------------------------------------------------------- */

/* The last block before the frontier goes back to it. */
static RP_NOINLINE void free_at_frontier(reap_t *r, rp_chunk_t *c, char *p)
{
    rp_settle(r);
    r->live_bytes -= (uint64_t)(r->bump - p);
    r->frees++;
    rp_pair_at(c, p)->start &= ~rp_bit(p);
    rp_frontier_back(r, p);
}

/* Sets the freed bit (bit, in pair w) of p, a live block ending at e, and
 * files it on its list of r's heap, h (unless a limit left r none). */
static inline void free_block(reap_t *r, rp_heap_t *h, rp_pair_t *w, uint64_t bit, char *p,
                              const char *e)
{
    uint64_t size = (uint64_t)(e - p);
    w->freed |= bit;
    rp_settle_live(r);
    r->live_bytes -= size;
    r->free_bytes += size;
    r->frees++;
    if (RP_LIKELY(h != NULL))
        rp_heap_file(h, p, size);
}

/* A free, every case: a block of a bumped chunk (the last before the
 * frontier goes back to it), a solo object, a misuse. */
static RP_NOINLINE void free_plain(reap_t *r, void *p)
{
    rp_chunk_t *c;
    p_kind_t kind = classify(r, p, &c);
    if (kind == P_LIVE) {
        rp_pair_t *w = rp_pair_at(c, p);
        char *e = rp_next_start_in(w, p);
        if (c == r->chunk && e >= r->bump)
            free_at_frontier(r, c, p);
        else
            free_block(r, r->heap ? r->heap : rp_heap_ensure(r), w, rp_bit(p), p, e);
    } else if (kind == P_SOLO) {
        rp_settle_live(r);
        r->live_bytes -= c->size;
        r->frees++;
        rp_solo_free(r, c);
    } else {
        misuse(r, p, kind, false);
    }
    if (config_debug)
        rp_heap_check(r);
}

/* The common free: a live block of a chunk found by the address map, not
 * the last before the frontier.  Everything it needs is inline and it
 * calls nothing, so it needs no stack frame; false sends the caller to
 * free_plain(), which sorts out the rest. */
static inline bool free_fast(reap_t *r, char *p)
{
    /* the frontier's chunk, where the newest objects are, without the map */
    rp_chunk_t *c = r->chunk;
    uintptr_t start = (uintptr_t)c->start;
    if ((uintptr_t)p - start >= c->size) {
        c = rp_chunk_aligned(p, &start);
        if (rp_chunk_not_owned(c, r))
            return false;
    }
    /* 8-aligned: a start bit says the rest (a 16-byte grain starts blocks
     * on 16 only) */
    if (RP_UNLIKELY((uintptr_t)p & 7))
        return false;
    rp_pair_t *w = rp_pair_in(c, start, p);
    uint64_t bit = rp_bit(p);
    if (RP_UNLIKELY(!(w->start & ~w->freed & bit)))
        return false;
    char *e = rp_next_start_in(w, p);
    rp_heap_t *h = r->heap;
    if (RP_UNLIKELY((c == r->chunk && e >= r->bump) || h == NULL))
        return false;
    free_block(r, h, w, bit, p, e);
    if (config_debug)
        rp_heap_check(r);
    return true;
}

static void ann_free(reap_t *r, void *p);

static RP_NOINLINE void free_any(reap_t *r, void *p)
{
    if (p == NULL || !reap_given(r, p, "NULL reap passed to reap_free"))
        return;
    if (RP_ANNOTATED()) {
        ann_free(r, p);
        return;
    }
    free_plain(r, p);
}

/* The event goes first: once freed, the block may be handed out again. */
static RP_NOINLINE void traced_free(reap_t *r, void *p)
{
    if (p)
        rp_trace_free(r, p);
    free_any(r, p);
}

RP_HOT_ALIGN void reap_free(reap_t *r, void *p)
{
    if (RP_UNLIKELY(rp_tracing())) {
        traced_free(r, p);
        return;
    }
    if (RP_LIKELY(r != NULL && p != NULL && !RP_ANNOTATED()) && free_fast(r, p))
        return;
    free_any(r, p);
}

/* Bytes from p, a live object, to the end of its block: what the program
 * may use; 0 when p is none. */
static size_t usable(const void *p)
{
    rp_chunk_t *c = rp_chunk_find(p);
    if (!c || ((uintptr_t)p & c->reap->grain_mask) != 0)
        return 0;
    if (rp_chunk_solo(c))
        return (const char *)p == c->arena ? rp_solo_usable(c) : 0;
    const rp_pair_t *w = rp_pair_at(c, p);
    if ((w->start & ~w->freed & rp_bit(p)) == 0)
        return 0;
    return (size_t)(rp_block_end(c->reap, c, p) - (const char *)p);
}

size_t reap_usable_size(const void *p)
{
    if (p == NULL)
        return 0;
    if (RP_ANNOTATED()) { /* the caller may use them all now: open them */
        size_t span = usable(p);
        rp_ann_open(p, rp_ann_accessible(p, span), span);
        return span;
    }
    return usable(p);
}

/* ---- realloc ------------------------------------------------------------------------ */

/* Grows live block p of c (size bytes, ending at e) to want bytes where it
 * is: into the frontier, or into the freed block after it. */
static bool grow_in_place(reap_t *r, rp_chunk_t *c, char *p, char *e, size_t want)
{
    size_t more = want - (size_t)(e - p);
    if (c == r->chunk && e == r->bump) {
        if (more > (size_t)(r->bump_end - r->bump))
            return false;
        r->bump += more; /* counted with the bump, lazily */
        return true;
    }
    rp_pair_t *w = rp_pair_at(c, e);
    uint64_t bit = rp_bit(e);
    if (!(w->start & w->freed & bit))
        return false;
    char *f = rp_block_end(r, c, e);
    size_t next = (size_t)(f - e);
    if (next < more)
        return false;
    rp_settle(r); /* before start bits change */
    w->start &= ~bit; /* the freed block joins p's */
    rp_freed_clear_range(c, e, e + next);
    r->free_bytes -= next;
    rp_heap_forget(r); /* it may be on a list */
    r->live_bytes += next;
    if (next > more) { /* the rest stays freed */
        rp_bits_free_tail(r, c, p + want, next - more);
        r->live_bytes -= next - more;
    }
    return true;
}

/* Can live block p of c hold n bytes where it is?  Resizes it. */
static bool realloc_in_place(reap_t *r, rp_chunk_t *c, char *p, size_t n)
{
    if (rp_chunk_solo(c)) /* still worth a chunk of its own; shrinking it would copy */
        return n <= rp_solo_usable(c) && n > rp_opt.large_threshold / 2;
    if (n > rp_opt.large_threshold)
        return false;
    char *e = rp_block_end(r, c, p);
    size_t want = rp_block_size(r, n), size = (size_t)(e - p);
    if (want <= size) {
        shrink_in_place(r, c, p, e, want);
        return true;
    }
    return grow_in_place(r, c, p, e, want);
}

/* Move p, of which old bytes are the program's, to a new object of n. */
static void *realloc_move(reap_t *r, void *p, size_t n, size_t old)
{
    void *q = malloc_any(r, n);
    if (!q)
        return NULL;
    memcpy(q, p, n < old ? n : old);
    free_any(r, p);
    return q;
}

static void *ann_realloc(reap_t *r, rp_chunk_t *c, void *p, size_t n);

static void *realloc_any(reap_t *r, void *p, size_t n)
{
    if (p == NULL)
        return malloc_any(r, n);
    if (!reap_given(r, p, "NULL reap passed to reap_realloc")) {
        errno = EINVAL;
        return NULL;
    }
    rp_chunk_t *c;
    p_kind_t kind = classify(r, p, &c);
    if (kind != P_LIVE && kind != P_SOLO) {
        misuse(r, p, kind, true);
        errno = EINVAL;
        return NULL;
    }
    if (n == 0) {
        free_any(r, p);
        return NULL;
    }
    if (RP_ANNOTATED())
        return ann_realloc(r, c, p, n);
    size_t old = usable(p);
    if (realloc_in_place(r, c, p, n))
        return p;
    return realloc_move(r, p, n, old);
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

/* ---- annotated paths (annotate.h; never taken where RP_ANNOTATED() is 0) ---------------- */

static RP_NOINLINE void *ann_malloc(reap_t *r, size_t n)
{
    rp_ann_quiet_begin();
    void *p = malloc_slow(r, n); /* inline_limit is 0: no bump to try */
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

/* The object is poisoned before the plain free, which may give a solo
 * chunk's memory back to the base allocator; only when it is a live
 * object, whose span its bits tell. */
static void ann_free(reap_t *r, void *p)
{
    rp_ann_quiet_begin();
    size_t span = usable(p);
    rp_chunk_t *c = span ? rp_chunk_find(p) : NULL;
    bool mine = c && c->reap == r;
    rp_ann_quiet_end();
    if (mine) /* else free_plain reports the misuse */
        rp_ann_object_free(r, p, span);
    rp_ann_quiet_begin();
    free_plain(r, p);
    rp_ann_quiet_end();
}

static void *ann_realloc(reap_t *r, rp_chunk_t *c, void *p, size_t n)
{
    rp_ann_quiet_begin();
    size_t before = usable(p);
    rp_ann_quiet_end();
    size_t old = rp_ann_accessible(p, before);
    rp_ann_quiet_begin();
    bool kept = realloc_in_place(r, c, p, n);
    size_t after = usable(p);
    rp_ann_quiet_end();
    if (!kept)
        return realloc_move(r, p, n, old);
    rp_ann_object_resize(r, p, old, before > after ? before : after, n);
    return p;
}

