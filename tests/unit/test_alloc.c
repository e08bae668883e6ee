/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_alloc.c - the object API: block sizes and alignment, calloc
 * overflow, realloc in place and by moving, aligned allocation, usable
 * size of every kind of object, impossible sizes, and reap.h's inline
 * allocation.  Sees internals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* The block a request of n bytes takes, as reap.h and internal.h document
 * it (no header: the request rounded up to the grain, at least one
 * grain): written here, not asked of libreap, so a change to the rule
 * fails these tests. */
/* Bumps blocks of one grain until the frontier's chunk is full: the next
 * requests come from the lists (the frontier comes first, leaheap.c). */
static void fill_frontier(reap_t *r)
{
    while ((size_t)(r->bump_end - r->bump) >= r->grain_mask + 1)
        assert_non_null(reap_malloc(r, r->grain_mask + 1));
}

static size_t documented_block(size_t n, size_t grain)
{
    size_t s = (n + grain - 1) / grain * grain;
    return s ? s : grain;
}

/* reap_block_size() (reap.h, inlined into callers) and the frontier's
 * rounding follow the rule at either grain. */
static void block_size_follows_the_documented_rule(void **state)
{
    (void)state;
    /* request, block at 16, block at 8 */
    static const size_t want[][3] = {
        {1, 16, 8}, {8, 16, 8}, {9, 16, 16}, {16, 16, 16}, {17, 32, 24}, {24, 32, 24},
        {25, 32, 32}, {40, 48, 40}, {50, 64, 56}, {100, 112, 104}, {1000, 1008, 1000},
        {4089, 4096, 4096},
    };
    reap_t *r16 = reap_create(NULL), *r8 = reap_create(NULL);
    assert_int_equal(reap_set_alignment(r8, 8), 0);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(want[i][1], documented_block(want[i][0], 16));
        assert_int_equal(want[i][2], documented_block(want[i][0], 8));
        assert_int_equal(reap_block_size(want[i][0]), want[i][1]);
        assert_int_equal(rp_block_size(r16, want[i][0]), want[i][1]);
        assert_int_equal(rp_block_size(r8, want[i][0]), want[i][2]);
    }
    assert_int_equal(rp_block_size(r16, 0), 16); /* size 0: a grain */
    assert_int_equal(rp_block_size(r8, 0), 8);
    reap_destroy(r16);
    reap_destroy(r8);
}

static void every_pointer_is_16_aligned_with_room(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    for (size_t n = 0; n < 5000; n += 7) {
        char *p = reap_malloc(r, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        assert_int_equal(reap_usable_size(p), documented_block(n, 16));
        memset(p, 0x5a, reap_usable_size(p));
    }
    rp_heap_check(r);
    reap_destroy(r);
}

/* Objects lie side by side: a block is its request rounded up, nothing
 * more. */
static void objects_have_no_header(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 24), *b = reap_malloc(r, 24);
    assert_int_equal(b - a, 32);
    char *c = reap_malloc(r, 40), *d = reap_malloc(r, 1), *e = reap_malloc(r, 1);
    assert_int_equal(d - c, 48);
    assert_int_equal(e - d, 16);
    assert_int_equal(reap_usable_size(d), 16);
    reap_destroy(r);
}

static void alignment_8_rounds_blocks_to_8(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_int_equal(reap_set_alignment(r, 8), 0);
    static const size_t req[] = {33, 15, 80, 1, 50, 24, 0, 9, 100, 3000};
    char *prev = NULL;
    size_t odd = 0;
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        char *p = reap_malloc(r, req[i]);
        assert_int_equal((uintptr_t)p % 8, 0);
        odd += (uintptr_t)p % 16 != 0;
        if (prev && p > prev && (size_t)(p - prev) < 4096) /* same chunk */
            assert_int_equal(p - prev, documented_block(req[i - 1], 8));
        assert_int_equal(reap_usable_size(p), documented_block(req[i], 8));
        memset(p, 0x6b, req[i]);
        prev = p;
    }
    assert_true(odd > 0); /* aligned to 8, not always to 16 */
    char *q = reap_aligned_alloc(r, 16, 40);
    assert_non_null(q);
    assert_int_equal((uintptr_t)q % 16, 0);
    rp_heap_check(r);
    reap_destroy(r);
}

/* Only a reap that has handed out nothing may change its alignment, and
 * only to 8 or 16. */
static void alignment_is_set_before_the_first_object(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_int_equal(reap_set_alignment(r, 4), EINVAL);
    assert_int_equal(reap_set_alignment(r, 32), EINVAL);
    assert_int_equal(reap_set_alignment(r, 8), 0);
    assert_non_null(reap_malloc(r, 10));
    assert_int_equal(reap_set_alignment(r, 16), EINVAL);
    reap_clear(r);
    assert_int_equal(reap_set_alignment(r, 16), 0);
    assert_int_equal((uintptr_t)reap_malloc(r, 1) % 16, 0);
    assert_int_equal((uintptr_t)reap_malloc(r, 1) % 16, 0);
    reap_destroy(r);
}

static void malloc_zero_gives_distinct_objects(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    void *a = reap_malloc(r, 0), *b = reap_malloc(r, 0);
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    reap_free(r, a);
    reap_free(r, b);
    reap_destroy(r);
}

static void impossible_sizes_return_null(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_null(reap_malloc(r, SIZE_MAX));
    assert_null(reap_malloc(r, SIZE_MAX - 20));
    assert_null(reap_malloc(r, (size_t)1 << 60));
    assert_null(reap_calloc(r, SIZE_MAX / 2, 3));
    assert_null(reap_calloc(r, (size_t)1 << 33, (size_t)1 << 33));
    assert_null(reap_aligned_alloc(r, 64, SIZE_MAX - 10));
    assert_non_null(reap_malloc(r, 10)); /* and the reap goes on */
    reap_destroy(r);
}

/* A freed block serves calloc zeroed. */
static void calloc_zeroes_reused_memory(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *p = reap_malloc(r, 500);
    memset(p, 0xff, 500);
    reap_malloc(r, 8);
    reap_free(r, p);
    fill_frontier(r);
    unsigned char *q = reap_calloc(r, 50, 10);
    assert_ptr_equal(q, p);
    for (int i = 0; i < 500; i++)
        assert_int_equal(q[i], 0);
    reap_destroy(r);
}

static void realloc_grows_in_place_at_the_frontier(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *p = reap_malloc(r, 100);
    memset(p, 7, 100);
    char *q = reap_realloc(r, p, 1000);
    assert_ptr_equal(q, p);
    assert_int_equal(reap_usable_size(q), 1008);
    assert_int_equal(q[99], 7);
    assert_ptr_equal(r->bump, q + 1008);
    q = reap_realloc(r, q, 50); /* shrinking gives the rest back */
    assert_ptr_equal(q, p);
    assert_ptr_equal(r->bump, q + 64);
    reap_stats_t s;
    reap_get_stats(r, &s);
    assert_int_equal(s.live_bytes, 64);
    assert_int_equal(s.live_objects, 1);
    reap_destroy(r);
}

static void realloc_grows_in_place_into_a_free_neighbour(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *p = reap_malloc(r, 100), *n = reap_malloc(r, 400);
    reap_malloc(r, 8);
    memset(p, 3, 100);
    reap_free(r, n);
    char *q = reap_realloc(r, p, 300);
    assert_ptr_equal(q, p);
    assert_int_equal(q[0], 3);
    assert_int_equal(q[99], 3);
    assert_int_equal(reap_usable_size(q), 304);
    rp_heap_check(r);
    /* blocks of 112 (100 bytes) and 400 joined, 304 (300) taken */
    assert_int_equal(r->free_bytes, 112 + 400 - 304);
    /* the rest is a freed block of its own: a free of it is a double free
     * no more than of anything else, and it serves a request */
    fill_frontier(r);
    assert_ptr_equal(reap_malloc(r, 200), q + 304);
    rp_heap_check(r);
    reap_destroy(r);
}

/* A shrunk object's tail is a freed block, used again. */
static void realloc_shrinks_in_place(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *p = reap_malloc(r, 600);
    reap_malloc(r, 8);
    memset(p, 9, 600);
    assert_ptr_equal(reap_realloc(r, p, 100), p);
    assert_int_equal(reap_usable_size(p), 112);
    assert_int_equal(r->free_bytes, 608 - 112);
    fill_frontier(r);
    assert_ptr_equal(reap_malloc(r, 400), p + 112);
    assert_int_equal(p[99], 9);
    rp_heap_check(r);
    reap_destroy(r);
}

static void realloc_moves_and_keeps_contents(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *p = reap_malloc(r, 100);
    reap_malloc(r, 8); /* pins p in place */
    for (int i = 0; i < 100; i++)
        p[i] = (char)i;
    char *q = reap_realloc(r, p, 1000);
    assert_ptr_not_equal(q, p);
    for (int i = 0; i < 100; i++)
        assert_int_equal(q[i], (char)i);
    char *big = reap_realloc(r, q, 300000); /* to a solo chunk */
    for (int i = 0; i < 100; i++)
        assert_int_equal(big[i], (char)i);
    char *back = reap_realloc(r, big, 10); /* and back */
    for (int i = 0; i < 10; i++)
        assert_int_equal(back[i], (char)i);
    assert_null(reap_realloc(r, back, 0));
    char *fresh = reap_realloc(r, NULL, 20);
    assert_non_null(fresh);
    reap_stats_t s;
    reap_get_stats(r, &s);
    assert_int_equal(s.live_objects, 2); /* the pin and fresh */
    rp_heap_check(r);
    reap_destroy(r);
}

static void realloc_failure_leaves_the_object(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    reap_set_limit(r, 32 << 10);
    char *p = reap_malloc(r, 100);
    strcpy(p, "still here");
    assert_null(reap_realloc(r, p, 1 << 20));
    assert_string_equal(p, "still here");
    reap_free(r, p);
    reap_destroy(r);
}

static void aligned_allocation(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    for (size_t a = 1; a <= (1u << 16); a *= 2) {
        for (size_t n = 1; n < 100000; n = n * 5 + 3) {
            char *p = reap_aligned_alloc(r, a, n);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % (a < 16 ? 16 : a), 0);
            assert_true(reap_usable_size(p) >= n);
            memset(p, 1, n);
            if (n % 2)
                reap_free(r, p);
        }
    }
    rp_heap_check(r);
    assert_null(reap_aligned_alloc(r, 48, 10));
    assert_null(reap_aligned_alloc(r, 0, 10));
    reap_destroy(r);
}

/* reap_usable_size() on every kind of object: bumped (the last before the
 * frontier too), taken from a list, cut from a larger freed block, solo,
 * aligned; and 0 for what is not a live object. */
static void usable_size_of_every_object(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 40), *b = reap_malloc(r, 300), *c = reap_malloc(r, 1);
    assert_int_equal(reap_usable_size(a), 48);
    assert_int_equal(reap_usable_size(b), 304);
    assert_int_equal(reap_usable_size(c), 16); /* the last before the frontier */
    reap_free(r, b);
    assert_int_equal(reap_usable_size(b), 0); /* freed */
    assert_int_equal(reap_usable_size(a + 16), 0); /* interior */
    fill_frontier(r);
    char *d = reap_malloc(r, 100); /* cut from b's block */
    assert_ptr_equal(d, b);
    assert_int_equal(reap_usable_size(d), 112);
    char *e = reap_malloc(r, 180); /* the rest of it, 192 bytes, whole */
    assert_ptr_equal(e, b + 112);
    assert_int_equal(reap_usable_size(e), 192);
    char *solo = reap_malloc(r, rp_opt.large_threshold + 1);
    assert_true(reap_usable_size(solo) >= rp_opt.large_threshold + 1);
    char *al = reap_aligned_alloc(r, 256, 40);
    assert_int_equal(reap_usable_size(al), 48);
    int local;
    assert_int_equal(reap_usable_size(&local), 0);
    assert_int_equal(reap_usable_size(NULL), 0);
    rp_heap_check(r);
    reap_destroy(r);
}

/* reap_malloc_inline() and reap_malloc_bump() (reap.h) must be
 * reap_malloc() in every respect: two reaps fed the same requests, one
 * through reap_malloc() and the other through the inline paths (the bump
 * alone falling back to reap_malloc() when it returns NULL), end up with
 * the same objects (sizes, usable sizes, statistics), and objects the
 * inline path handed out are freed, reused and checked like any other.
 * Where the library does not annotate, a request is bumped right at the
 * frontier while its chunk has room, whatever the lists hold. */
static void malloc_inline_is_malloc(void **state)
{
    (void)state;
    reap_t *a = reap_create(NULL), *b = reap_create(NULL);
    reap_frontier_t *fb = (reap_frontier_t *)(void *)b;
    size_t big = rp_opt.large_threshold + 1;
    size_t sizes[] = {0, 1, 24, 25, 100, 1000, 5000, 20000, big, 3, 12000, 8};
    void *pa[400], *pb[400];
    reap_stats_t sa, sb;
    size_t n = 0;

    assert_int_equal(fb->inline_limit, RP_ANNOTATED() ? 0 : rp_opt.large_threshold);
    for (int round = 0; round < 30; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++, n++) {
            char *before = fb->bump;
            size_t room = (size_t)(fb->bump_end - before);
            int bumps = !RP_ANNOTATED() && sizes[i] > 0 &&
                        sizes[i] <= rp_opt.large_threshold && documented_block(sizes[i], 16) <= room;
            pa[n] = reap_malloc(a, sizes[i]);
            if (n % 2) {
                pb[n] = reap_malloc_inline(b, sizes[i]);
            }
            else { /* reap_malloc_bump() alone: NULL, untouched, or bumped */
                pb[n] = reap_malloc_bump(b, sizes[i]);
                if (!bumps) {
                    assert_null(pb[n]);
                    assert_ptr_equal(fb->bump, before);
                    pb[n] = reap_malloc(b, sizes[i]);
                }
            }
            assert_non_null(pa[n]);
            assert_non_null(pb[n]);
            assert_int_equal(reap_usable_size(pa[n]), reap_usable_size(pb[n]));
            if (bumps) {
                assert_ptr_equal(pb[n], before);
                assert_ptr_equal(fb->bump, before + documented_block(sizes[i], 16));
            }
            memset(pb[n], 0x33, sizes[i]);
        }
        if (round % 3 == 1) { /* listed, they wait for the frontier's chunk to fill */
            for (size_t k = n - 12; k < n; k += 2) {
                reap_free(a, pa[k]);
                reap_free(b, pb[k]);
                pa[k] = pb[k] = NULL;
            }
            rp_sweep(a);
            rp_sweep(b);
        }
        reap_get_stats(a, &sa);
        reap_get_stats(b, &sb);
        assert_int_equal(sa.live_bytes, sb.live_bytes);
        assert_int_equal(sa.live_objects, sb.live_objects);
        assert_int_equal(sa.allocs, sb.allocs);
        assert_int_equal(sa.footprint, sb.footprint);
    }
    rp_heap_check(b);
    for (size_t k = 0; k < n; k++)
        reap_free(b, pb[k]);
    rp_heap_check(b);
    reap_get_stats(b, &sb);
    assert_int_equal(sb.live_bytes, 0);
    assert_int_equal(sb.live_objects, 0);
    reap_destroy(a);
    reap_destroy(b);
}

int main(void)
{
    /* a first chunk of 4 KiB holds each test's objects together */
    setenv("REAP_FIRST_CHUNK", "4096", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_size_follows_the_documented_rule),
        cmocka_unit_test(every_pointer_is_16_aligned_with_room),
        cmocka_unit_test(objects_have_no_header),
        cmocka_unit_test(alignment_8_rounds_blocks_to_8),
        cmocka_unit_test(alignment_is_set_before_the_first_object),
        cmocka_unit_test(malloc_zero_gives_distinct_objects),
        cmocka_unit_test(impossible_sizes_return_null),
        cmocka_unit_test(calloc_zeroes_reused_memory),
        cmocka_unit_test(realloc_grows_in_place_at_the_frontier),
        cmocka_unit_test(realloc_grows_in_place_into_a_free_neighbour),
        cmocka_unit_test(realloc_shrinks_in_place),
        cmocka_unit_test(realloc_moves_and_keeps_contents),
        cmocka_unit_test(realloc_failure_leaves_the_object),
        cmocka_unit_test(aligned_allocation),
        cmocka_unit_test(usable_size_of_every_object),
        cmocka_unit_test(malloc_inline_is_malloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
