/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_leaheap.c - a reap's freed blocks: a free files its block, a sweep
 * joins neighbours and files them, the lists hand them out once the
 * frontier's chunk is full (exact fit, best fit, split), the frontier
 * takes back what borders it, and everything freed is used again whatever
 * the order of allocations and frees; a realloc that takes a listed block
 * drops the lists, and a list a program corrupted is reported.  Sees
 * internals: the tests sweep with rp_sweep() and fill the frontier's chunk
 * (fill_frontier) where they need to, except the ones about when libreap
 * does either by itself.  main() gives reaps a first chunk of 4 KiB, so a
 * test's objects lie together in it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Block sizes below are written out from the documented rule (internal.h:
 * a request of n bytes takes n rounded up to 16 at the default grain), not
 * read back from the bits, so a wrong size fails the test. */

static size_t usable(const void *p) { return reap_usable_size(p); }

/* Bumps blocks of one grain until the frontier's chunk is full: the next
 * requests come from the lists.  The blocks stay live. */
static void fill_frontier(reap_t *r)
{
    size_t grain = r->grain_mask + 1;
    rp_chunk_t *c = r->chunk;
    while ((size_t)(r->bump_end - r->bump) >= grain)
        assert_non_null(reap_malloc(r, grain));
    assert_ptr_equal(r->chunk, c);
}

/* A reap that never frees bumps and never sweeps: what it counts as freed
 * is only the tails the frontier left behind, a few bytes a chunk. */
static void a_reap_that_never_frees_never_makes_lists(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    size_t chunks = 0;
    for (int i = 0; i < 10000; i++) {
        rp_chunk_t *c = r->chunk;
        assert_non_null(reap_malloc(r, (size_t)(i % 200)));
        chunks += r->chunk != c;
    }
    assert_null(r->heap);
    assert_true(r->free_bytes < chunks * 200);
    assert_int_equal(r->inline_limit, RP_ANNOTATED() ? 0 : rp_opt.large_threshold);
    reap_destroy(r);
}

/* A free files its block on the list of its size; the frontier goes on
 * while its chunk has room (the inline bump stays open), and the block
 * serves once it is full. */
static void a_free_files_the_block_for_reuse(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 100);
    reap_malloc(r, 8);
    reap_free(r, a);
    assert_int_equal(r->free_bytes, 112);
    assert_non_null(r->heap);
    assert_true(rp_heap_listed(r));
    assert_int_equal(r->inline_limit, RP_ANNOTATED() ? 0 : rp_opt.large_threshold);
    rp_heap_check(r);
    assert_ptr_not_equal(reap_malloc(r, 100), a); /* the frontier had room */
    fill_frontier(r);
    assert_ptr_equal(reap_malloc(r, 100), a); /* its exact list */
    assert_int_equal(r->free_bytes, 0);
    reap_free(r, a);
    assert_ptr_equal(reap_malloc(r, 40), a); /* cut: the rest is listed */
    assert_int_equal(r->free_bytes, 112 - 48);
    assert_ptr_equal(reap_malloc(r, 60), a + 48);
    rp_heap_check(r);
    reap_destroy(r);
}

static void a_sweep_joins_neighbours(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 100), *b = reap_malloc(r, 200), *c = reap_malloc(r, 300);
    reap_malloc(r, 16); /* keeps c away from the frontier */
    const size_t total = 112 + 208 + 304; /* blocks of 100, 200, 300 bytes */
    reap_free(r, a);
    reap_free(r, c);
    reap_free(r, b);
    assert_int_equal(r->free_bytes, total);
    rp_sweep(r);
    rp_heap_check(r);
    fill_frontier(r);
    char *big = reap_malloc(r, total);
    assert_ptr_equal(big, a);
    assert_int_equal(usable(big), total);
    assert_int_equal(r->free_bytes, 0);
    assert_false(rp_heap_listed(r));
    reap_destroy(r);
}

/* The last block before the frontier goes back to it at once; a freed
 * run that borders the frontier goes back at the sweep. */
static void the_frontier_takes_back_what_borders_it(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    reap_malloc(r, 40);
    char *a = reap_malloc(r, 40), *b = reap_malloc(r, 40);
    reap_free(r, b);
    assert_ptr_equal(r->bump, b);
    assert_ptr_equal(reap_malloc(r, 40), b);
    reap_free(r, a); /* not the last: marked */
    assert_int_equal(r->free_bytes, 48);
    reap_free(r, b); /* the last: back to the frontier, a stays marked */
    assert_ptr_equal(r->bump, b);
    rp_sweep(r); /* a borders the frontier now */
    assert_ptr_equal(r->bump, a);
    assert_int_equal(r->free_bytes, 0);
    reap_stats_t s;
    reap_get_stats(r, &s);
    assert_int_equal(s.live_bytes, 48);
    assert_int_equal(s.live_objects, 1);
    rp_heap_check(r);
    reap_destroy(r);
}

static void ranged_lists_give_the_best_fit(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    size_t sizes[] = {1500, 1100, 1300, 1200};
    char *p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = reap_malloc(r, sizes[i]);
        assert_non_null(reap_malloc(r, 8)); /* separators */
    }
    for (int i = 0; i < 4; i++)
        reap_free(r, p[i]);
    rp_sweep(r);
    fill_frontier(r);
    assert_ptr_equal(reap_malloc(r, 1250), p[2]); /* 1312 is the tightest fit */
    assert_ptr_equal(reap_malloc(r, 1100), p[1]);
    rp_heap_check(r);
    reap_destroy(r);
}

/* A request with no list of its size takes the next larger block and
 * cuts it; the rest is filed and serves the next ones, as dlmalloc's
 * designated victim. */
static void a_larger_block_is_cut_and_its_rest_serves(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 1000);
    reap_malloc(r, 8);
    reap_free(r, a);
    rp_sweep(r);
    fill_frontier(r);
    char *x = reap_malloc(r, 40), *y = reap_malloc(r, 100), *z = reap_malloc(r, 8);
    assert_ptr_equal(x, a);
    assert_ptr_equal(y, a + 48);
    assert_ptr_equal(z, a + 48 + 112);
    assert_int_equal(r->free_bytes, 1008 - 48 - 112 - 16);
    rp_heap_check(r);
    reap_destroy(r);
}

/* A rest smaller than RP_REST_MIN goes with the block. */
static void a_small_rest_goes_with_the_block(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_int_equal(reap_set_alignment(r, 8), 0);
    char *a = reap_malloc(r, 48);
    reap_malloc(r, 8);
    reap_free(r, a);
    rp_sweep(r);
    fill_frontier(r);
    char *b = reap_malloc(r, 40); /* 48 - 40 = 8: too small to file */
    assert_ptr_equal(b, a);
    assert_int_equal(usable(b), 48);
    assert_int_equal(r->free_bytes, 0);
    rp_heap_check(r);
    reap_destroy(r);
}

/* In an 8-byte-grain reap (an APR pool's), an 8-byte block freed is
 * filed and serves the next 8-byte request once the frontier is full;
 * before, it waited for a sweep to join it to a neighbour. */
static void an_eight_byte_block_is_used_again(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_int_equal(reap_set_alignment(r, 8), 0);
    char *a = reap_malloc(r, 8);
    reap_malloc(r, 24); /* a neighbour that stays */
    reap_free(r, a);
    assert_int_equal(r->free_bytes, 8);
    fill_frontier(r);
    assert_ptr_equal(reap_malloc(r, 8), a);
    assert_int_equal(r->free_bytes, 0);
    rp_heap_check(r);
    reap_destroy(r);
}

/* A block of an exact list (under 1 KiB) can have its bits in three
 * words of the bitmaps: 126 granules from bit 62.  A sweep's run of three
 * freed blocks keeps their freed bits inside it (a later free of one of
 * them is a double free); taking the run must clear every one of them, in
 * all three words, or the live block would hold stray freed bits. */
static void a_block_over_three_bitmap_words_is_taken_whole(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    while (((uintptr_t)r->bump >> 3 & 63) != 62)
        assert_non_null(reap_malloc(r, 16));
    char *a = reap_malloc(r, 336), *b = reap_malloc(r, 336), *c = reap_malloc(r, 336);
    assert_ptr_equal(b, a + 336);
    assert_ptr_equal(c, b + 336);
    reap_malloc(r, 16); /* the run must not border the frontier */
    /* b starts in the next word of a's pair, c in the one after */
    assert_int_equal((uintptr_t)b / 512 - (uintptr_t)a / 512, 1);
    assert_int_equal((uintptr_t)c / 512 - (uintptr_t)a / 512, 2);
    reap_free(r, b);
    reap_free(r, a);
    reap_free(r, c);
    rp_sweep(r); /* one run of 1008 bytes, on exact list 126 */
    fill_frontier(r);
    assert_ptr_equal(reap_malloc(r, 1008), a);
    assert_int_equal(r->free_bytes, 0);
    rp_heap_check(r); /* no freed bit left inside the live block */
    reap_free(r, a); /* live, so a free, not a double free */
    assert_int_equal(r->free_bytes, 1008);
    rp_heap_check(r);
    reap_destroy(r);
}

/* A sweep against a model: blocks of 16 to 208 bytes fill the first
 * chunk (4 KiB: runs cross the 512-byte words of the bitmaps, and start
 * and end at any bit of them), a random subset is freed in random order,
 * and the runs of freed neighbours are worked out from the test's own
 * record of the blocks.  After the sweep, every run that does not reach
 * the frontier is one listed block starting at its first block, the
 * blocks inside it start no more (their freed bits stay: a later free of
 * one is a double free), every live block is as it was, the run that
 * reaches the frontier went back to it, and the freed bytes are the
 * runs'. */
enum { SWEEP_MAX = 256 };

static bool bit_set(uint64_t word, const char *p) { return (word & rp_bit(p)) != 0; }

static reap_misuse_kind_t misuse_seen;
static int note_misuse(const reap_misuse_t *m, void *arg)
{
    (void)arg;
    misuse_seen = m->kind;
    return REAP_MISUSE_LEAK; /* the free does nothing */
}

static bool listed_at(const reap_t *r, const char *b)
{
    for (unsigned i = 0; i < RP_NLISTS; i++)
        if (r->heap->map[i / 64] >> (i % 64) & 1)
            for (char *e = r->heap->list[i]; e; e = *(char **)(void *)e)
                if (e == b)
                    return true;
    return false;
}

static void sweep_one_pattern(unsigned seed, bool guard)
{
    reap_t *r = reap_create(NULL);
    rp_chunk_t *c = r->chunk;
    char *blk[SWEEP_MAX];
    size_t size[SWEEP_MAX], n = 0;
    bool freed[SWEEP_MAX] = {false};
    unsigned x = seed;
    for (;;) { /* the first chunk only, blocks end to end */
        x = x * 1103515245u + 12345u;
        size_t want = 16 * (1 + (x >> 16) % 13);
        if (n == SWEEP_MAX || (size_t)(r->bump_end - r->bump) < want + 16)
            break;
        blk[n] = reap_malloc(r, want);
        size[n] = want;
        assert_ptr_equal(r->chunk, c);
        if (n > 0)
            assert_ptr_equal(blk[n], blk[n - 1] + size[n - 1]);
        n++;
    }
    if (guard) /* a live block last: no run reaches the frontier */
        assert_non_null(reap_malloc(r, 16));
    size_t order[SWEEP_MAX];
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* shuffled */
        x = x * 1103515245u + 12345u;
        size_t j = (x >> 16) % (i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        if ((x >> 16) % 3 != 0) { /* two in three */
            reap_free(r, blk[order[i]]);
            freed[order[i]] = true;
        }
    }
    /* the trailing freed blocks (none behind a guard) reach the frontier */
    size_t tail = n;
    while (!guard && tail > 0 && freed[tail - 1])
        tail--;
    rp_sweep(r);
    uint64_t runs_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const rp_pair_t *w = rp_pair_at(c, blk[i]);
        if (i >= tail) { /* given back to the frontier: no bits */
            assert_false(bit_set(w->start, blk[i]));
            assert_false(bit_set(w->freed, blk[i]));
            continue;
        }
        bool head = freed[i] && (i == 0 || !freed[i - 1]);
        assert_int_equal(bit_set(w->start, blk[i]), !freed[i] || head);
        assert_int_equal(bit_set(w->freed, blk[i]), freed[i]);
        if (head) {
            size_t run = 0;
            for (size_t j = i; j < tail && freed[j]; j++)
                run += size[j];
            assert_true(listed_at(r, blk[i]));
            runs_bytes += run;
        } else if (freed[i]) {
            assert_false(listed_at(r, blk[i]));
        }
    }
    assert_ptr_equal(r->bump, tail < n ? blk[tail] : guard ? blk[n - 1] + size[n - 1] + 16 : r->bump);
    assert_int_equal(r->free_bytes, runs_bytes);
    rp_heap_check(r);
    for (size_t i = 0; i < tail; i++) /* a block inside a run: a double free */
        if (freed[i] && i > 0 && freed[i - 1]) {
            misuse_seen = (reap_misuse_kind_t)-1;
            reap_set_misuse_handler(note_misuse, NULL);
            reap_free(r, blk[i]);
            reap_set_misuse_handler(NULL, NULL);
            assert_int_equal(misuse_seen, REAP_MISUSE_DOUBLE_FREE);
            assert_int_equal(r->free_bytes, runs_bytes);
            break;
        }
    reap_destroy(r);
}

static void a_sweep_joins_every_run_across_bitmap_words(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 200; seed++)
        sweep_one_pattern(seed, seed % 2 == 0);
}

/* The frontier's chunk first, while it has room (the inline bump, which
 * knows nothing of the lists, stays open); then freed blocks of a
 * request's size, before a new chunk. */
static void the_frontier_comes_before_the_lists(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = reap_malloc(r, 64);
        reap_malloc(r, 8);
    }
    for (int i = 0; i < 4; i++)
        reap_free(r, p[i]);
    rp_sweep(r);
    assert_true(rp_heap_listed(r));
    assert_int_equal(r->inline_limit, RP_ANNOTATED() ? 0 : rp_opt.large_threshold);
    char *q = reap_malloc(r, 64);
    assert_true(q != p[0] && q != p[1] && q != p[2] && q != p[3]);
    fill_frontier(r);
    rp_chunk_t *c = r->chunk;
    for (int i = 0; i < 4; i++) {
        q = reap_malloc(r, 64);
        assert_true(q == p[0] || q == p[1] || q == p[2] || q == p[3]);
    }
    assert_ptr_equal(r->chunk, c);
    assert_false(rp_heap_listed(r));
    rp_heap_check(r);
    reap_destroy(r);
}

/* libreap sweeps by itself once the frontier's chunk is full and enough
 * was freed since the last sweep, before it takes a new chunk; and not
 * before. */
/* Neighbours freed one by one are listed apart; a request bigger than any
 * of them, with the chunk full, sweeps them together rather than grow. */
static void a_full_chunk_sweeps_before_growing(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    size_t n = 0;
    char *objs[400];
    rp_chunk_t *first = r->chunk;
    while ((size_t)(r->bump_end - r->bump) >= 48)
        objs[n++] = reap_malloc(r, 48);
    for (size_t i = 0; i + 4 < n; i += 4) { /* pairs of neighbours, not at the frontier */
        reap_free(r, objs[i]);
        reap_free(r, objs[i + 1]);
    }
    char *q = reap_malloc(r, 96); /* no list holds 96: a sweep, no growth */
    assert_ptr_equal(r->chunk, first);
    assert_null(first->older);
    bool reused = false;
    for (size_t i = 0; i + 4 < n; i += 4)
        reused |= q == objs[i];
    assert_true(reused);
    assert_int_equal(reap_usable_size(q), 96);
    rp_heap_check(r);
    reap_destroy(r);
}

/* Once a reap has lists, a block above the exact lists' sizes (1 KiB and
 * more) waits for a sweep until four times its size was freed since the
 * last: blocks freed here and there seldom join into one.  A smaller
 * block sweeps once its own size and an eighth of the footprint
 * (REAP_SWEEP_SHARE) were freed. */
static void a_large_block_waits_for_four_times_its_size_freed(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    enum { MAX = 1000 };
    char *objs[MAX];
    size_t n = 0;
    while (r->footprint < 16384 && n < MAX)
        objs[n++] = reap_malloc(r, 48); /* blocks of 48 bytes */
    assert_true(n < MAX);
    assert_int_equal(r->swept, 0);
    /* Every other block, none at the frontier: no two freed ones touch.
     * free_bytes also counts the few bytes each chunk's frontier left. */
    size_t i = 0, tails = r->free_bytes;
    for (; r->free_bytes < r->footprint / 8 + 48; i += 2) {
        assert_true(i + 1 < n);
        reap_free(r, objs[i]);
    }
    assert_int_equal(r->free_bytes, tails + i / 2 * 48);
    assert_true(r->free_bytes < 4 * 1024);
    assert_true(rp_sweep_due(r, 1008));  /* the largest exact list's size */
    assert_false(rp_sweep_due(r, 1024)); /* the smallest above them */

    /* the request grows the reap, and sweeps nothing */
    fill_frontier(r);
    rp_chunk_t *c = r->chunk;
    char *q = reap_malloc(r, 1024);
    assert_ptr_not_equal(r->chunk, c);
    assert_ptr_equal(q, r->chunk->arena); /* the new chunk's first block */
    assert_int_equal(r->swept, 0);

    /* four times 1,024 freed (and an eighth of the footprint): due */
    size_t want = r->footprint / 8 > 4 * 1024 ? r->footprint / 8 : 4 * 1024;
    for (; r->free_bytes < want; i += 2) {
        assert_true(i + 1 < n);
        reap_free(r, objs[i]);
    }
    assert_true(rp_sweep_due(r, 1024));
    /* the least block, in steps of 16 bytes, that four times freed is more */
    size_t over = (r->free_bytes / 4 / 16 + 1) * 16;
    assert_false(rp_sweep_due(r, over));
    rp_heap_check(r);
    reap_destroy(r);
}

/* A reap that never freed has no lists: the frontier's tails wait for
 * a sweep to file them, and a large block's sweep need not wait. */
static void a_tail_is_swept_for_a_large_block_without_waiting(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    reap_malloc(r, 16);
    rp_chunk_t *c = r->chunk;
    size_t tail = (size_t)(r->bump_end - r->bump);
    reap_malloc(r, tail + 16); /* a new chunk: the old one's rest is a tail */
    assert_ptr_not_equal(r->chunk, c);
    assert_null(r->heap);
    assert_true(r->free_bytes >= tail && r->free_bytes < 4 * 1024);
    assert_true(r->free_bytes >= r->footprint / 8);
    assert_true(rp_sweep_due(r, 1024));
    reap_destroy(r);
}

/* Everything freed is used again, whenever it was allocated and in
 * whatever order it was freed.  A set of objects of many sizes is
 * allocated, freed in each order, and allocated again: the second time
 * takes no more memory than the first (give or take the rounding of one
 * chunk: the sweep gives back chunks that came wholly free, and the new
 * ones are all of the largest size). */
static void everything_freed_is_used_again_in_every_order(void **state)
{
    (void)state;
    enum { N = 600 };
    size_t size[N];
    char *p[N];
    uint32_t order[N];
    uint64_t seed = 7;
    for (size_t i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size[i] = 8 + (size_t)(seed >> 33) % 1500;
    }
    for (int how = 0; how < 5; how++) {
        reap_t *r = reap_create(NULL);
        reap_malloc(r, 8); /* allocated before any free */
        for (size_t i = 0; i < N; i++)
            p[i] = reap_malloc(r, size[i]);
        reap_malloc(r, 8); /* keeps the last away from the frontier */
        for (size_t i = 0; i < N; i++) /* forward, reverse, odd-even, random, interleaved */
            order[i] = how == 1 ? N - 1 - (uint32_t)i : how == 2 ? (uint32_t)((i * 2) % N + (i * 2 >= N)) : (uint32_t)i;
        if (how >= 3)
            for (size_t i = N - 1; i > 0; i--) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                size_t j = (size_t)(seed >> 33) % (i + 1);
                uint32_t t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        for (size_t i = 0; i < N; i++) {
            reap_free(r, p[order[i]]);
            if (how == 4 && i % 3 == 0) /* allocations between the frees */
                p[order[i]] = reap_malloc(r, size[order[i]]), reap_free(r, p[order[i]]);
        }
        rp_heap_check(r);
        uint64_t peak;
        reap_footprint(r, &peak);
        for (size_t i = 0; i < N; i++)
            assert_non_null(p[i] = reap_malloc(r, size[i]));
        uint64_t peak2;
        reap_footprint(r, &peak2);
        assert_true(peak2 <= peak + rp_opt.max_chunk);
        rp_heap_check(r);
        reap_destroy(r);
    }
}

/* A realloc that grows into a listed block cannot unlink it from its list
 * (one link each): the lists are dropped, and the next list miss sweeps
 * and files every freed block afresh.  So the absorbed block, freed again
 * by a shrink, is on its list once.  Before, the lists were only marked
 * stale: the shrink filed it a second time while it was still linked, its
 * link pointed back into its own list, and a search of a ranged list
 * walked that loop for ever (fuzz/crashes/fuzz_apr-list-loop.*). */
static void a_realloc_over_a_listed_block_drops_the_lists(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *p[6];
    for (int i = 0; i < 6; i++)
        p[i] = reap_malloc(r, 64);
    reap_malloc(r, 8);
    for (int i = 1; i < 6; i += 2) /* p1, p3, p5 freed: one list of 64 */
        reap_free(r, p[i]);
    rp_sweep(r);
    assert_true(rp_heap_listed(r));
    assert_ptr_equal(reap_realloc(r, p[2], 128), p[2]); /* swallows p3 */
    assert_false(rp_heap_listed(r));
    assert_int_equal(r->free_bytes, 128); /* p1 and p5, found again by a sweep */
    memset(p[2], 0x55, 128); /* p3's old link is gone */
    assert_ptr_equal(reap_realloc(r, p[2], 64), p[2]); /* p3 freed again */
    unsigned i = 64 / RP_GRANULE;
    assert_ptr_equal(r->heap->list[i], p[3]); /* on its list once, alone */
    assert_null(*(void **)(void *)p[3]);
    fill_frontier(r);
    char *got[3];
    for (int k = 0; k < 3; k++)
        got[k] = reap_malloc(r, 64);
    assert_ptr_equal(got[0], p[3]); /* the list, then a sweep: p1 and p5 */
    assert_true((got[1] == p[1] && got[2] == p[5]) || (got[1] == p[5] && got[2] == p[1]));
    assert_int_equal(r->free_bytes, 0);
    rp_heap_check(r);
    reap_destroy(r);
}

/* CORRUPTION always aborts: the handler leaves by longjmp instead. */
static jmp_buf escape;
static int corruption_seen;
static int leave(const reap_misuse_t *m, void *arg)
{
    (void)arg;
    corruption_seen = m->kind == REAP_MISUSE_CORRUPTION;
    longjmp(escape, 1);
}

/* A program that writes to a freed object waiting on a list overwrites
 * its link: the next pop finds a pointer that is no freed block of this
 * reap and says so, rather than handing it out.  forged is what the link
 * is overwritten with; extra, a reap to destroy after. */
static void forged_link_is_caught(reap_t *r, char *forged, reap_t *extra)
{
    char *a = reap_malloc(r, 64);
    reap_malloc(r, 8); /* a and b must not join */
    char *b = reap_malloc(r, 64);
    reap_malloc(r, 8);
    reap_free(r, a);
    reap_free(r, b);
    rp_sweep(r);
    /* the list is b -> a (filed in address order, pushed), or a -> b */
    char *head = r->heap->list[64 / RP_GRANULE];
    memcpy(head, &forged, sizeof forged);
    fill_frontier(r);
    reap_set_misuse_handler(leave, NULL);
    corruption_seen = 0;
    if (setjmp(escape) == 0) {
        reap_malloc(r, 64); /* pops head */
        reap_malloc(r, 64); /* pops the forged link */
        fail_msg("a forged link was handed out");
    }
    reap_set_misuse_handler(NULL, NULL);
    assert_int_equal(corruption_seen, 1);
    reap_destroy(r);
    if (extra)
        reap_destroy(extra);
}

/* Memory no chunk holds (no chunk found). */
static void a_link_to_no_chunk_is_caught(void **state)
{
    (void)state;
    forged_link_is_caught(reap_create(NULL), (char *)&corruption_seen, NULL);
}

/* A live block of the same reap and size (its bits say live). */
static void a_link_to_a_live_block_is_caught(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *live = reap_malloc(r, 64);
    reap_malloc(r, 8);
    forged_link_is_caught(r, live, NULL);
}

/* A freed block of the same size in another reap (its chunk's owner). */
static void a_link_to_another_reaps_block_is_caught(void **state)
{
    (void)state;
    reap_t *other = reap_create(NULL);
    char *q = reap_malloc(other, 64);
    reap_malloc(other, 8);
    reap_free(other, q);
    forged_link_is_caught(reap_create(NULL), q, other);
}

int main(void)
{
    setenv("REAP_FIRST_CHUNK", "4096", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_reap_that_never_frees_never_makes_lists),
        cmocka_unit_test(a_free_files_the_block_for_reuse),
        cmocka_unit_test(a_sweep_joins_neighbours),
        cmocka_unit_test(the_frontier_takes_back_what_borders_it),
        cmocka_unit_test(ranged_lists_give_the_best_fit),
        cmocka_unit_test(a_larger_block_is_cut_and_its_rest_serves),
        cmocka_unit_test(a_small_rest_goes_with_the_block),
        cmocka_unit_test(an_eight_byte_block_is_used_again),
        cmocka_unit_test(a_block_over_three_bitmap_words_is_taken_whole),
        cmocka_unit_test(a_sweep_joins_every_run_across_bitmap_words),
        cmocka_unit_test(the_frontier_comes_before_the_lists),
        cmocka_unit_test(a_full_chunk_sweeps_before_growing),
        cmocka_unit_test(a_large_block_waits_for_four_times_its_size_freed),
        cmocka_unit_test(a_tail_is_swept_for_a_large_block_without_waiting),
        cmocka_unit_test(everything_freed_is_used_again_in_every_order),
        cmocka_unit_test(a_realloc_over_a_listed_block_drops_the_lists),
        cmocka_unit_test(a_link_to_no_chunk_is_caught),
        cmocka_unit_test(a_link_to_a_live_block_is_caught),
        cmocka_unit_test(a_link_to_another_reaps_block_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
