/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_api.c - the public API only, used as a server would: a reap per
 * connection, a child per request, objects freed as they go.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "reap.h"

static void version_is_the_header_version(void **state)
{
    (void)state;
    assert_string_equal(reap_version(), REAP_VERSION_STRING);
}

static void requests_as_children_leave_nothing_behind(void **state)
{
    (void)state;
    reap_t *conn = reap_create(NULL);
    reap_stats_t before, after;
    reap_get_tree_stats(conn, &before);
    for (int req = 0; req < 1000; req++) {
        reap_t *rq = reap_create(conn);
        assert_non_null(rq);
        for (int i = 0; i < 200; i++) {
            char *p = reap_malloc(rq, (size_t)(16 + (i * 53) % 900));
            assert_non_null(p);
            p[0] = 1;
            if (i % 3 == 0)
                reap_free(rq, p);
        }
        reap_destroy(rq);
    }
    reap_get_tree_stats(conn, &after);
    assert_int_equal(after.reaps, 1);
    assert_int_equal(after.footprint, before.footprint);
    reap_destroy(conn);
}

static void freeing_lets_a_loop_run_in_bounded_memory(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *keep = NULL;
    for (int i = 0; i < 200000; i++) {
        char *p = reap_malloc(r, (size_t)(32 + i % 2000));
        assert_non_null(p);
        memset(p, i, 32);
        if (keep)
            reap_free(r, keep);
        keep = p;
    }
    reap_stats_t s;
    reap_get_stats(r, &s);
    assert_true(s.peak_footprint < 64 << 10); /* a region would need ~200 MB */
    reap_destroy(r);
}

static void clear_then_reuse_many_times(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    for (int round = 0; round < 50; round++) {
        reap_t *kid = reap_create(r);
        for (int i = 0; i < 1000; i++) {
            assert_non_null(reap_malloc(r, 100));
            assert_non_null(reap_malloc(kid, 100));
        }
        reap_clear(r); /* destroys kid as well */
        reap_stats_t s;
        reap_get_tree_stats(r, &s);
        assert_int_equal(s.reaps, 1);
        assert_int_equal(s.live_objects, 0);
        assert_int_equal(s.clears, (uint64_t)round + 1);
    }
    reap_destroy(r);
}

static void free_of_null_does_nothing(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    reap_free(r, NULL);
    reap_stats_t s;
    reap_get_stats(r, &s);
    assert_int_equal(s.frees, 0);
    assert_int_equal(reap_usable_size(NULL), 0);
    reap_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_is_the_header_version),
        cmocka_unit_test(requests_as_children_leave_nothing_behind),
        cmocka_unit_test(freeing_lets_a_loop_run_in_bounded_memory),
        cmocka_unit_test(clear_then_reuse_many_times),
        cmocka_unit_test(free_of_null_does_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
