/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_apr_tables.c - the frees the reap-backed APR adds to its hash
 * tables and tables (apr-patch/src/tables/), through APR's public API.
 *
 * apr_hash_set() gives the bucket array an expansion replaces back to the
 * pool, except apr_hash_copy()'s, which is part of the copy's own
 * allocation; apr_table_compress() (and apr_table_overlap(), which calls
 * it) gives back its two scratch arrays.  Each test counts the frees in
 * the pool's reap (libreap's statistics) against a number worked out from
 * APR's growth rule, not from the code under test, and checks that every
 * key and value is still what stock APR gives.  Built like
 * test_apr_pools: the project's pool and table files compiled in, the
 * rest of APR from Debian's libapr-1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <apr_general.h>
#include <apr_hash.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_tables.h>

#include "pool_fixture.h"

static uint64_t pool_frees(apr_pool_t *pool)
{
    return pool_stats(pool).frees;
}

static const char *key_of(apr_pool_t *pool, int i)
{
    return apr_psprintf(pool, "key-%04d", i);
}

/* Every key 0..n-1 maps to its index, and there are n entries. */
static void assert_hash_holds(apr_hash_t *h, apr_pool_t *keys, int n)
{
    int seen = 0;

    assert_int_equal(apr_hash_count(h), n);
    for (int i = 0; i < n; i++) {
        const int *v = apr_hash_get(h, key_of(keys, i), APR_HASH_KEY_STRING);

        assert_non_null(v);
        assert_int_equal(*v, i);
    }
    for (apr_hash_index_t *hi = apr_hash_first(keys, h); hi; hi = apr_hash_next(hi))
        seen++;
    assert_int_equal(seen, n);
}

static void hash_fill(apr_hash_t *h, apr_pool_t *keys, int from, int to)
{
    for (int i = from; i < to; i++) {
        int *v = apr_palloc(keys, sizeof *v);

        *v = i;
        apr_hash_set(h, key_of(keys, i), APR_HASH_KEY_STRING, v);
    }
}

/* APR's rule: a hash starts with 16 buckets (max 15) and doubles (max
 * 2 max + 1) when the count exceeds max, so 1000 keys expand it at the
 * 16th, 32nd, 64th, 128th, 256th and 512th: six old arrays. */
static void test_hash_expand_frees_old_array(void **state)
{
    apr_pool_t *pool = *state, *keys;
    apr_hash_t *h;
    uint64_t before;

    assert_int_equal(apr_pool_create(&keys, NULL), APR_SUCCESS);
    h = apr_hash_make(pool);
    before = pool_frees(pool);
    hash_fill(h, keys, 0, 15);
    assert_int_equal(pool_frees(pool) - before, 0);
    hash_fill(h, keys, 15, 1000);
    assert_int_equal(pool_frees(pool) - before, 6);
    assert_hash_holds(h, keys, 1000);
    apr_pool_destroy(keys);
}

/* An iteration that spans expansions reads the new array: adding keys
 * while iterating, so that the table expands under the iterator, must not
 * touch a freed array (ASan and the sanitizer tier would see it). */
static void test_hash_expand_during_iteration(void **state)
{
    apr_pool_t *pool = *state, *keys;
    apr_hash_t *h;
    int added = 100;

    assert_int_equal(apr_pool_create(&keys, NULL), APR_SUCCESS);
    h = apr_hash_make(pool);
    hash_fill(h, keys, 0, 10);
    for (apr_hash_index_t *hi = apr_hash_first(keys, h); hi; hi = apr_hash_next(hi)) {
        if (added < 200) {
            hash_fill(h, keys, added, added + 20);
            added += 20;
        }
    }
    /* 10 + 100 keys, and the keys 0..9 and 100..199 are there. */
    assert_int_equal(apr_hash_count(h), 110);
    for (int i = 100; i < 200; i++)
        assert_non_null(apr_hash_get(h, key_of(keys, i), APR_HASH_KEY_STRING));
    apr_pool_destroy(keys);
}

/* apr_hash_copy() carves its array out of the copy's own allocation: the
 * copy's first expansion keeps it, the later ones free theirs. */
static void test_hash_copy_keeps_embedded_array(void **state)
{
    apr_pool_t *pool = *state, *keys, *other;
    apr_hash_t *h, *c;
    uint64_t before;

    assert_int_equal(apr_pool_create(&keys, NULL), APR_SUCCESS);
    assert_int_equal(apr_pool_create(&other, NULL), APR_SUCCESS);
    h = apr_hash_make(other);
    hash_fill(h, keys, 0, 10);
    c = apr_hash_copy(pool, h);
    before = pool_frees(pool);
    hash_fill(c, keys, 10, 40); /* expands at 16 (embedded) and 32 */
    assert_int_equal(pool_frees(pool) - before, 1);
    assert_hash_holds(c, keys, 40);
    assert_hash_holds(h, keys, 10);
    apr_pool_destroy(other);
    apr_pool_destroy(keys);
}

/* Merges and overlays allocate their own array: it is freed when it
 * grows; the inputs are untouched. */
static void test_hash_overlay_then_grow(void **state)
{
    apr_pool_t *pool = *state, *keys;
    apr_hash_t *a, *b, *o;
    uint64_t before;

    assert_int_equal(apr_pool_create(&keys, NULL), APR_SUCCESS);
    a = apr_hash_make(keys);
    b = apr_hash_make(keys);
    hash_fill(a, keys, 0, 5);
    hash_fill(b, keys, 5, 10);
    o = apr_hash_overlay(pool, a, b);
    before = pool_frees(pool);
    hash_fill(o, keys, 10, 40);
    /* its array has 16 buckets (max 15): expanded at 16 and at 32 */
    assert_int_equal(pool_frees(pool) - before, 2);
    assert_hash_holds(o, keys, 40);
    assert_hash_holds(a, keys, 5);
    apr_pool_destroy(keys);
}

static const char *table_value(apr_table_t *t, const char *key)
{
    const char *v = apr_table_get(t, key);

    return v ? v : "(none)";
}

/* Compressing a table of n >= 2 entries frees exactly its two scratch
 * arrays (the sorted pointers and the merge sort's second array), and
 * merges or overwrites duplicates as stock APR does. */
static void test_table_compress_frees_scratch(void **state)
{
    apr_pool_t *pool = *state;
    apr_table_t *t = apr_table_make(pool, 2);
    const apr_array_header_t *a;
    uint64_t before;

    apr_table_addn(t, "b", "1");
    apr_table_addn(t, "a", "2");
    apr_table_addn(t, "B", "3");
    apr_table_addn(t, "c", "4");
    apr_table_addn(t, "a", "5");
    before = pool_frees(pool);
    apr_table_compress(t, APR_OVERLAP_TABLES_MERGE);
    assert_int_equal(pool_frees(pool) - before, 2);
    a = apr_table_elts(t);
    assert_int_equal(a->nelts, 3);
    /* Entries keep their first position; values merge in order. */
    assert_string_equal(((apr_table_entry_t *)a->elts)[0].key, "b");
    assert_string_equal(table_value(t, "b"), "1, 3");
    assert_string_equal(table_value(t, "a"), "2, 5");
    assert_string_equal(table_value(t, "c"), "4");

    before = pool_frees(pool);
    apr_table_addn(t, "a", "6");
    apr_table_compress(t, APR_OVERLAP_TABLES_SET);
    assert_int_equal(pool_frees(pool) - before, 2);
    assert_string_equal(table_value(t, "a"), "6");
    assert_int_equal(apr_table_elts(t)->nelts, 3);
}

/* Nothing to sort, nothing allocated, nothing freed. */
static void test_table_compress_small_or_add(void **state)
{
    apr_pool_t *pool = *state;
    apr_table_t *t = apr_table_make(pool, 2);
    uint64_t before = pool_frees(pool);

    apr_table_compress(t, APR_OVERLAP_TABLES_SET);
    apr_table_setn(t, "only", "one");
    apr_table_compress(t, APR_OVERLAP_TABLES_MERGE);
    apr_table_addn(t, "only", "two");
    apr_table_compress(t, APR_OVERLAP_TABLES_ADD);
    assert_int_equal(pool_frees(pool) - before, 0);
    assert_int_equal(apr_table_elts(t)->nelts, 2);
}

/* apr_table_overlap() from a table in another pool: the overlaid table's
 * pool frees the scratch; the other table is unchanged. */
static void test_table_overlap(void **state)
{
    apr_pool_t *pool = *state, *parent;
    apr_table_t *a, *b;
    uint64_t before;

    assert_int_equal(apr_pool_create(&parent, NULL), APR_SUCCESS);
    b = apr_table_make(parent, 4);
    apr_table_setn(b, "x", "from-b");
    apr_table_setn(b, "y", "only-b");
    a = apr_table_make(pool, 4);
    apr_table_setn(a, "x", "from-a");
    apr_table_setn(a, "z", "only-a");
    before = pool_frees(pool);
    apr_table_overlap(a, b, APR_OVERLAP_TABLES_SET);
    assert_int_equal(pool_frees(pool) - before, 2);
    assert_int_equal(apr_table_elts(a)->nelts, 3);
    assert_string_equal(table_value(a, "x"), "from-b");
    assert_string_equal(table_value(a, "y"), "only-b");
    assert_string_equal(table_value(a, "z"), "only-a");
    assert_int_equal(apr_table_elts(b)->nelts, 2);
    assert_string_equal(table_value(b, "x"), "from-b");
    apr_pool_destroy(parent);
}

/* A larger table, sorted over several merge passes (odd and even counts
 * of passes return either array): every key keeps its last value. */
static void test_table_compress_many(void **state)
{
    apr_pool_t *pool = *state;

    for (int n = 2; n <= 40; n++) {
        apr_table_t *t = apr_table_make(pool, 1);
        uint64_t before;

        for (int i = 0; i < n; i++)
            apr_table_add(t, apr_psprintf(pool, "k%d", i % 7), apr_psprintf(pool, "%d", i));
        before = pool_frees(pool);
        apr_table_compress(t, APR_OVERLAP_TABLES_SET);
        assert_int_equal(pool_frees(pool) - before, 2);
        assert_int_equal(apr_table_elts(t)->nelts, n < 7 ? n : 7);
        for (int k = 0; k < 7 && k < n; k++) {
            int last = k + (n - 1 - k) / 7 * 7;

            assert_string_equal(table_value(t, apr_psprintf(pool, "k%d", k)),
                                apr_psprintf(pool, "%d", last));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hash_expand_frees_old_array, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_hash_expand_during_iteration, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_hash_copy_keeps_embedded_array, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_hash_overlay_then_grow, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_table_compress_frees_scratch, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_table_compress_small_or_add, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_table_overlap, setup_pool, teardown_pool),
        cmocka_unit_test_setup_teardown(test_table_compress_many, setup_pool,
                                        teardown_pool),
    };

    return run_apr_tests(tests);
}
