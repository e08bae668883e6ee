/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_region.c - chunks: powers of two aligned to their size, growing
 * with the footprint up to the cap, found from any pointer into them, their descriptors in the
 * superblock's first slot or at their start; a retired chunk's tail is a
 * freed block; objects above the large threshold get solo chunks that go
 * back when freed; clear keeps only the first chunk (and has nothing to do
 * for a reap that nothing touched); a reap made with a chunk source takes
 * its chunks from it, gives them all back, and falls back to the base
 * allocator for a chunk the source should not have handed out.  Sees
 * internals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "base/base.h"
#include "region.h"

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

/* Bumps blocks of one grain until the frontier's chunk is full: the next
 * requests come from the lists. */
static void fill_frontier(reap_t *r)
{
    while ((size_t)(r->bump_end - r->bump) >= r->grain_mask + 1)
        assert_non_null(reap_malloc(r, r->grain_mask + 1));
}

/* Fills the frontier's chunk with objects of n bytes until the frontier
 * moves to another one; returns the old chunk. */
static rp_chunk_t *fill_chunk(reap_t *r, size_t n)
{
    rp_chunk_t *c = r->chunk;
    while (r->chunk == c)
        assert_non_null(reap_malloc(r, n));
    return c;
}

/* The first chunk is REAP_FIRST_CHUNK; each one after it is the least
 * power of two that is a third of the reap's footprint when it is taken
 * (region.c, next_size), from the first chunk's size up to the cap. */
static void chunks_grow_with_the_footprint_up_to_the_cap(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_int_equal(r->chunk->size, rp_opt.first_chunk);
    for (int i = 0; i < 16; i++) {
        uint64_t before = r->footprint;
        fill_chunk(r, 300);
        size_t want = rp_opt.first_chunk;
        while (want * 3 < before && want < rp_opt.max_chunk)
            want *= 2;
        assert_int_equal(r->chunk->size, want);
    }
    assert_int_equal(r->chunk->size, rp_opt.max_chunk);
    reap_destroy(r);
}

/* Every chunk is a power of two aligned to its size, and every byte of it
 * leads to its descriptor: in the superblock's first slot from
 * rp_desc_min_shift up, at its start below. */
static void a_chunk_is_found_from_any_pointer(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    for (int i = 0; i < 8; i++)
        fill_chunk(r, 500);
    size_t slot0 = 0, inside = 0;
    for (rp_chunk_t *c = r->chunk; c; c = c->older) {
        size_t size = c->size;
        assert_int_equal(size & (size - 1), 0);
        assert_int_equal((uintptr_t)c->start % size, 0);
        if ((char *)c == c->start)
            inside++, assert_true(size < ((size_t)1 << rp_desc_min_shift));
        else
            slot0++, assert_true(size >= ((size_t)1 << rp_desc_min_shift));
        for (size_t off = 0; off < size; off += size / 16 + 8) {
            uintptr_t start = 0;
            assert_ptr_equal(rp_chunk_block(c->start + off, &start), c);
            assert_int_equal(start, (uintptr_t)c->start);
            assert_ptr_equal(rp_chunk_find(c->start + off), c);
        }
    }
    assert_true(slot0 > 0);
    reap_destroy(r);
}

/* The descriptors of a superblock's chunks, kept in its first slot, lie
 * apart and inside it, on the page of the base allocator's header, and a
 * colour shifts them from one superblock to the next. */
static void descriptors_in_the_first_slot_do_not_overlap(void **state)
{
    (void)state;
    rp_options_init();
    size_t sb = (size_t)1 << rp_base_map_shift, page = (size_t)sysconf(_SC_PAGESIZE);
    size_t colours_seen = 0;
    for (unsigned s = rp_desc_min_shift; s < rp_base_map_shift; s++) {
        size_t z = (size_t)1 << s;
        for (uintptr_t base = (uintptr_t)64 << 30, k = 0; k < 32; k++, base += sb) {
            char *end_prev = NULL;
            for (uintptr_t b = base + z; b < base + sb; b += z) {
                char *d = (char *)rp_desc(b, s);
                assert_true(d >= (char *)base + 128);
                assert_true(d + rp_desc_bytes[s] <= (char *)base + z);
                /* on the header's page: no page of its own to be resident */
                assert_true(d + rp_desc_bytes[s] <= (char *)base + (z < page ? z : page));
                if (end_prev)
                    assert_true(d >= end_prev);
                end_prev = d + rp_desc_bytes[s];
            }
            colours_seen += (uintptr_t)rp_desc(base + z, s) != base + 128;
        }
    }
    assert_true(colours_seen > 0);
}

/* What the frontier leaves of a chunk it retires is a freed block, used
 * again after a sweep. */
static void a_retired_tail_is_a_freed_block(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    while (r->chunk->size < 8192)
        fill_chunk(r, 1000);
    uint64_t tails = r->free_bytes; /* of the chunks filled so far */
    size_t room = (size_t)(r->bump_end - r->bump);
    char *a = reap_malloc(r, room - 3008);
    assert_non_null(a);
    char *tail = r->bump;
    rp_chunk_t *before = r->chunk;
    assert_non_null(reap_malloc(r, 4000)); /* does not fit: a new chunk */
    assert_ptr_not_equal(r->chunk, before);
    assert_int_equal(r->free_bytes, tails + 3008);
    rp_heap_check(r);
    rp_sweep(r);
    fill_frontier(r);
    assert_ptr_equal(reap_malloc(r, 3000), tail);
    rp_heap_check(r);
    reap_destroy(r);
}

/* A retired chunk whose blocks are all freed goes back at the next sweep. */
static void an_empty_retired_chunk_goes_back(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    void *objs[200];
    size_t n = 0;
    rp_chunk_t *first = r->chunk;
    while (r->chunk == first) /* the first one stays */
        objs[0] = reap_malloc(r, 700);
    rp_chunk_t *second = r->chunk;
    uint64_t first_tail = r->free_bytes; /* what the frontier left of the first */
    n = 1; /* objs[0] opened it */
    while (r->chunk == second)
        objs[n++] = reap_malloc(r, 700);
    reap_free(r, objs[--n]); /* the one the third chunk took */
    uint64_t fp = r->footprint;
    for (size_t i = 0; i < n; i++)
        reap_free(r, objs[i]);
    assert_true(has_chunk(r, second));
    rp_sweep(r);
    assert_false(has_chunk(r, second));
    /* less the chunk, plus the lists the sweep made */
    assert_int_equal(r->footprint, fp - second->size + rp_base_usable(sizeof(rp_heap_t)));
    assert_int_equal(r->free_bytes, first_tail);
    rp_heap_check(r);
    reap_destroy(r);
}

static void large_objects_have_solo_chunks(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    uint64_t fp = r->footprint;
    size_t n = rp_opt.large_threshold + 1;
    char *a = reap_malloc(r, n), *b = reap_malloc(r, 10 * n);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(rp_chunk_solo(rp_chunk_find(a)));
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
    char *start = r->bump;
    for (int i = 0; i < 5000; i++)
        reap_malloc(r, 200);
    assert_true(nchunks(r) > 3);
    reap_clear(r);
    assert_ptr_equal(r->chunk, first);
    assert_int_equal(nchunks(r), 1);
    assert_int_equal(r->footprint, first->size);
    assert_ptr_equal(r->bump, start);
    rp_heap_check(r);
    reap_destroy(r);
}

/* reap_clear() skips the reset of a reap it would leave as it is, and
 * only of such a reap: a solo chunk leaves the frontier where it was, yet
 * must go back. */
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

    void *large = reap_malloc(r, rp_opt.large_threshold + 1);
    assert_non_null(large);
    assert_ptr_equal(r->bump, start);
    assert_int_equal(nchunks(r), 2);
    assert_false(rp_region_untouched(r));
    reap_clear(r);
    assert_int_equal(nchunks(r), 1);
    assert_int_equal(r->footprint, first->size);

    large = reap_malloc(r, rp_opt.large_threshold + 1);
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

/* A source that hands out blocks of reap_base_alloc(), as reap.h asks,
 * and checks every give-back; with `wrong' set it hands out blocks of a
 * size it was not asked for, as no source may. */
typedef struct test_source {
    struct {
        void *p;
        size_t size;
    } out[64];
    size_t n_out;
    bool wrong;
} test_source_t;

static void *ts_alloc(void *ctx, size_t size)
{
    test_source_t *ts = ctx;
    assert_true(size % REAP_CHUNK_GRAIN == 0);
    assert_true(ts->n_out < 64);
    size_t got = ts->wrong ? size * 2 : size;
    void *p = reap_base_alloc(got);
    ts->out[ts->n_out].p = p;
    ts->out[ts->n_out].size = got;
    ts->n_out++;
    return p;
}

static void ts_free(void *ctx, void *chunk, size_t size)
{
    test_source_t *ts = ctx;
    for (size_t i = 0; i < ts->n_out; i++)
        if (ts->out[i].p == chunk) {
            assert_int_equal(ts->wrong ? 2 * size : size, ts->out[i].size);
            reap_base_free(chunk, ts->out[i].size);
            ts->out[i] = ts->out[--ts->n_out];
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
    reap_t *child = reap_create(r); /* inherits the source */
    for (int i = 0; i < 300; i++)
        assert_non_null(reap_malloc(r, 1000));
    assert_true(ts.n_out > 3);
    void *big = reap_malloc(r, 1 << 20); /* a solo chunk: the base's */
    assert_non_null(big);
    size_t solo = rp_chunk_find(big)->size;
    /* chunks below REAP_CHUNK_GRAIN (the first ones) are the base's */
    size_t small = 0;
    for (rp_chunk_t *c = r->chunk; c; c = c->older)
        if (!rp_chunk_solo(c) && c->size < REAP_CHUNK_GRAIN)
            small += c->size;
    size_t child_small = child->first->size < REAP_CHUNK_GRAIN ? child->first->size : 0;
    /* the lists a sweep of the retired tails made: the base's too */
    size_t heap = r->heap && !r->heap->carved ? rp_base_usable(sizeof(rp_heap_t)) : 0;
    assert_int_equal(reap_footprint(r, NULL) + child->footprint,
                     ts_bytes(&ts) + solo + small + child_small + heap);
    reap_clear(r); /* the child and every chunk but the first go back; the lists stay */
    assert_int_equal(reap_footprint(r, NULL), r->first->size + heap);
    assert_int_equal(ts_bytes(&ts), r->first->size < REAP_CHUNK_GRAIN ? 0 : r->first->size);
    reap_destroy(r);
    assert_int_equal(ts.n_out, 0);
}

/* A chunk a source should not have handed out (not a block of the size it
 * was asked for) goes back to it, and the base allocator serves. */
static void a_wrong_chunk_goes_back_to_the_source(void **state)
{
    (void)state;
    test_source_t ts = {.wrong = true};
    reap_chunk_source_t src = {ts_alloc, ts_free, &ts};
    reap_t *r = reap_create_from(NULL, NULL, &src);
    assert_non_null(r);
    for (int i = 0; i < 300; i++)
        assert_non_null(reap_malloc(r, 1000));
    assert_int_equal(ts.n_out, 0);
    for (rp_chunk_t *c = r->chunk; c; c = c->older)
        assert_ptr_equal(rp_chunk_find(c->start + c->size / 2), c);
    rp_heap_check(r);
    reap_destroy(r);
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
    assert_true(all <= limit);
    /* near the limit the chunks shrink to what a block needs */
    assert_true(all > limit - 8192);
    reap_destroy(r);
    assert_int_equal(ts.n_out, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunks_grow_with_the_footprint_up_to_the_cap),
        cmocka_unit_test(a_chunk_is_found_from_any_pointer),
        cmocka_unit_test(descriptors_in_the_first_slot_do_not_overlap),
        cmocka_unit_test(a_retired_tail_is_a_freed_block),
        cmocka_unit_test(an_empty_retired_chunk_goes_back),
        cmocka_unit_test(large_objects_have_solo_chunks),
        cmocka_unit_test(clear_keeps_the_first_chunk_only),
        cmocka_unit_test(clear_of_an_untouched_reap_only_counts),
        cmocka_unit_test(base_gets_everything_back),
        cmocka_unit_test(chunks_come_from_the_source_and_go_back),
        cmocka_unit_test(a_wrong_chunk_goes_back_to_the_source),
        cmocka_unit_test(a_limit_counts_the_source_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
