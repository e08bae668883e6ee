/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * pool_bench.c - APR pool costs on whichever libapr-1 is loaded.
 *
 * Uses only the stock APR API (apr_pfree is looked up at run time), so the
 * one binary, built against Debian's APR headers, compares Debian's
 * library (run it as is) with the reap-backed one (run it with
 * LD_LIBRARY_PATH=build/install/apr/lib after `make apr-build`).  It prints
 * one "name: value" line per figure; it asserts nothing.
 *
 * Figures: apr_palloc of 16-256 bytes with a clear every 10,000 (ns per
 * allocation); a request-like pool cycle (create a subpool, 100 small
 * apr_palloc, 10 apr_psprintf, 20 apr_pstrdup, destroy); the memory one
 * such pool holds while alive (RSS growth over 20,000 live pools) and
 * the cost of destroying them one by one; a connection-like cycle (a
 * request pool made and destroyed in a pool that owns its allocator, then
 * that pool cleared, as an MPM clears a connection's pool); and, on the
 * reap-backed APR only, an allocate/apr_pfree loop.
 *
 * Arguments name the figures to take (palloc, request, connection, live,
 * pfree); none takes them all.  `pool_bench palloc` under callgrind
 * with --toggle-collect=apr_palloc counts apr_palloc's instructions a
 * call: the total over its 10,000,000 calls (docs/benchmarks.md).
 */
#define _GNU_SOURCE 1   /* dladdr, RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>

typedef void (*pfree_fn)(apr_pool_t *, void *);

/* What every figure runs with. */
struct bench_env {
    apr_pool_t *pool;   /* a long-lived pool; a figure that fills it clears it */
    apr_pool_t *parent; /* the parent of the request pools */
    pfree_fn pfree;     /* apr_pfree, or NULL when the library has none */
};

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Resident set size in bytes, from /proc/self/statm; 0 if unreadable. */
static long rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;

    if (f == NULL)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
    fclose(f);
    return resident * 4096;
}

static unsigned next(unsigned *x)
{
    *x = *x * 1103515245u + 12345u;
    return *x >> 8;
}

/* The allocations of a small HTTP request's pool, roughly. */
static void request(apr_pool_t *p, unsigned *x)
{
    for (int i = 0; i < 100; i++) {
        char *m = apr_palloc(p, 8 + next(x) % 120);
        m[0] = 1;
    }
    for (int i = 0; i < 10; i++)
        (void)apr_psprintf(p, "GET /path/%d/file-%u.html HTTP/1.1", i, *x);
    for (int i = 0; i < 20; i++)
        (void)apr_pstrdup(p, "Content-Type: text/html; charset=utf-8");
}

static void bench_palloc(const struct bench_env *env)
{
    apr_pool_t *p = env->pool;
    unsigned x = 1;
    long n = 0;
    double t = now();

    for (int b = 0; b < 1000; b++) {
        for (int i = 0; i < 10000; i++) {
            char *m = apr_palloc(p, 16 + next(&x) % 241);
            m[0] = 1;
            n++;
        }
        apr_pool_clear(p);
    }
    printf("palloc_16_256_ns: %.2f\n", (now() - t) * 1e9 / n);
}

static void bench_request_cycle(const struct bench_env *env)
{
    enum { N = 200000 };
    unsigned x = 1;
    double t = now();

    for (int i = 0; i < N; i++) {
        apr_pool_t *r;

        apr_pool_create(&r, env->parent);
        request(r, &x);
        apr_pool_destroy(r);
    }
    printf("request_pool_cycle_ns: %.0f\n", (now() - t) * 1e9 / N);
}

/* What an MPM does per connection: the connection's pool owns an
 * allocator, a request pool comes and goes in it, and the connection
 * pool is cleared for the next one. */
static void bench_connection_cycle(const struct bench_env *env)
{
    enum { N = 200000 };
    apr_allocator_t *allocator;
    apr_pool_t *conn;
    unsigned x = 1;
    double t;

    (void)env; /* the figure makes its own pools */
    if (apr_allocator_create(&allocator) != APR_SUCCESS)
        return;
    if (apr_pool_create_ex(&conn, NULL, NULL, allocator) != APR_SUCCESS) {
        apr_allocator_destroy(allocator);
        return;
    }
    apr_allocator_owner_set(allocator, conn);
    t = now();
    for (int i = 0; i < N; i++) {
        apr_pool_t *r;

        (void)apr_palloc(conn, 600); /* the connection's own structures */
        apr_pool_create(&r, conn);
        request(r, &x);
        apr_pool_destroy(r);
        apr_pool_clear(conn);
    }
    printf("connection_cycle_ns: %.0f\n", (now() - t) * 1e9 / N);
    apr_pool_destroy(conn);
}

static void bench_live_footprint(const struct bench_env *env)
{
    enum { N = 20000 };
    apr_pool_t **keep = malloc(N * sizeof(*keep));
    unsigned x = 1;
    long before;
    double t;

    if (keep == NULL)
        return;
    before = rss_bytes();
    for (int i = 0; i < N; i++) {
        apr_pool_create(&keep[i], env->parent);
        request(keep[i], &x);
    }
    printf("live_request_pool_bytes: %.0f\n",
           (double)(rss_bytes() - before) / N);
    t = now();
    for (int i = 0; i < N; i++)
        apr_pool_destroy(keep[i]);
    printf("destroy_live_pool_ns: %.0f\n", (now() - t) * 1e9 / N);
    free(keep);
}

/* On the reap-backed APR only: nothing is printed where there is no
 * apr_pfree. */
static void bench_pfree_loop(const struct bench_env *env)
{
    enum { SLOTS = 32, N = 10000000 };
    apr_pool_t *p = env->pool;
    void *slot[SLOTS] = { 0 };
    unsigned x = 1;
    double t;

    if (env->pfree == NULL)
        return;
    t = now();
    for (int i = 0; i < N; i++) {
        unsigned k = next(&x) % SLOTS;

        if (slot[k])
            env->pfree(p, slot[k]);
        slot[k] = apr_palloc(p, 16 + next(&x) % 241);
    }
    printf("palloc_pfree_pair_ns: %.2f\n", (now() - t) * 1e9 / N);
    apr_pool_clear(p);
}

/* The figures, in the order they are taken: the names the arguments use. */
static const struct figure {
    const char *name;
    void (*run)(const struct bench_env *);
} figures[] = {
    {"palloc", bench_palloc},
    {"request", bench_request_cycle},
    {"connection", bench_connection_cycle},
    {"live", bench_live_footprint},
    {"pfree", bench_pfree_loop},
};
enum { NFIGURES = sizeof figures / sizeof figures[0] };

/* Is figure name asked for by the arguments (all are, when there are none)? */
static int wanted(int argc, char **argv, const char *name)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

/* Is name one of the figures? */
static int known(const char *name)
{
    for (int k = 0; k < NFIGURES; k++)
        if (strcmp(name, figures[k].name) == 0)
            return 1;
    return 0;
}

static void unknown_figure(const char *name)
{
    fprintf(stderr, "pool_bench: unknown figure %s (", name);
    for (int k = 0; k < NFIGURES; k++)
        fprintf(stderr, "%s%s", k ? ", " : "", figures[k].name);
    fprintf(stderr, ")\n");
}

int main(int argc, char **argv)
{
    struct bench_env env;
    Dl_info info;

    if (apr_initialize() != APR_SUCCESS
        || apr_pool_create(&env.pool, NULL) != APR_SUCCESS
        || apr_pool_create(&env.parent, NULL) != APR_SUCCESS) {
        fprintf(stderr, "pool_bench: APR initialisation failed\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (!known(argv[i])) {
            unknown_figure(argv[i]);
            return 2;
        }
    }
    env.pfree = (pfree_fn)dlsym(RTLD_DEFAULT, "apr_pfree");
    if (dladdr((void *)apr_palloc, &info) && info.dli_fname)
        printf("libapr: %s\n", info.dli_fname);
    printf("apr_pfree: %s\n", env.pfree ? "yes" : "no");

    for (int k = 0; k < NFIGURES; k++)
        if (wanted(argc, argv, figures[k].name))
            figures[k].run(&env);

    apr_terminate();
    return 0;
}
