/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_leaheap.c - the reap's heap: bins, best fit, splitting, coalescing,
 * the return of blocks to the frontier, and the quick lists in front of
 * the bins.  Sees internals: the bin tests set rp_opt.quick_limit to 0 so
 * every free coalesces at once; the quick-list tests use the default.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "internal.h"

static int immediate(void **state)
{
    (void)state;
    rp_opt.quick_limit = 0;
    return 0;
}

static int with_quick_lists(void **state)
{
    (void)state;
    rp_opt.quick_limit = RP_SMALL_LIMIT;
    return 0;
}

static size_t block_of(const void *p) { return rp_bsize(rp_mem2b(p)); }

/* Block sizes below are written out from the documented rule (internal.h:
 * a request of n bytes takes round16(n + 8), 8 bytes of header, at the
 * default grain), not read back from the blocks, so a wrong size fails
 * the test. */

/* A free away from the frontier makes the bins (carved at the frontier). */
static void make_bins(reap_t *r)
{
    void *x = reap_malloc(r, 24); /* a block of 32: the least that is binned */
    reap_malloc(r, 24);
    reap_free(r, x);
    assert_non_null(r->heap);
}

static void bins_are_exact_then_four_per_power_of_two(void **state)
{
    (void)state;
    for (size_t s = RP_MIN_BLOCK; s < RP_SMALL_LIMIT; s += RP_GRAIN)
        assert_int_equal(rp_bin_index(s), s / RP_GRAIN);
    assert_int_equal(rp_bin_index(1024), RP_NSMALL);
    assert_int_equal(rp_bin_index(1279), RP_NSMALL);
    assert_int_equal(rp_bin_index(1280), RP_NSMALL + 1);
    assert_int_equal(rp_bin_index(2048), RP_NSMALL + 4);
    unsigned last = 0;
    for (size_t s = 1024; s < ((size_t)1 << 30); s += s / 7 + 16) {
        unsigned i = rp_bin_index(s);
        assert_true(i >= last && i < RP_NBINS);
        last = i;
    }
    assert_int_equal(rp_bin_index((size_t)1 << 40), RP_NBINS - 1);
}

static void region_mode_never_makes_bins(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    for (int i = 0; i < 10000; i++)
        assert_non_null(reap_malloc(r, (size_t)(i % 200)));
    assert_null(r->heap);
    assert_true(r->heap_empty);
    reap_destroy(r);
}

static void three_adjacent_frees_serve_one_large_request(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 100), *b = reap_malloc(r, 200), *c = reap_malloc(r, 300);
    char *guard = reap_malloc(r, 16); /* keeps c away from the frontier */
    const size_t total = 112 + 208 + 320; /* blocks of 100, 200, 300 bytes */
    assert_int_equal(block_of(a) + block_of(b) + block_of(c), total);
    reap_free(r, a);
    reap_free(r, c);
    reap_free(r, b); /* joins both neighbours */
    assert_int_equal(r->heap_free_bytes, total);
    rp_heap_check(r);
    char *big = reap_malloc(r, total - 8); /* the 8-byte header */
    assert_ptr_equal(big, a);
    assert_int_equal(r->heap_free_bytes, 0);
    assert_true(r->heap_empty);
    (void)guard;
    reap_destroy(r);
}

static void free_next_to_frontier_goes_back(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    /* the first free that needs the bins carves them at the frontier */
    char *early = reap_malloc(r, 40);
    reap_malloc(r, 8);
    reap_free(r, early);
    assert_non_null(r->heap);
    reap_malloc(r, 40); /* takes early's block back */
    reap_malloc(r, 40); /* in use: b's predecessor stays in use */
    char *b = reap_malloc(r, 40);
    char *frontier = r->bump;
    reap_free(r, b);
    assert_ptr_equal(r->bump, (char *)rp_mem2b(b));
    assert_true(frontier > r->bump);
    assert_ptr_equal(reap_malloc(r, 40), b);
    /* a free predecessor goes back to the frontier with it */
    char *c = reap_malloc(r, 40);
    reap_free(r, b);
    assert_int_equal(r->heap_free_bytes, 48); /* b's block: round16(40 + 8) */
    reap_free(r, c);
    assert_ptr_equal(r->bump, (char *)rp_mem2b(b));
    assert_int_equal(r->heap_free_bytes, 0);
    rp_heap_check(r);
    reap_destroy(r);
}

static void ranged_bins_give_the_best_fit(void **state)
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
    assert_ptr_equal(reap_malloc(r, 1250), p[2]); /* 1300 is the tightest fit */
    assert_ptr_equal(reap_malloc(r, 1100), p[1]);
    rp_heap_check(r);
    reap_destroy(r);
}

/* A ranged bin is read only a few blocks deep while a larger block can
 * serve, but before the reap takes new memory it is read whole: a fitting
 * block at the bottom of a long bin is found. */
static void a_long_bin_is_read_whole_before_new_memory(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    enum { SMALLER = 40 }; /* more than any bounded scan of a bin */
    char *fits = reap_malloc(r, 1256), *small[SMALLER]; /* a block of 1264 */
    assert_non_null(reap_malloc(r, 8));
    for (int i = 0; i < SMALLER; i++) {
        small[i] = reap_malloc(r, 1100); /* 1120: the same bin, [1024, 1280) */
        assert_non_null(reap_malloc(r, 8));
    }
    reap_free(r, fits); /* first, so the 40 smaller ones end up above it */
    for (int i = 0; i < SMALLER; i++)
        reap_free(r, small[i]);
    reap_stats_t before, after;
    reap_get_stats(r, &before);
    assert_ptr_equal(reap_malloc(r, 1250), fits);
    reap_get_stats(r, &after);
    assert_int_equal(after.footprint, before.footprint);
    rp_heap_check(r);
    reap_destroy(r);
}

static void larger_blocks_split_and_keep_the_rest(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *big = reap_malloc(r, 600);
    assert_non_null(reap_malloc(r, 8));
    assert_int_equal(block_of(big), 608); /* 600 + 8, a multiple of 16 */
    reap_free(r, big);
    char *small = reap_malloc(r, 100);
    assert_ptr_equal(small, big);
    assert_int_equal(block_of(small), 112); /* round16(100 + 8) */
    assert_int_equal(r->heap_free_bytes, 608 - 112);
    rp_heap_check(r);
    reap_destroy(r);
}

static void exact_bins_are_lifo(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 64), *s1 = reap_malloc(r, 8);
    char *b = reap_malloc(r, 64), *s2 = reap_malloc(r, 8);
    (void)s1, (void)s2;
    reap_free(r, a);
    reap_free(r, b);
    assert_ptr_equal(reap_malloc(r, 64), b);
    assert_ptr_equal(reap_malloc(r, 64), a);
    assert_true(r->heap_empty);
    reap_destroy(r);
}

static void quick_blocks_are_reused_first_and_lifo(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 100), *b = reap_malloc(r, 100), *c = reap_malloc(r, 100);
    reap_malloc(r, 8);
    reap_free(r, a); /* the first free makes the bins, so a is binned */
    reap_free(r, c);
    reap_free(r, b); /* b and c wait, not coalesced with a */
    assert_true(rp_mem2b(b)->head & RP_QUICK);
    assert_int_equal(r->quick_bytes, 2 * 112); /* blocks of round16(100 + 8) */
    assert_int_equal(r->heap_free_bytes, 112);
    rp_heap_check(r);
    assert_ptr_equal(reap_malloc(r, 100), b);
    assert_ptr_equal(reap_malloc(r, 100), c);
    assert_int_equal(r->quick_bytes, 0);
    reap_destroy(r);
}

static void a_request_the_frontier_cannot_take_coalesces_quick_blocks(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    make_bins(r);
    char *a = reap_malloc(r, 300), *b = reap_malloc(r, 400), *c = reap_malloc(r, 500);
    reap_malloc(r, 64); /* a guard no bin can serve, so c is off the frontier */
    const size_t total = 320 + 416 + 512; /* blocks of 300, 400, 500 bytes */
    reap_free(r, a);
    reap_free(r, c);
    reap_free(r, b);
    assert_int_equal(r->quick_bytes, total);
    while ((size_t)(r->bump_end - r->bump) >= total)
        reap_malloc(r, 64);
    char *big = reap_malloc(r, total - 8); /* no room left: coalesce first */
    assert_ptr_equal(big, a);
    assert_int_equal(r->quick_bytes, 0);
    rp_heap_check(r);
    reap_destroy(r);
}

static void quick_blocks_coalesce_before_a_new_chunk(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    make_bins(r);
    char *objs[100];
    int n = 0;
    while (r->bump_end - r->bump > 400)
        objs[n++] = reap_malloc(r, 100);
    reap_malloc(r, 200); /* leaves the frontier too little for 500 bytes */
    for (int i = 0; i < n; i += 2)
        reap_free(r, objs[i]);
    for (int i = 1; i < n; i += 2)
        reap_free(r, objs[i]);
    rp_chunk_t *first = r->chunk;
    /* a size no quick list holds and the frontier cannot take: the quick
     * blocks are coalesced and serve it, so the reap does not grow */
    char *p = reap_malloc(r, 500);
    assert_ptr_equal(r->chunk, first);
    assert_ptr_equal(p, objs[0]);
    assert_int_equal(r->quick_bytes, 0);
    rp_heap_check(r);
    reap_destroy(r);
}

/* Blocks of 16 and 24 bytes have no room for a free block's links: freed
 * between blocks in use, one waits on its quick list, still marked in use,
 * even with quick lists off and when it is the reap's first free (which
 * makes the bins), and a coalescing pass leaves it there. */
static void a_small_block_with_no_free_neighbour_waits_on_its_quick_list(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 8), *b = reap_malloc(r, 8), *c = reap_malloc(r, 8);
    reap_malloc(r, 8); /* c is off the frontier */
    assert_int_equal(b - a, 16);
    reap_free(r, b);
    assert_non_null(r->heap);
    assert_true(rp_mem2b(b)->head & RP_QUICK);
    assert_true(rp_mem2b(b)->head & RP_CINUSE);
    assert_int_equal(r->quick_bytes, 16);
    assert_int_equal(r->heap_free_bytes, 0);
    rp_heap_check(r);
    rp_heap_consolidate(r); /* nothing to join: it stays where it was */
    assert_int_equal(r->quick_bytes, 16);
    assert_true(rp_mem2b(b)->head & RP_QUICK);
    rp_heap_check(r);
    assert_ptr_equal(reap_malloc(r, 3), b);
    assert_int_equal(r->quick_bytes, 0);
    reap_free(r, c);
    reap_free(r, a);
    rp_heap_check(r);
    reap_destroy(r);
}

/* A small block joins a free neighbour when the quick lists are
 * coalesced (at once when quick lists are off), and the two make one
 * free block. */
static void a_small_block_joins_a_free_neighbour(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *x = reap_malloc(r, 100), *s = reap_malloc(r, 1), *y = reap_malloc(r, 100);
    reap_malloc(r, 8);
    reap_free(r, x); /* the first free: binned */
    reap_free(r, s);
    if (rp_opt.quick_limit) { /* it waits until the lists are coalesced */
        assert_int_equal(r->quick_bytes, 16);
        assert_int_equal(r->heap_free_bytes, 112);
        rp_heap_consolidate(r);
    }
    assert_int_equal(r->quick_bytes, 0);
    assert_int_equal(r->heap_free_bytes, 112 + 16);
    rp_heap_check(r);
    reap_free(r, y);
    rp_heap_consolidate(r);
    assert_int_equal(r->heap_free_bytes, 112 + 16 + 112);
    assert_ptr_equal(reap_malloc(r, 100 + 16 + 112 - 8), x); /* one block again */
    rp_heap_check(r);
    reap_destroy(r);
}

/* At the 8-byte grain a quick list holds two sizes (16i and 16i + 8): a
 * request takes the block on top only when it fits. */
static void a_quick_list_of_two_sizes_gives_only_what_fits(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_int_equal(reap_set_alignment(r, 8), 0);
    char *a = reap_malloc(r, 8); /* 16 */
    reap_malloc(r, 100);
    char *b = reap_malloc(r, 16); /* 24 */
    reap_malloc(r, 100);
    reap_free(r, b);
    reap_free(r, a); /* on top of b, on the same list */
    assert_int_equal(r->quick_bytes, 16 + 24);
    char *n = reap_malloc(r, 16); /* 24 bytes: not a */
    assert_ptr_not_equal(n, a);
    assert_ptr_not_equal(n, b);
    assert_ptr_equal(reap_malloc(r, 8), a);
    assert_ptr_equal(reap_malloc(r, 16), b);
    assert_int_equal(r->quick_bytes, 0);
    rp_heap_check(r);
    reap_destroy(r);
}

/* A small request whose quick list is empty takes a free block only when
 * one fits; with nothing but smaller free blocks it comes from the
 * frontier, and they stay for the requests they fit. */
static void small_requests_take_a_fitting_block_or_bump(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 40), *guard = reap_malloc(r, 8);
    reap_free(r, a); /* the first free: binned at once (immediate) */
    assert_int_equal(r->heap_free_bytes, 48); /* round16(40 + 8) */
    char *front = r->bump;
    char *p = reap_malloc(r, 100); /* 112 bytes: a is too small */
    assert_ptr_equal(rp_mem2b(p), (rp_block_t *)front);
    assert_int_equal(r->heap_free_bytes, 48);
    assert_ptr_equal(reap_malloc(r, 40), a); /* a is still there for a fit */
    char *big = reap_malloc(r, 500), *guard2 = reap_malloc(r, 8);
    reap_free(r, big); /* 512 bytes, binned */
    char *q = reap_malloc(r, 100); /* a larger block fits: split, not bumped */
    assert_ptr_equal(q, big);
    assert_int_equal(r->heap_free_bytes, 512 - 112);
    rp_heap_check(r);
    (void)guard, (void)guard2;
    reap_destroy(r);
}

/* Reusing the last waiting quick block leaves the reap in heap mode until
 * its next allocation, which finds nothing waiting and makes it a region
 * again: the inline bump (reap_malloc_bump) works once more. */
static void a_reap_whose_frees_are_all_reused_bumps_again(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    make_bins(r);
    assert_ptr_not_equal(reap_malloc(r, 8), NULL); /* reuses make_bins's block */
    char *a = reap_malloc(r, 64), *guard = reap_malloc(r, 8);
    reap_free(r, a);
    assert_false(r->heap_empty);
    assert_null(reap_malloc_bump(r, 64)); /* something waits: not a region */
    assert_ptr_equal(reap_malloc(r, 64), a);
    assert_int_equal(r->quick_bytes + r->heap_free_bytes, 0);
    char *next = reap_malloc(r, 16);
    assert_non_null(next);
    assert_true(r->heap_empty);
    if (!RP_ANNOTATED()) { /* annotating, every allocation goes through libreap */
        char *front = r->bump;
        char *p = reap_malloc_bump(r, 16);
        assert_ptr_equal(rp_mem2b(p), (rp_block_t *)front);
    }
    rp_heap_check(r);
    (void)guard;
    reap_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bins_are_exact_then_four_per_power_of_two),
        cmocka_unit_test_setup(region_mode_never_makes_bins, immediate),
        cmocka_unit_test_setup(three_adjacent_frees_serve_one_large_request, immediate),
        cmocka_unit_test_setup(free_next_to_frontier_goes_back, immediate),
        cmocka_unit_test_setup(ranged_bins_give_the_best_fit, immediate),
        cmocka_unit_test_setup(a_long_bin_is_read_whole_before_new_memory, immediate),
        cmocka_unit_test_setup(larger_blocks_split_and_keep_the_rest, immediate),
        cmocka_unit_test_setup(exact_bins_are_lifo, immediate),
        cmocka_unit_test_setup(quick_blocks_are_reused_first_and_lifo, with_quick_lists),
        cmocka_unit_test_setup(a_request_the_frontier_cannot_take_coalesces_quick_blocks, with_quick_lists),
        cmocka_unit_test_setup(quick_blocks_coalesce_before_a_new_chunk, with_quick_lists),
        cmocka_unit_test_setup(a_small_block_with_no_free_neighbour_waits_on_its_quick_list, immediate),
        cmocka_unit_test_setup(a_small_block_with_no_free_neighbour_waits_on_its_quick_list, with_quick_lists),
        cmocka_unit_test_setup(a_small_block_joins_a_free_neighbour, immediate),
        cmocka_unit_test_setup(a_small_block_joins_a_free_neighbour, with_quick_lists),
        cmocka_unit_test_setup(a_quick_list_of_two_sizes_gives_only_what_fits, with_quick_lists),
        cmocka_unit_test_setup(small_requests_take_a_fitting_block_or_bump, immediate),
        cmocka_unit_test_setup(a_reap_whose_frees_are_all_reused_bumps_again, with_quick_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
