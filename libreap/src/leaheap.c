/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * leaheap.c - a reap's freed blocks: the Lea-style lists that hand them out
 * again, and the sweep that joins neighbours.
 *
 * A free sets its block's freed bit and files it on the list of its size
 * (alloc.c): exact lists by 8 bytes up to 1 KiB, eight ranged ones per
 * power of two above, a bitmap of the lists that hold something (dlmalloc
 * 2.7's bins).  Once the frontier's chunk is full a request takes its
 * exact list's first block; failing that, the best fit among the first
 * few of its ranged list; failing that, the first block of the next list
 * that holds one, cut, the rest filed at once (dlmalloc's designated
 * victim).  When nothing fits and enough was freed since the last sweep
 * to pay for its walk (rp_sweep_due), the sweep reads every chunk's
 * bitmaps a word at a time, joins each run of freed blocks (clearing the
 * start bits inside, keeping their freed bits so a later free of one is
 * still a double free), hands the frontier back what borders it, gives
 * back a retired chunk that came wholly free, and files every run afresh.
 * Coalescing waits for the sweep so that a free reads no neighbour and
 * unlinks nothing (docs/design.md); a request pool that frees and then is
 * cleared never sweeps at all.
 */
#include <string.h>

#include "base/base.h"
#include "region.h"

/* ---- the lists ------------------------------------------------------------------ */

static bool listed(const rp_heap_t *h, unsigned i) { return (h->map[i / 64] >> (i % 64)) & 1; }

/* The first list at or after i that holds a block, or RP_NLISTS. */
static unsigned next_listed(const rp_heap_t *h, unsigned i)
{
    for (unsigned w = i / 64; w < (RP_NLISTS + 63) / 64; w++) {
        uint64_t bits = h->map[w];
        if (w == i / 64)
            bits &= ~(uint64_t)0 << (i % 64);
        if (bits)
            return w * 64 + (unsigned)__builtin_ctzll(bits);
    }
    return RP_NLISTS;
}

/* A listed block that is not as it was filed: its link was overwritten
 * by a write to freed memory, and what it leads to cannot be trusted.
 * A corruption report does not return (rp_misuse aborts, or a handler
 * leaves by longjmp). */
RP_COLD __attribute__((noreturn)) static void bad_entry(reap_t *r, const void *b)
{
    rp_misuse(REAP_MISUSE_CORRUPTION, "a freed object was written to:", r, b);
    __builtin_unreachable();
}

/* ---- taking a block ----------------------------------------------------------------- */

/* Hands out bsize bytes of the freed block b (size bytes, unlinked) of c,
 * whose pair is w; a rest of RP_REST_MIN bytes or more is a freed block
 * again, filed when there are lists, and a smaller one goes with the
 * block. */
static RP_ALWAYS_INLINE char *hand_out(reap_t *r, rp_chunk_t *c, rp_pair_t *w, char *b, size_t size,
                             size_t bsize)
{
    size_t rest = size - bsize;
    if (rest >= RP_REST_MIN) {
        char *tail = b + bsize;
        if (c == r->chunk && tail >= r->settled)
            rp_settle(r); /* the start bit at tail is no bumped block */
        rp_pair_t *t = rp_pair_at(c, tail);
        t->start |= rp_bit(tail);
        t->freed |= rp_bit(tail);
        if (r->heap)
            rp_heap_file(r->heap, tail, rest);
        size = bsize;
    }
    rp_freed_clear(c, w, b, size);
    rp_count_taken(r, size);
    return b;
}

/* The chunk of b, a block listed on list i of r, when its bits say it is
 * a freed block (*wp gets its pair, *sizep its size, which on an exact
 * list is the list's); NULL when they do not or its size is not the
 * list's: the program wrote over a link. */
static RP_ALWAYS_INLINE rp_chunk_t *listed_chunk(const reap_t *r, const char *b, unsigned i, bool check_size,
                                       rp_pair_t **wp, size_t *sizep)
{
    uintptr_t start;
    rp_chunk_t *c = rp_chunk_block(b, &start);
    rp_pair_t *w = rp_listed_pair(r, c, start, b);
    if (RP_UNLIKELY(w == NULL))
        return NULL;
    *wp = w;
    if (i < RP_NEXACT && !check_size) {
        *sizep = i * RP_GRANULE;
        return c;
    }
    size_t size = (size_t)(rp_block_end(r, c, b) - b);
    *sizep = size;
    return rp_list_of(size) == i ? c : NULL;
}

/* The size of b, listed on list i of r, from its bits alone (the debug
 * walk); 0 when it is not of that list. */
static size_t entry_size(const reap_t *r, const char *b, unsigned i)
{
    rp_pair_t *w;
    size_t size = 0;
    return listed_chunk(r, b, i, true, &w, &size) ? size : 0;
}

/* The best fit for bsize among the first few blocks of ranged list i (all
 * of them when no list above holds one), handed out; NULL when none
 * fits. */
#define FIT_SCAN 8
static RP_NOINLINE char *take_searching(reap_t *r, unsigned i, size_t bsize)
{
    rp_heap_t *h = r->heap;
    bool whole = i >= RP_NEXACT && next_listed(h, i + 1) == RP_NLISTS;
    void **link = &h->list[i], **best_link = NULL;
    size_t best = SIZE_MAX;
    rp_chunk_t *best_c = NULL;
    rp_pair_t *best_w = NULL;
    for (unsigned n = 0; *link && (whole || n < FIT_SCAN); n++) {
        char *b = *link;
        rp_pair_t *w;
        size_t size = 0;
        rp_chunk_t *c = listed_chunk(r, b, i, true, &w, &size);
        if (!c)
            bad_entry(r, b);
        if (size >= bsize && size < best) {
            best = size, best_link = link, best_c = c, best_w = w;
            if (size == bsize)
                break;
        }
        rp_ann_quiet_begin();
        link = (void **)*link;
        rp_ann_quiet_end();
    }
    if (!best_link)
        return NULL;
    char *b = *best_link;
    rp_ann_quiet_begin(); /* the link lives in freed memory */
    *best_link = *(void **)(void *)b;
    rp_ann_quiet_end();
    if (h->list[i] == NULL)
        h->map[i / 64] &= ~((uint64_t)1 << (i % 64));
    return hand_out(r, best_c, best_w, b, best, bsize);
}

static char *next_freed(const rp_chunk_t *c, const char *p);

/* Without lists (a limit refused their memory, and the frontier had no
 * room for them) a request takes the first freed block that fits, read
 * from the bitmaps: slow, and only when the reap could not grow either. */
static char *take_by_scan(reap_t *r, size_t bsize)
{
    for (rp_chunk_t *c = r->chunk; c; c = c->older) {
        if (rp_chunk_solo(c))
            continue;
        for (char *b = next_freed(c, c->arena); b; b = next_freed(c, b + 8)) {
            size_t size = (size_t)(rp_block_end(r, c, b) - b);
            if (size >= bsize)
                return hand_out(r, c, rp_pair_at(c, b), b, size, bsize);
        }
    }
    return NULL;
}

/* The first list at or after i that holds a block is j.  Its first block
 * fits: on list i, an exact list, it is the size asked for; on a later
 * list, larger than it.  A ranged list i (best fit among its first
 * blocks) searches, out of line. */
char *rp_heap_take(reap_t *r, size_t bsize)
{
    rp_heap_t *h = r->heap;
    if (RP_UNLIKELY(!h))
        return take_by_scan(r, bsize);
    unsigned i = rp_list_of(bsize);
    unsigned j = next_listed(h, i);
    if (j == RP_NLISTS)
        return NULL;
    if (RP_UNLIKELY(j == i && i >= RP_NEXACT)) {
        char *b = NULL;
        for (; !b && j < RP_NLISTS; j = next_listed(h, j + 1))
            b = take_searching(r, j, bsize);
        return b;
    }
    char *b = h->list[j];
    rp_pair_t *w;
    size_t size;
    rp_chunk_t *c = listed_chunk(r, b, j, false, &w, &size);
    if (RP_UNLIKELY(!c))
        bad_entry(r, b);
    rp_ann_quiet_begin(); /* the link lives in freed memory */
    void *next = *(void **)(void *)b;
    rp_ann_quiet_end();
    h->list[j] = next;
    if (next == NULL) /* before the rest of b may be filed on list j */
        h->map[j / 64] &= ~((uint64_t)1 << (j % 64));
    return hand_out(r, c, w, b, size, bsize);
}

/* ---- the sweep ------------------------------------------------------------------------- */

bool rp_sweep_due(const reap_t *r, size_t need)
{
    if (r->heap && r->heap->cut)
        return true;
    if (r->free_bytes < need) /* the commonest answer, and unswept is less */
        return false;
    uint64_t mark = r->swept > 0 ? (uint64_t)r->swept : 0;
    uint64_t unswept = r->free_bytes > mark ? r->free_bytes - mark : 0;
    if (unswept < need || unswept * 64 < r->footprint * rp_opt.sweep_share)
        return false;
    /* Once r has lists, every block freed is on them, and a sweep gives
     * what they could not only by joining neighbours (before, it files
     * the frontier's tails, whole).  Small blocks join soon; a block above
     * the exact lists' sizes needs a long run, which blocks freed here and
     * there among live ones seldom make: of the 12,288 sweeps that
     * reapbench's request row made before this rule (--scale 0.5), 12,164
     * were for such a block and 1,118 found one.  So a sweep for one
     * waits until four times its size was freed since the last. */
    return need < RP_NEXACT * RP_GRANULE || r->heap == NULL || unswept >= need * RP_SWEEP_JOIN;
}

/* The address of the first freed block start in c at or after p, or NULL. */
static char *next_freed(const rp_chunk_t *c, const char *p)
{
    if (p >= rp_chunk_end(c))
        return NULL;
    const rp_pair_t *w = rp_pair_at(c, p);
    uint64_t bits = w->start & w->freed & rp_bits_from(p);
    uintptr_t base = (uintptr_t)p & ~(uintptr_t)511;
    while (bits == 0) {
        base += 512;
        if (base >= (uintptr_t)rp_chunk_end(c))
            return NULL;
        w++;
        bits = w->start & w->freed;
    }
    char *b = (char *)(base + 8 * (uintptr_t)__builtin_ctzll(bits));
    return b < rp_chunk_end(c) ? b : NULL;
}

/* The last run of freed blocks of c, [b, e), joined (the start bits
 * inside it cleared), when nothing live follows it: it goes back to the
 * frontier when it reaches it, the chunk goes back when the run is all of
 * a retired chunk, and otherwise it is filed.  False when c went. */
static bool sweep_last(reap_t *r, rp_chunk_t *c, char *b, char *e)
{
    if (c == r->chunk) { /* up to the frontier: back to it */
        rp_pair_at(c, b)->start &= ~rp_bit(b);
        rp_freed_clear_range(c, b, r->bump);
        r->free_bytes -= (uint64_t)(r->bump - b);
        rp_frontier_back(r, b);
        return true;
    }
    if (b == c->arena && c != r->first) {
        r->free_bytes -= (uint64_t)(e - b);
        rp_region_release(r, c);
        return false;
    }
    if (r->heap)
        rp_heap_file(r->heap, b, (size_t)(e - b));
    return true;
}

/* Sweeps chunk c a bitmap word at a time.  A run starts at a freed
 * block's start and ends at the next live block's, or where c's blocks
 * end (the frontier, or the chunk's end); the start bits inside it go in
 * one mask a word.  Remnant freed bits inside a run stay: a later free of
 * one is still a double free.  False when c went back whole. */
static bool sweep_chunk(reap_t *r, rp_chunk_t *c)
{
    char *end = c == r->chunk ? r->bump : rp_chunk_end(c); /* no block starts past it */
    rp_pair_t *w = rp_pair_at(c, c->arena);
    uintptr_t base = (uintptr_t)c->arena & ~(uintptr_t)511;
    char *run = NULL;
    for (; base < (uintptr_t)end; base += 512, w++) {
        if (!run) /* on to the next word where a freed block starts */
            while (!(w->start & w->freed)) {
                if ((base += 512) >= (uintptr_t)end)
                    return true;
                w++;
            }
        uint64_t start = w->start, freed = w->freed;
        uint64_t ahead = ~(uint64_t)0; /* the bits not read yet */
        for (;;) {
            /* out of a run, the next freed block starts one; in one, the
             * next live block ends it, and the starts before it join */
            uint64_t next = start & ahead & (run ? ~freed : freed);
            if (run)
                start &= ~(next ? ahead & ((next & -next) - 1) : ahead);
            if (!next)
                break;
            unsigned k = (unsigned)__builtin_ctzll(next);
            char *at = (char *)(base + 8 * k);
            if (!run)
                run = at;
            else {
                if (r->heap)
                    rp_heap_file(r->heap, run, (size_t)(at - run));
                run = NULL;
            }
            ahead = ~(uint64_t)0 << k << 1;
        }
        w->start = start;
    }
    return run ? sweep_last(r, c, run, end) : true;
}

/* The heap's lists, made at the first free (or sweep) with something to file: from
 * the base allocator, charged to the reap, or, when its limit refuses
 * them, carved at the frontier (when it has the room) as a block that is
 * no object, gone at the next clear.  NULL when neither serves: the sweep
 * then only joins and gives back, and tries again at its end, when the
 * frontier may have taken back room. */
rp_heap_t *rp_heap_ensure(reap_t *r)
{
    if (r->heap)
        return r->heap;
    size_t size = rp_base_usable(sizeof(rp_heap_t));
    rp_heap_t *h = NULL;
    if (rp_charge(r, size) != 0)
        r->limit_failures++;
    else if (!(h = rp_base_alloc(size)))
        rp_uncharge(r, size);
    bool carved = false;
    if (!h && (size = rp_block_size(r, sizeof *h)) <= (size_t)(r->bump_end - r->bump)) {
        rp_settle(r);
        h = reap_frontier_bump((reap_frontier_t *)(void *)r, size);
        r->settled = r->live_mark = r->bump; /* not an object: not counted */
        carved = true;
    }
    if (!h)
        return NULL;
    rp_ann_metadata(h, sizeof *h);
    memset(h, 0, sizeof *h);
    h->carved = carved;
    return r->heap = h;
}

/* The lists say nothing. */
static void heap_reset(reap_t *r)
{
    rp_heap_t *h = r->heap;
    if (h) {
        for (unsigned w = 0; w < (RP_NLISTS + 63) / 64; w++)
            for (uint64_t bits = h->map[w]; bits; bits &= bits - 1)
                h->list[w * 64 + (unsigned)__builtin_ctzll(bits)] = NULL;
        memset(h->map, 0, sizeof h->map);
        h->cut = false;
    }
}

void rp_heap_forget(reap_t *r)
{
    heap_reset(r);
    if (r->heap)
        r->heap->cut = true;
}

void rp_sweep(reap_t *r)
{
    rp_settle(r); /* the frontier may move back */
    rp_heap_t *h = rp_heap_ensure(r);
    heap_reset(r);
    for (rp_chunk_t *c = r->chunk, *older; c; c = older) {
        older = c->older; /* c may go */
        if (!rp_chunk_solo(c))
            sweep_chunk(r, c);
    }
    if (!h && rp_heap_ensure(r)) /* the frontier took back room: file what is left */
        for (rp_chunk_t *c = r->chunk; c; c = c->older)
            if (!rp_chunk_solo(c))
                sweep_chunk(r, c);
    r->swept = (int64_t)r->free_bytes;
}

void rp_heap_clear(reap_t *r)
{
    if (r->heap && r->heap->carved) /* its chunk is reset */
        r->heap = NULL;
    heap_reset(r);
}

void rp_heap_release(reap_t *r)
{
    if (r->heap && !r->heap->carved) {
        size_t size = rp_base_usable(sizeof(rp_heap_t));
        rp_base_free(r->heap, size);
        rp_uncharge(r, size);
        r->heap = NULL;
    }
}

/* ---- debug: the full invariant walk ------------------------------------------------------ */

static void check_fail(const reap_t *r, const void *where, const char *what)
{
    rp_misuse(REAP_MISUSE_CORRUPTION, what, (reap_t *)r, where);
}

/* The bits of granule p of c: start in bit 0, freed in bit 1. */
static unsigned bits_at(const rp_chunk_t *c, const char *p)
{
    const rp_pair_t *w = rp_pair_at(c, p);
    return (unsigned)((w->start & rp_bit(p)) != 0) | (unsigned)((w->freed & rp_bit(p)) != 0) << 1;
}

/* Walks c's blocks; returns the bytes of its freed blocks. */
static uint64_t check_chunk(const reap_t *r, const rp_chunk_t *c)
{
    uint64_t freed = 0;
    const char *limit = c == r->chunk ? r->bump : rp_chunk_end(c);
    if (bits_at(c, rp_chunk_end(c)) != 1)
        check_fail(r, rp_chunk_end(c), "chunk without its sentinel");
    for (const char *p = (const char *)((uintptr_t)c->arena & ~(uintptr_t)511); p < c->arena; p += 8)
        if (bits_at(c, p))
            check_fail(r, p, "bits before the arena");
    for (const char *p = limit; p < rp_chunk_end(c); p += 8)
        if (bits_at(c, p))
            check_fail(r, p, "bits past the frontier");
    const char *b = c->arena;
    while (b < limit) {
        unsigned s = bits_at(c, b);
        if (!(s & 1))
            check_fail(r, b, "no block starts where the last one ended");
        const char *e = rp_next_start(c, b);
        if (e > limit)
            e = limit;
        if (((uintptr_t)(e - b) & r->grain_mask) != 0 && e != rp_chunk_end(c) && e != limit)
            check_fail(r, b, "block of a size off the grain");
        for (const char *q = b + 8; q < e; q += 8)
            if (bits_at(c, q) == 2 ? !(s & 2) : bits_at(c, q) != 0)
                check_fail(r, q, (s & 2) ? "stray bits in a freed block" : "stray bits in a live block");
        if (s & 2)
            freed += (uint64_t)(e - b);
        b = e;
    }
    return freed;
}

static void heap_check(const reap_t *r)
{
    uint64_t freed = 0;
    for (const rp_chunk_t *c = r->chunk; c; c = c->older) {
        if ((c->key != rp_chunk_key(c) && !rp_chunk_solo(c)) || c->reap != r)
            check_fail(r, c, "a chunk of the list is not the reap's");
        if (!rp_chunk_solo(c))
            freed += check_chunk(r, c);
    }
    if (freed != r->free_bytes)
        check_fail(r, r, "freed bytes walked and counted differ");
    if (!r->heap)
        return;
    for (unsigned i = 1; i < RP_NLISTS; i++) {
        if (!listed(r->heap, i)) {
            if (r->heap->list[i] != NULL)
                check_fail(r, r->heap->list[i], "an empty list has a first block");
            continue;
        }
        for (char *b = r->heap->list[i]; b; b = *(char **)(void *)b) {
            if (entry_size(r, b, i) == 0)
                check_fail(r, b, "a listed block is not the freed block its list says");
        }
    }
}

/* Tests call it directly: the walk reads freed memory (annotate.h). */
void rp_heap_check(const reap_t *r)
{
    rp_ann_quiet_begin();
    heap_check(r);
    rp_ann_quiet_end();
}
