/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_region.c - chunks double up to the cap, retired tails go on the heap,
 * empty retired chunks and large objects go back to the base allocator, and
 * clear keeps only the first chunk (and has nothing to do for a reap that
 * nothing touched); a reap made with a chunk source takes its chunks from
 * it and gives them all back.  Sees internals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "base/base.h"
#include "internal.h"

static bool has_chunk(const reap_t *r, const rp_chunk_t *c)
{
    for (const rp_chunk_t *x = r->chunk; x; x = x->older)
        if (x == c)
            return true;
    return false;
}

static size_t nchunks(const reap_t *r)
{
    size_t n = 0;
    for (const rp_chunk_t *c = r->chunk; c; c = c->older)
        n++;
    return n;
}

static void chunks_double_up_to_the_cap(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    size_t prev = r->chunk->size;
    assert_int_equal(prev, rp_opt.first_chunk);
    for (int i = 0; i < 12; i++) {
        const rp_chunk_t *c = r->chunk;
        while (r->chunk == c)
            assert_non_null(reap_malloc(r, 1000));
        size_t want = prev * 2 < rp_opt.max_chunk ? prev * 2 : rp_opt.max_chunk;
        assert_int_equal(r->chunk->size, want);
        prev = want;
    }
    assert_int_equal(r->chunk->size, rp_opt.max_chunk);
    reap_destroy(r);
}

static void a_big_tail_waits_on_the_heap(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    size_t room = (size_t)(r->bump_end - r->bump);
    assert_non_null(reap_malloc(r, room - 3000));
    char *p = reap_malloc(r, 3500); /* does not fit: a new chunk */
    assert_ptr_not_equal(r->chunk, r->first);
    assert_true(r->heap_free_bytes >= 2900); /* the tail is kept */
    assert_true(r->heap_empty);              /* but nothing was freed: still bumping */
    rp_heap_check(r);
    char *q = reap_malloc(r, 2000); /* the frontier serves it, as a region would */
    assert_true(q > p && q < (char *)r->chunk + r->chunk->size);
    while ((size_t)(r->bump_end - r->bump) >= 2100)
        reap_malloc(r, 1000);
    /* once something is freed the reap is a heap, and the tail serves
     * what the frontier cannot, instead of a new chunk */
    reap_free(r, p);
    rp_chunk_t *before = r->chunk;
    q = reap_malloc(r, 2000);
    assert_ptr_equal(r->chunk, before);
    assert_true(q > (char *)r->first && q < (char *)r->first + r->first->size);
    reap_destroy(r);
}

static void a_big_request_gets_a_side_chunk(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    while (r->chunk == r->first)
        reap_malloc(r, 1000);
    reap_malloc(r, 100);
    char *frontier = r->bump;
    size_t room = (size_t)(r->bump_end - r->bump);
    uint64_t fp = r->footprint;
    char *big = reap_malloc(r, room + 8000); /* bigger than a quarter of the next chunk */
    assert_non_null(big);
    assert_ptr_equal(r->bump, frontier); /* the frontier stays */
    assert_true(r->footprint > fp);
    assert_non_null(reap_malloc(r, 100));
    assert_ptr_equal(r->bump, frontier + 112); /* round16(100 + 8): internal.h */
    rp_heap_check(r);
    reap_free(r, big); /* its chunk goes back */
    assert_int_equal(r->footprint, fp);
    rp_heap_check(r);
    reap_destroy(r);
}

/* Fill a whole retired chunk and free all of it; returns the reap. */
static reap_t *retired_chunk_all_freed(rp_chunk_t **second_out)
{
    reap_t *r = reap_create(NULL);
    /* make the bins now, in the first chunk: a chunk holding them stays */
    void *early = reap_malloc(r, 500);
    reap_malloc(r, 8);
    reap_free(r, early);
    assert_non_null(r->heap);
    /* fill the first chunk, then a whole second one, then open a third */
    char *x;
    do
        x = reap_malloc(r, 500);
    while (r->chunk == r->first);
    rp_chunk_t *second = r->chunk;
    char *objs[200];
    int n = 0;
    objs[n++] = x;
    while (r->chunk == second && n < 200)
        objs[n++] = reap_malloc(r, 500);
    assert_true(r->chunk != second);
    for (int i = 0; i < n; i++)
        reap_free(r, objs[i]);
    rp_heap_check(r);
    *second_out = second;
    return r;
}

static void an_empty_retired_chunk_goes_back(void **state)
{
    (void)state;
    rp_opt.quick_limit = 0; /* every free coalesces at once */
    rp_chunk_t *second;
    reap_t *r = retired_chunk_all_freed(&second);
    assert_int_equal(nchunks(r), 2); /* the second chunk is gone */
    assert_int_equal(r->footprint, r->first->size + r->chunk->size);
    reap_destroy(r);
    rp_opt.quick_limit = RP_SMALL_LIMIT;
}

static void an_empty_retired_chunk_goes_back_when_quick_blocks_join(void **state)
{
    (void)state;
    rp_chunk_t *second;
    reap_t *r = retired_chunk_all_freed(&second);
    assert_true(has_chunk(r, second)); /* its blocks wait on quick lists */
    /* a request the frontier cannot take: the quick blocks are coalesced
     * before the reap grows, and the chunk they fill goes back */
    assert_non_null(reap_malloc(r, (size_t)(r->bump_end - r->bump) + 100));
    assert_false(has_chunk(r, second));
    rp_heap_check(r);
    reap_destroy(r);
}

static void large_objects_have_their_own_blocks(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    uint64_t fp = r->footprint;
    size_t n = rp_opt.large_threshold + 1;
    char *a = reap_malloc(r, n), *b = reap_malloc(r, 10 * n);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(rp_mem2b(a)->head & RP_LARGE);
    assert_true(reap_usable_size(b) >= 10 * n);
    assert_true(r->footprint >= fp + 11 * n);
    reap_free(r, a);
    assert_true(r->footprint >= fp + 10 * n && r->footprint < fp + 11 * n);
    reap_clear(r);
    assert_int_equal(r->footprint, fp);
    reap_destroy(r);
}

static void clear_keeps_the_first_chunk_only(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    rp_chunk_t *first = r->chunk;
    for (int i = 0; i < 5000; i++)
        reap_malloc(r, 200);
    assert_true(nchunks(r) > 3);
    reap_clear(r);
    assert_ptr_equal(r->chunk, first);
    assert_int_equal(nchunks(r), 1);
    assert_int_equal(r->footprint, first->size);
    assert_ptr_equal(r->bump, rp_chunk_arena(r, first));
    reap_destroy(r);
}

/* reap_clear() skips the reset of a reap it would leave as it is, and
 * only of such a reap: a side chunk or a large object leaves the frontier
 * where it was, yet must go back. */
static void clear_of_an_untouched_reap_only_counts(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    rp_chunk_t *first = r->chunk;
    char *start = r->bump;
    assert_true(rp_region_untouched(r));
    reap_clear(r);
    assert_int_equal(r->clears, 1);
    assert_ptr_equal(r->bump, start);
    assert_int_equal(r->footprint, first->size);

    /* does not fit, and is big: a side chunk behind the first */
    char *big = reap_malloc(r, (size_t)(r->bump_end - r->bump) + 100);
    assert_non_null(big);
    assert_ptr_equal(r->bump, start);
    assert_int_equal(nchunks(r), 2);
    assert_false(rp_region_untouched(r));
    reap_clear(r);
    assert_int_equal(nchunks(r), 1);
    assert_int_equal(r->footprint, first->size);

    void *large = reap_malloc(r, rp_opt.large_threshold + 1);
    assert_non_null(large);
    assert_false(rp_region_untouched(r));
    reap_free(r, large); /* gone already: nothing is left to reset */
    assert_true(rp_region_untouched(r));

    reap_malloc(r, 100);
    assert_false(rp_region_untouched(r));
    reap_clear(r);
    assert_true(rp_region_untouched(r));
    assert_ptr_equal(r->bump, start);
    assert_int_equal(r->clears, 3);
    reap_destroy(r);
}

static void base_gets_everything_back(void **state)
{
    (void)state;
    rp_base_stats_t before, after;
    rp_base_trim(); /* what this thread caches counts as in use until then */
    rp_base_get_stats(&before);
    reap_t *r = reap_create(NULL);
    reap_t *c = reap_create(r);
    for (int i = 0; i < 3000; i++) {
        reap_malloc(r, 300);
        reap_malloc(c, 70000);
        if (i % 100 == 0)
            reap_free(c, reap_malloc(c, 5));
    }
    reap_destroy(r);
    rp_base_trim();
    rp_base_get_stats(&after);
    assert_int_equal(after.in_use, before.in_use);
}

/* ---- a chunk source (reap_create_from) ---------------------------------- */

/* A source that hands out aligned_alloc() blocks of the size asked, and
 * checks every give-back. */
typedef struct test_source {
    struct {
        void *p;
        size_t size;
    } out[64];
    size_t n_out;
} test_source_t;

static void *ts_alloc(void *ctx, size_t size)
{
    test_source_t *ts = ctx;
    assert_true(size % REAP_CHUNK_GRAIN == 0);
    assert_true(ts->n_out < 64);
    void *p = aligned_alloc(16, size);
    ts->out[ts->n_out].p = p;
    ts->out[ts->n_out].size = size;
    ts->n_out++;
    return p;
}

static void ts_free(void *ctx, void *chunk, size_t size)
{
    test_source_t *ts = ctx;
    for (size_t i = 0; i < ts->n_out; i++)
        if (ts->out[i].p == chunk) {
            assert_int_equal(size, ts->out[i].size);
            ts->out[i] = ts->out[--ts->n_out];
            free(chunk);
            return;
        }
    fail_msg("a chunk the source did not hand out: %p", chunk);
}

static size_t ts_bytes(const test_source_t *ts)
{
    size_t n = 0;
    for (size_t i = 0; i < ts->n_out; i++)
        n += ts->out[i].size;
    return n;
}

static void chunks_come_from_the_source_and_go_back(void **state)
{
    (void)state;
    test_source_t ts = {0};
    reap_chunk_source_t src = {ts_alloc, ts_free, &ts};
    reap_t *r = reap_create_from(NULL, NULL, &src);
    assert_non_null(r);
    assert_int_equal(ts.n_out, 1);
    reap_t *child = reap_create(r); /* inherits the source */
    assert_int_equal(ts.n_out, 2);
    for (int i = 0; i < 300; i++)
        assert_non_null(reap_malloc(r, 1000));
    assert_true(ts.n_out > 3);
    void *big = reap_malloc(r, 1 << 20); /* a large object: the base's */
    assert_non_null(big);
    size_t large = rp_large_footprint(rp_mem2b(big));
    assert_int_equal(reap_footprint(r, NULL), ts_bytes(&ts) - child->footprint + large);
    reap_clear(r); /* the child and every chunk but the first go back */
    assert_int_equal(ts.n_out, 1);
    assert_int_equal(reap_footprint(r, NULL), ts_bytes(&ts));
    reap_destroy(r);
    assert_int_equal(ts.n_out, 0);
}

static void a_limit_counts_the_source_chunks(void **state)
{
    (void)state;
    test_source_t ts = {0};
    reap_chunk_source_t src = {ts_alloc, ts_free, &ts};
    reap_t *r = reap_create_from(NULL, NULL, &src);
    const size_t limit = (1 << 20) + 20480; /* not a sum of doubling sizes */
    assert_int_equal(reap_set_limit(r, limit), 0);
    reap_t *child = reap_create(r);
    assert_non_null(child);
    while (reap_malloc(child, 1000) != NULL)
        ;
    reap_stats_t st;
    reap_get_stats(child, &st);
    assert_true(st.limit_failures > 0);
    size_t all = reap_tree_footprint(r, NULL);
    assert_int_equal(all, ts_bytes(&ts));
    assert_true(all <= limit);
    /* near the limit the chunks shrink to what a block needs */
    assert_true(all > limit - 8192);
    reap_destroy(r);
    assert_int_equal(ts.n_out, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunks_double_up_to_the_cap),
        cmocka_unit_test(a_big_tail_waits_on_the_heap),
        cmocka_unit_test(a_big_request_gets_a_side_chunk),
        cmocka_unit_test(an_empty_retired_chunk_goes_back),
        cmocka_unit_test(an_empty_retired_chunk_goes_back_when_quick_blocks_join),
        cmocka_unit_test(large_objects_have_their_own_blocks),
        cmocka_unit_test(clear_keeps_the_first_chunk_only),
        cmocka_unit_test(clear_of_an_untouched_reap_only_counts),
        cmocka_unit_test(base_gets_everything_back),
        cmocka_unit_test(chunks_come_from_the_source_and_go_back),
        cmocka_unit_test(a_limit_counts_the_source_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
