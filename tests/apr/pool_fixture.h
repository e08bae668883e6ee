/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * pool_fixture.h - what the reap-backed APR's cmocka tests share: a fresh
 * top-level pool per test (setup_pool, teardown_pool) and the statistics
 * of the reap under a pool (libreap's, through apr_pool_reap_get()), and
 * main()'s run of a group inside apr_initialize() and apr_terminate().
 * Include it after <cmocka.h> and <stdio.h>.
 * Included by one test program each; everything here is static.
 */
#ifndef REAP_TEST_POOL_FIXTURE_H
#define REAP_TEST_POOL_FIXTURE_H

#include <apr_general.h>
#include <apr_pools.h>

#include <reap.h>

#if !defined(APR_POOL_HAS_PFREE)
#error "these tests need the reap-backed APR (apr-patch/build-apr.sh)"
#endif

static int setup_pool(void **state)
{
    apr_pool_t *pool;

    if (apr_pool_create(&pool, NULL) != APR_SUCCESS)
        return -1;
    *state = pool;
    return 0;
}

static int teardown_pool(void **state)
{
    apr_pool_destroy(*state);
    return 0;
}

/* The pool's own reap, without its subpools. */
static reap_stats_t pool_stats(apr_pool_t *pool)
{
    reap_stats_t s;

    reap_get_stats(apr_pool_reap_get(pool), &s);
    return s;
}

/* Runs the group between apr_initialize() and apr_terminate(); main()'s
 * exit status: 0 when every test passed. */
#define run_apr_tests(tests) \
    run_apr_group(#tests, tests, sizeof(tests) / sizeof((tests)[0]))

static int run_apr_group(const char *name, const struct CMUnitTest *tests,
                         size_t n)
{
    int rc;

    if (apr_initialize() != APR_SUCCESS) {
        fprintf(stderr, "apr_initialize failed\n");
        return 1;
    }
    rc = _cmocka_run_group_tests(name, tests, n, NULL, NULL);
    apr_terminate();
    return rc;
}

#endif
