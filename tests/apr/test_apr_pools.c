/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_apr_pools.c - what the reap patch adds to APR pools, through APR's
 * public API only.
 *
 * Runs against the patched libapr-1 installed by apr-patch/build-apr.sh
 * (REAP_APR_DIR).  APR's own suite (`build-apr.sh --check`) covers the
 * stock behaviour; these tests cover apr_pfree() and apr_prealloc(), the
 * reap under each pool (apr_pool_reap_get()), and the stock promises that
 * the patch re-implemented: clear order, apr_psprintf(), the abort
 * function, the public allocator, and subpools of a shared parent made
 * from several threads; and apr_pool_walk() with apr_pool_tag_get(), also
 * while threads make and destroy subpools.  Footprints come from libreap's
 * statistics.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <apr_allocator.h>
#include <apr_general.h>
#include <apr_hash.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_thread_mutex.h>

#include <reap.h>

#if !defined(APR_POOL_HAS_PFREE) || !defined(APR_POOL_HAS_WALK)
#error "these tests need the reap-backed APR (apr-patch/build-apr.sh)"
#endif

/* ---- helpers ------------------------------------------------------------ */

#include "pool_fixture.h"

static reap_stats_t pool_tree_stats(apr_pool_t *pool)
{
    reap_stats_t s;

    reap_get_tree_stats(apr_pool_reap_get(pool), &s);
    return s;
}

static void fill(void *p, size_t n, unsigned seed)
{
    unsigned char *c = p;

    for (size_t i = 0; i < n; i++)
        c[i] = (unsigned char)(seed + i * 7);
}

static int filled(const void *p, size_t n, unsigned seed)
{
    const unsigned char *c = p;

    for (size_t i = 0; i < n; i++)
        if (c[i] != (unsigned char)(seed + i * 7))
            return 0;
    return 1;
}

/* ---- the pool is a reap ------------------------------------------------- */

static void test_pool_is_reap(void **state)
{
    apr_pool_t *pool = *state, *sub;

    assert_non_null(apr_pool_reap_get(pool));
    assert_int_equal(apr_pool_create(&sub, pool), APR_SUCCESS);
    /* A subpool is a child reap of its parent's reap. */
    assert_ptr_equal(reap_parent(apr_pool_reap_get(sub)),
                     apr_pool_reap_get(pool));
    assert_ptr_equal(apr_pool_parent_get(sub), pool);
    assert_true(apr_pool_is_ancestor(pool, sub));
    assert_false(apr_pool_is_ancestor(sub, pool));
    apr_pool_destroy(sub);
}

static void test_unmanaged_pool(void **state)
{
    apr_pool_t *pool, *sub;
    char *p;

    (void)state;
    assert_int_equal(apr_pool_create_unmanaged(&pool), APR_SUCCESS);
    apr_pool_tag(pool, "unmanaged");
    /* No parent pool, a top-level reap, and an allocator of its own. */
    assert_null(apr_pool_parent_get(pool));
    assert_null(reap_parent(apr_pool_reap_get(pool)));
    assert_ptr_equal(apr_allocator_owner_get(apr_pool_allocator_get(pool)),
                     pool);
    assert_int_equal(apr_pool_create(&sub, pool), APR_SUCCESS);
    assert_ptr_equal(reap_parent(apr_pool_reap_get(sub)),
                     apr_pool_reap_get(pool));
    p = apr_pstrdup(pool, "free me");
    (void)apr_palloc(pool, 8);
    apr_pfree(pool, p);
    assert_int_equal(pool_stats(pool).frees, 1);
    apr_pool_destroy(pool);
}

/* ---- apr_pfree ---------------------------------------------------------- */

static void test_pfree_null_is_noop(void **state)
{
    apr_pool_t *pool = *state;
    void *p = apr_palloc(pool, 100);
    reap_stats_t before, after;

    assert_non_null(p);
    before = pool_stats(pool);
    apr_pfree(pool, NULL);
    after = pool_stats(pool);
    assert_int_equal(after.frees, before.frees);
    assert_int_equal(after.live_objects, before.live_objects);
    assert_int_equal(after.live_bytes, before.live_bytes);
}

static void test_pfree_then_reuse(void **state)
{
    apr_pool_t *pool = *state;
    char *a, *b, *keep;
    reap_stats_t s0, s1;

    a = apr_palloc(pool, 200);
    keep = apr_palloc(pool, 200);   /* so a is not at the frontier */
    assert_non_null(a);
    assert_non_null(keep);
    fill(keep, 200, 3);
    s0 = pool_stats(pool);
    apr_pfree(pool, a);
    s1 = pool_stats(pool);
    assert_int_equal(s1.frees, s0.frees + 1);
    assert_int_equal(s1.live_objects, s0.live_objects - 1);
    b = apr_palloc(pool, 200);
    assert_true(filled(keep, 200, 3));

    /* Many rounds of free and reallocate do not grow the pool: the freed
     * space is used again before the pool takes more memory. */
    s0 = pool_stats(pool);
    for (int i = 0; i < 10000; i++) {
        apr_pfree(pool, b);
        b = apr_palloc(pool, 200);
        fill(b, 200, (unsigned)i);
    }
    s1 = pool_stats(pool);
    assert_int_equal(s1.footprint, s0.footprint);
    assert_true(filled(keep, 200, 3));
}

static void test_pcalloc_after_pfree_is_zero(void **state)
{
    apr_pool_t *pool = *state;
    unsigned char *a, *b;

    a = apr_palloc(pool, 512);
    (void)apr_palloc(pool, 16);
    memset(a, 0xAB, 512);
    apr_pfree(pool, a);
    b = apr_pcalloc(pool, 512);
    assert_non_null(b);
    for (int i = 0; i < 512; i++)
        assert_int_equal(b[i], 0);
}

static void test_pfree_in_subpools(void **state)
{
    apr_pool_t *pool = *state, *sub, *subsub;
    char *p, *q, *r, *parent_obj;
    reap_stats_t before;

    parent_obj = apr_pstrdup(pool, "parent survives");
    assert_int_equal(apr_pool_create(&sub, pool), APR_SUCCESS);
    assert_int_equal(apr_pool_create(&subsub, sub), APR_SUCCESS);

    p = apr_palloc(sub, 1000);
    (void)apr_palloc(sub, 8);
    apr_pfree(sub, p);
    q = apr_palloc(sub, 1000);
    assert_ptr_equal(q, p);

    r = apr_palloc(subsub, 3000);
    (void)apr_palloc(subsub, 8);
    before = pool_stats(subsub);
    apr_pfree(subsub, r);
    assert_int_equal(pool_stats(subsub).live_objects,
                     before.live_objects - 1);
    assert_ptr_equal(apr_palloc(subsub, 3000), r);

    /* Destroying the subpool takes its grandchild and leaves the parent's
     * objects alone. */
    apr_pool_destroy(sub);
    assert_string_equal(parent_obj, "parent survives");
    assert_int_equal(pool_tree_stats(pool).reaps, 1);
}

static void test_pfree_mixed_with_clear_and_destroy(void **state)
{
    apr_pool_t *pool = *state, *sub;
    void *objs[256];
    reap_stats_t s;

    for (int round = 0; round < 20; round++) {
        assert_int_equal(apr_pool_create(&sub, pool), APR_SUCCESS);
        for (int i = 0; i < 256; i++) {
            objs[i] = apr_palloc(pool, 16 + (size_t)(i * 37 % 700));
            assert_non_null(objs[i]);
            fill(objs[i], 16, (unsigned)i);
            (void)apr_palloc(sub, 64);
        }
        for (int i = 0; i < 256; i += 2)
            apr_pfree(pool, objs[i]);
        for (int i = 1; i < 256; i += 2)
            assert_true(filled(objs[i], 16, (unsigned)i));
        /* Half of the pool's objects are on its heap now. */
        s = pool_stats(pool);
        assert_int_equal(s.live_objects, 128);
        assert_true(s.heap_free_bytes > 0);

        if (round % 2 == 0) {
            apr_pool_clear(pool);    /* also destroys sub */
        }
        else {
            apr_pool_destroy(sub);
            for (int i = 1; i < 256; i += 2)
                apr_pfree(pool, objs[i]);
        }
        s = pool_tree_stats(pool);
        assert_int_equal(s.live_objects, 0);
        assert_int_equal(s.reaps, 1);
    }
}

/* An object costs what stock APR rounds it to, 8 bytes, before and after
 * frees (no header, ever), and APR's own frees (a hash table's old array,
 * apr_psprintf()'s growing buffer) are counted as frees. */
static void test_objects_cost_stock_rounding(void **state)
{
    apr_pool_t *pool;
    char *a, *b, *c, *d;
    apr_hash_t *h;

    (void)state;
    assert_int_equal(apr_pool_create(&pool, NULL), APR_SUCCESS);
    a = apr_palloc(pool, 13);
    b = apr_palloc(pool, 13);
    assert_int_equal(b - a, 16);
    h = apr_hash_make(pool);
    for (int i = 0; i < 100; i++)
        apr_hash_set(h, apr_psprintf(pool, "k%d", i), APR_HASH_KEY_STRING, pool);
    (void)apr_psprintf(pool, "%09000d", 1); /* longer than the stack buffer */
    assert_true(pool_stats(pool).frees > 0);
    c = apr_palloc(pool, 13);
    d = apr_palloc(pool, 13);
    assert_int_equal(d - c, 16);

    apr_pfree(pool, a);
    c = apr_palloc(pool, 13);
    d = apr_palloc(pool, 13);
    assert_int_equal(d - c, 16); /* still 13 rounded to 8 */
    apr_pfree(pool, d);          /* the last before the frontier: back to it */
    assert_ptr_equal(apr_palloc(pool, 13), d);

    apr_pool_clear(pool);
    c = apr_palloc(pool, 13);
    d = apr_palloc(pool, 13);
    assert_int_equal(d - c, 16);
    apr_pool_destroy(pool);
}

/* A pool uses the arrays its hash tables outgrew (APR frees them) for what
 * it allocates next: growing tables leave no dead arrays behind, which
 * stock APR's pools keep to their clear. */
static void test_pool_reuses_outgrown_hash_arrays(void **state)
{
    apr_pool_t *pool;
    reap_stats_t s;

    (void)state;
    assert_int_equal(apr_pool_create(&pool, NULL), APR_SUCCESS);
    for (int round = 0; round < 40; round++) {
        apr_hash_t *h = apr_hash_make(pool);
        for (int i = 0; i < 2000; i++)
            apr_hash_set(h, apr_psprintf(pool, "r%d-key%d", round, i),
                         APR_HASH_KEY_STRING, pool);
        assert_int_equal(apr_hash_count(h), 2000);
    }
    s = pool_stats(pool);
    /* each round's table doubled from 16 to 2048 slots: 16,256 bytes of
     * old arrays a round, an eighth of what it keeps live: without their
     * reuse the footprint is 1.20 times the live bytes; with it, what
     * waits for the next sweep is at most an eighth of the footprint
     * (REAP_SWEEP_SHARE) */
    assert_true(s.frees >= 40 * 7);
    print_message("live %llu bytes, footprint %llu\n",
                  (unsigned long long)s.live_bytes, (unsigned long long)s.footprint);
    assert_true(s.footprint < s.live_bytes + s.live_bytes / 8 + 65536);
    apr_pool_destroy(pool);
}

/* ---- apr_prealloc -------------------------------------------------------- */

static void test_prealloc(void **state)
{
    apr_pool_t *pool = *state;
    char *p, *q;

    p = apr_prealloc(pool, NULL, 100);     /* NULL: a new block */
    assert_non_null(p);
    fill(p, 100, 9);
    q = apr_prealloc(pool, p, 100000);     /* grow keeps the content */
    assert_non_null(q);
    assert_true(filled(q, 100, 9));
    fill(q, 100000, 11);
    p = apr_prealloc(pool, q, 50);         /* shrink keeps the prefix */
    assert_non_null(p);
    assert_true(filled(p, 50, 11));
    assert_null(apr_prealloc(pool, p, 0)); /* 0: frees */
    assert_int_equal(pool_stats(pool).live_objects, 0);
}

/* ---- apr_psprintf -------------------------------------------------------- */

static void test_psprintf_after_frees(void **state)
{
    apr_pool_t *pool = *state;
    static const size_t lengths[] = { 0, 1, 31, 510, 511, 512, 513, 4000,
                                      70000, 1 << 20 };
    char *big = malloc((1 << 20) + 1);
    char expect[64];

    assert_non_null(big);
    for (int round = 0; round < 3; round++) {
        void *junk[32];

        /* Leave holes in the pool so that strings land in reused space. */
        for (int i = 0; i < 32; i++)
            junk[i] = apr_palloc(pool, 24 + i * 40);
        for (int i = 0; i < 32; i += 2)
            apr_pfree(pool, junk[i]);

        for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
            size_t n = lengths[k];
            char *s;

            memset(big, 'a' + (int)(k % 26), n);
            big[n] = '\0';
            s = apr_psprintf(pool, "<%s|%d|%s>", big, (int)n, "end");
            snprintf(expect, sizeof(expect), "|%d|end>", (int)n);
            assert_non_null(s);
            assert_int_equal(strlen(s), n + 2 + strlen(expect) - 1);
            assert_int_equal(s[0], '<');
            assert_memory_equal(s + 1, big, n);
            assert_string_equal(s + 1 + n, expect);
            if (k % 2 == 0)
                apr_pfree(pool, s);   /* a psprintf result is an object */
        }
        for (int i = 1; i < 32; i += 2)
            apr_pfree(pool, junk[i]);
    }
    assert_string_equal(apr_psprintf(pool, "%s-%05d-%x", "x", 42, 255),
                        "x-00042-ff");
    free(big);
}

/* ---- cleanups ----------------------------------------------------------- */

#define MAX_EVENTS 16
static const char *events[MAX_EVENTS];
static int n_events;

static apr_status_t record(void *data)
{
    if (n_events < MAX_EVENTS)
        events[n_events++] = data;
    return APR_SUCCESS;
}

static void test_cleanups_in_order(void **state)
{
    apr_pool_t *pool = *state, *sub;
    void *ud = NULL;
    void *freed;
    static const char *const expect[] = {
        "pre2", "pre1", "sub-pre", "sub", "c3", "c2", "c1"
    };

    for (int pass = 0; pass < 2; pass++) {   /* clear, then destroy */
        apr_pool_t *p;

        if (pass == 0)
            p = pool;
        else
            assert_int_equal(apr_pool_create(&p, pool), APR_SUCCESS);
        n_events = 0;
        assert_int_equal(apr_pool_create(&sub, p), APR_SUCCESS);
        apr_pool_cleanup_register(p, "c1", record, apr_pool_cleanup_null);
        freed = apr_palloc(p, 100);
        apr_pool_cleanup_register(p, "c2", record, apr_pool_cleanup_null);
        apr_pool_cleanup_register(sub, "sub", record, apr_pool_cleanup_null);
        apr_pool_pre_cleanup_register(sub, "sub-pre", record);
        apr_pool_pre_cleanup_register(p, "pre1", record);
        apr_pool_pre_cleanup_register(p, "pre2", record);
        apr_pfree(p, freed);
        apr_pool_cleanup_register(p, "c3", record, apr_pool_cleanup_null);
        apr_pool_cleanup_register(p, "killed", record, apr_pool_cleanup_null);
        apr_pool_cleanup_kill(p, "killed", record);
        assert_int_equal(apr_pool_userdata_setn("v", "key", NULL, p),
                         APR_SUCCESS);

        if (pass == 0)
            apr_pool_clear(p);
        else
            apr_pool_destroy(p);

        assert_int_equal(n_events, 7);
        for (int i = 0; i < 7; i++)
            assert_string_equal(events[i], expect[i]);
    }
    /* Clear reset the user data. */
    assert_int_equal(apr_pool_userdata_get(&ud, "key", pool), APR_SUCCESS);
    assert_null(ud);
}

/* ---- abort function ------------------------------------------------------ */

static int abort_calls;
static int abort_status;

static int count_abort(int status)
{
    abort_calls++;
    abort_status = status;
    return status;
}

static void test_abort_fn_on_failure(void **state)
{
    apr_pool_t *pool = *state, *sub;

    abort_calls = 0;
    assert_int_equal(apr_pool_create_ex(&sub, pool, count_abort, NULL),
                     APR_SUCCESS);
    assert_ptr_equal(apr_pool_abort_get(sub), count_abort);
    /* A limit on the pool's reap makes allocations fail on demand. */
    assert_int_equal(reap_set_limit(apr_pool_reap_get(sub), 256 * 1024), 0);
    assert_null(apr_palloc(sub, 1 << 20));
    assert_int_equal(abort_calls, 1);
    assert_int_equal(abort_status, APR_ENOMEM);
    /* The pool stays usable. */
    assert_non_null(apr_palloc(sub, 100));
    assert_int_equal(abort_calls, 1);
    apr_pool_destroy(sub);
}

/* ---- 1 GiB through one pool ------------------------------------------- */

static void test_one_gib_in_small_footprint(void **state)
{
    apr_pool_t *pool = *state;
    enum { SLOTS = 32 };
    void *slot[SLOTS] = { 0 };
    size_t size[SLOTS] = { 0 };
    unsigned long long total = 0;
    unsigned x = 12345;
    reap_stats_t s;

    while (total < (1ULL << 30)) {
        unsigned i;
        size_t n;

        x = x * 1103515245u + 12345u;
        i = (x >> 8) % SLOTS;
        n = 16 + (x >> 12) % 8177;               /* 16 .. 8192 bytes */
        if (slot[i]) {
            assert_true(filled(slot[i], size[i] < 32 ? size[i] : 32, i));
            apr_pfree(pool, slot[i]);
        }
        slot[i] = apr_palloc(pool, n);
        assert_non_null(slot[i]);
        size[i] = n;
        fill(slot[i], n < 32 ? n : 32, i);
        total += n;
    }
    s = pool_stats(pool);
    print_message("1 GiB in %llu allocations: peak footprint %llu bytes, "
                  "now %llu\n", (unsigned long long)s.allocs,
                  (unsigned long long)s.peak_footprint,
                  (unsigned long long)s.footprint);
    assert_true(s.peak_footprint < (1u << 20));
}

/* ---- the public allocator ---------------------------------------------- */

static void test_allocator_nodes(void **state)
{
    apr_allocator_t *allocator;
    apr_memnode_t *a, *b, *big;
    apr_pool_t *pool;

    (void)state;
    assert_int_equal(apr_allocator_create(&allocator), APR_SUCCESS);
    apr_allocator_max_free_set(allocator, 64 * 1024);
    assert_int_equal(apr_pool_create_ex(&pool, NULL, NULL, allocator),
                     APR_SUCCESS);
    apr_allocator_owner_set(allocator, pool);
    assert_ptr_equal(apr_pool_allocator_get(pool), allocator);

    a = apr_allocator_alloc(allocator, 1000);
    assert_non_null(a);
    assert_true(a->endp - a->first_avail >= 1000);
    assert_ptr_equal(a->first_avail, (char *)a + APR_MEMNODE_T_SIZE);
    memset(a->first_avail, 1, a->endp - a->first_avail);
    apr_allocator_free(allocator, a);
    b = apr_allocator_alloc(allocator, 1000);   /* from the free list */
    assert_ptr_equal(b, a);
    assert_true(b->endp - b->first_avail >= 1000);
    assert_null(b->next);

    big = apr_allocator_alloc(allocator, 1 << 20);  /* above max_free */
    assert_non_null(big);
    memset(big->first_avail, 2, big->endp - big->first_avail);
    big->next = b;
    apr_allocator_free(allocator, big);   /* a list: both go back */
    assert_non_null(apr_palloc(pool, 100));
    apr_pool_destroy(pool);               /* owner: takes the allocator */
}

/* Bytes the base allocator has handed out and not got back, after the
 * calling thread's cached blocks went back to the heaps. */
static apr_size_t base_in_use(void)
{
    reap_base_stats_t st;

    reap_base_trim();
    reap_get_base_stats(&st);
    return (apr_size_t)st.in_use;
}

/* Free 64 nodes of 32 KiB as one list to an allocator with max_free
 * (0: unlimited) and return how many bytes the allocator kept. */
static apr_size_t nodes_kept(apr_size_t max_free)
{
    enum { N = 64, NODE = 32 * 1024 };
    apr_allocator_t *allocator;
    apr_memnode_t *list = NULL, *n;
    apr_size_t before, after;
    int i;

    assert_int_equal(apr_allocator_create(&allocator), APR_SUCCESS);
    if (max_free)
        apr_allocator_max_free_set(allocator, max_free);
    before = base_in_use();
    for (i = 0; i < N; i++) {
        n = apr_allocator_alloc(allocator, NODE - APR_MEMNODE_T_SIZE);
        assert_non_null(n);
        memset(n->first_avail, i, n->endp - n->first_avail);
        n->next = list;
        list = n;
    }
    assert_true(base_in_use() >= before + (apr_size_t)N * NODE);
    apr_allocator_free(allocator, list);
    after = base_in_use();
    apr_allocator_destroy(allocator);   /* gives back the free lists */
    assert_true(base_in_use() <= before + 64 * 1024);
    return after > before ? after - before : 0;
}

/* Nodes beyond max_free go back to libreap's base allocator, and so can
 * return to the OS; within max_free the allocator keeps them, as stock
 * APR does, and without max_free it keeps them all. */
static void test_allocator_max_free(void **state)
{
    apr_size_t kept_bounded, kept_unlimited;

    (void)state;
    kept_bounded = nodes_kept(256 * 1024);
    kept_unlimited = nodes_kept(0);
    print_message("2 MiB of nodes freed: kept %zu bytes with max_free 256 KiB, "
                  "%zu without\n", kept_bounded, kept_unlimited);
    assert_true(kept_bounded >= 256 * 1024 - 32 * 1024);
    assert_true(kept_bounded <= 256 * 1024 + 64 * 1024);
    assert_true(kept_unlimited >= 64 * 32 * 1024);
}

/* Build a tree of 16 subpools of about 500 KB each under a new pool of
 * allocator, destroy it, and return the base allocator's in-use bytes at
 * the tree's peak. */
static apr_size_t pool_tree_peak(apr_allocator_t *allocator)
{
    apr_pool_t *root, *sub;
    apr_size_t peak;
    int i, j;

    assert_int_equal(apr_pool_create_ex(&root, NULL, NULL, allocator),
                     APR_SUCCESS);
    for (i = 0; i < 16; i++) {
        assert_int_equal(apr_pool_create(&sub, root), APR_SUCCESS);
        for (j = 0; j < 256; j++)
            memset(apr_palloc(sub, 1000 + 16 * j), j, 1000);
    }
    peak = base_in_use();
    apr_pool_destroy(root);
    return peak;
}

/* A pool tree's chunks go back to its allocator when it is destroyed: up
 * to max_free stay on the allocator's lists for the next pools to take,
 * the rest goes back to the base allocator at once, and destroying the
 * allocator gives back what it kept.  A chunk of 32 KiB or more is a large
 * object of the base allocator, a page of header before it, and counts as
 * twice its size in in_use (the address space it reserves; the rounding is
 * never touched), hence the bounds of 2 * MAX_FREE. */
static void test_pool_tree_given_back(void **state)
{
    enum { MAX_FREE = 128 * 1024 };
    apr_allocator_t *allocator;
    apr_size_t before, peak, kept, peak2, kept2;

    (void)state;
    assert_int_equal(apr_allocator_create(&allocator), APR_SUCCESS);
    apr_allocator_max_free_set(allocator, MAX_FREE);
    before = base_in_use();
    peak = pool_tree_peak(allocator);
    assert_true(peak >= before + 16 * 256 * 1000);
    kept = base_in_use() - before;
    /* The second tree takes the kept chunks first, each whole (a kept 64
     * KiB chunk may serve a request for 8 KiB, as a larger free node serves
     * a stock pool), so its peak is the first's, give or take what was
     * kept. */
    peak2 = pool_tree_peak(allocator);
    kept2 = base_in_use() - before;
    print_message("pool tree: %zu bytes above the start at its peak, %zu "
                  "kept by the allocator after destroy; again: %zu, %zu\n",
                  peak - before, kept, peak2 - before, kept2);
    assert_true(kept >= MAX_FREE / 2);
    assert_true(kept <= 2 * MAX_FREE + 64 * 1024);
    assert_true(kept2 <= 2 * MAX_FREE + 64 * 1024);
    assert_true(peak2 <= peak + 2 * MAX_FREE);
    apr_allocator_destroy(allocator);
    assert_true(base_in_use() <= before + 64 * 1024);
}

/* A pool cleared and filled again takes its chunks back from its
 * allocator's lists: the base allocator's in-use bytes stay where the
 * first round left them, through every clear (on a base that got the
 * chunks back they would fall to the first chunk) and every refill.  The
 * pool does not own the allocator: clearing the owner parks the lists
 * for the next trim (test_owner_clear_parks_the_lists). */
static void test_pool_chunks_reused(void **state)
{
    apr_allocator_t *allocator;
    apr_pool_t *pool;
    apr_size_t before, first = 0, low = (apr_size_t)-1, high = 0, now;
    int round, j;

    (void)state;
    assert_int_equal(apr_allocator_create(&allocator), APR_SUCCESS);
    assert_int_equal(apr_pool_create_ex(&pool, NULL, NULL, allocator),
                     APR_SUCCESS);
    before = base_in_use();
    for (round = 0; round < 8; round++) {
        for (j = 0; j < 400; j++)
            memset(apr_palloc(pool, 500), j, 500);
        now = base_in_use() - before;
        if (round == 0)
            first = now;
        high = now > high ? now : high;
        apr_pool_clear(pool);
        now = base_in_use() - before;
        low = now < low ? now : low;
    }
    print_message("200 KB a round: %zu bytes of chunks after the first, "
                  "%zu-%zu after each clear and refill\n", first, low, high);
    assert_true(first >= 200 * 1000);
    assert_true(low >= first - 16 * 1024);
    assert_true(high <= first);
    apr_pool_destroy(pool);
    apr_allocator_destroy(allocator);
}

/* Fill a new subpool of owner with 400 objects of 500 bytes; return it
 * and, in *first, its first object. */
static apr_pool_t *filled_subpool(apr_pool_t *owner, void **first)
{
    apr_pool_t *sub;
    int j;

    assert_int_equal(apr_pool_create(&sub, owner), APR_SUCCESS);
    for (j = 0; j < 400; j++) {
        void *p = apr_palloc(sub, 500);
        memset(p, j, 500);
        if (j == 10) /* in a chunk of the allocator's (the first two are the base's) */
            *first = p;
    }
    return sub;
}

/* An allocator keeps what its pools give back, through a trim, until the
 * pool that owns it is cleared (an MPM's connection pool, as its
 * connection closes).  Then it still keeps its lists for the next user
 * (the next subpool starts in the same chunk), but the next trim
 * (mod_reap's idle release) gives them back to the base allocator. */
static void test_owner_clear_parks_the_lists(void **state)
{
    apr_allocator_t *allocator;
    apr_pool_t *owner;
    apr_size_t before, used, kept, after;
    void *first;

    (void)state;
    assert_int_equal(apr_allocator_create(&allocator), APR_SUCCESS);
    assert_int_equal(apr_pool_create_ex(&owner, NULL, NULL, allocator),
                     APR_SUCCESS);
    apr_allocator_owner_set(allocator, owner);
    before = base_in_use();
    apr_pool_destroy(filled_subpool(owner, &first));
    used = base_in_use() - before;    /* a trim: the lists stay */
    apr_pool_clear(owner);            /* parks the allocator */
    apr_pool_destroy(filled_subpool(owner, &first));
    kept = base_in_use() - before;    /* unparked by the subpool: stay */
    apr_pool_clear(owner);
    after = base_in_use() > before ? base_in_use() - before : 0;
    print_message("a subpool of 200 KB destroyed: its allocator keeps %zu "
                  "bytes through a trim, %zu after its owner's clear and a "
                  "second subpool, %zu after the next clear and trim\n",
                  used, kept, after);
    assert_true(used >= 200 * 1000);
    /* the second subpool took its chunks from the parked lists: the base
     * allocator holds what it held after the first, give or take a chunk
     * (the second starts at the size its sibling grew to, and steps
     * differently) */
    assert_true(kept >= used - 16 * 1024);
    assert_true(kept <= used + 32 * 1024);
    assert_true(after <= 16 * 1024);
    apr_pool_destroy(owner);
}

/* apr_allocator_lists_get() follows the lists: a freed node is on them, a
 * destroyed subpool's chunks too, all of them count as parked once the
 * owner is cleared, and the trim and the allocator's destroy take them
 * off.  The figures are process-wide; nothing else here touches them. */
static void test_lists_get_counts_the_lists(void **state)
{
    apr_allocator_t *allocator;
    apr_pool_t *owner;
    apr_memnode_t *node;
    apr_size_t b0, p0, bytes, parked, node_bytes, pool_bytes;
    void *first;

    (void)state;
    reap_base_trim();
    apr_allocator_lists_get(&b0, &p0);
    assert_int_equal(p0, 0);
    assert_int_equal(apr_allocator_create(&allocator), APR_SUCCESS);
    node = apr_allocator_alloc(allocator, 20000);
    assert_non_null(node);
    node_bytes = (apr_size_t)(node->endp - (char *)node);
    apr_allocator_free(allocator, node);
    apr_allocator_lists_get(&bytes, &parked);
    assert_int_equal(bytes, b0 + node_bytes);
    assert_int_equal(parked, 0);

    assert_int_equal(apr_pool_create_ex(&owner, NULL, NULL, allocator),
                     APR_SUCCESS);
    apr_allocator_owner_set(allocator, owner);
    apr_pool_destroy(filled_subpool(owner, &first));
    apr_allocator_lists_get(&bytes, &parked);
    pool_bytes = bytes - b0 - node_bytes;
    assert_true(pool_bytes >= 200 * 1000); /* less what reused the node */
    assert_int_equal(parked, 0);
    apr_pool_clear(owner);
    apr_allocator_lists_get(&bytes, &parked);
    assert_int_equal(parked, bytes - b0);
    reap_base_trim();
    apr_allocator_lists_get(&bytes, &parked);
    assert_int_equal(bytes, b0);
    assert_int_equal(parked, 0);

    apr_pool_destroy(filled_subpool(owner, &first)); /* unparks */
    apr_allocator_lists_get(&bytes, &parked);
    assert_true(bytes > b0);
    assert_int_equal(parked, 0);
    apr_pool_destroy(owner);
    apr_allocator_lists_get(&bytes, &parked);
    assert_int_equal(bytes, b0);
}

/* ---- subpools of a shared parent from several threads ------------------ */

struct worker {
    apr_pool_t *parent;
    int failures;
};

static void *make_subpools(void *arg)
{
    struct worker *w = arg;
    apr_pool_t *live[8] = { 0 };

    for (int i = 0; i < 4000; i++) {
        int k = i % 8;
        char *s;
        void *v = NULL;

        if (live[k]) {
            if (apr_pool_userdata_get(&v, "s", live[k]) != APR_SUCCESS
                || v == NULL || strcmp(v, "subpool") != 0)
                w->failures++;
            apr_pool_destroy(live[k]);
        }
        if (apr_pool_create(&live[k], w->parent) != APR_SUCCESS) {
            w->failures++;
            live[k] = NULL;
            continue;
        }
        s = apr_pstrdup(live[k], "subpool");
        apr_pool_userdata_setn(s, "s", NULL, live[k]);
        apr_pfree(live[k], apr_palloc(live[k], 64 + i % 512));
    }
    for (int k = 0; k < 8; k++)
        if (live[k])
            apr_pool_destroy(live[k]);
    return NULL;
}

static void test_concurrent_subpools(void **state)
{
    apr_pool_t *parent;
    enum { THREADS = 4 };
    pthread_t tid[THREADS];
    struct worker w[THREADS];

    (void)state;
    /* A pool on the global allocator, which has a mutex, as stock APR
     * requires for this. */
    assert_int_equal(apr_pool_create(&parent, NULL), APR_SUCCESS);
    assert_non_null(apr_allocator_mutex_get(apr_pool_allocator_get(parent)));
    for (int t = 0; t < THREADS; t++) {
        w[t].parent = parent;
        w[t].failures = 0;
        assert_int_equal(pthread_create(&tid[t], NULL, make_subpools, &w[t]),
                         0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tid[t], NULL);
        assert_int_equal(w[t].failures, 0);
    }
    /* Every subpool detached from both the pool tree and the reap tree. */
    assert_int_equal(pool_tree_stats(parent).reaps, 1);
    apr_pool_destroy(parent);
}

/* ---- walking the pool tree ------------------------------------------------ */

#define WALK_MAX 32

struct walk_record {
    apr_pool_t *pool[WALK_MAX];
    unsigned int depth[WALK_MAX];
    const char *tag[WALK_MAX];
    int n, stop_after;
};

static int record_pool(apr_pool_t *pool, unsigned int depth, void *data)
{
    struct walk_record *w = data;

    assert_true(w->n < WALK_MAX);
    w->pool[w->n] = pool;
    w->depth[w->n] = depth;
    w->tag[w->n] = apr_pool_tag_get(pool);
    w->n++;
    return w->stop_after && w->n == w->stop_after ? 7 : 0;
}

static void test_tag_get(void **state)
{
    apr_pool_t *pool = *state, *sub;

    assert_int_equal(apr_pool_create(&sub, pool), APR_SUCCESS);
    assert_null(apr_pool_tag_get(sub));
    apr_pool_tag(sub, "first");
    assert_string_equal(apr_pool_tag_get(sub), "first");
    apr_pool_tag(sub, "second");
    apr_pool_clear(sub); /* a tag outlives clears, as in stock APR */
    assert_string_equal(apr_pool_tag_get(sub), "second");
    apr_pool_tag(sub, NULL);
    assert_null(apr_pool_tag_get(sub));
    apr_pool_destroy(sub);
}

/* pool
 *  +- a ("a", made first)
 *  |   +- a1 (untagged)
 *  +- b ("b")
 * Each pool, then its subpools' subtrees, newest first. */
static void test_walk_order_depth_tags(void **state)
{
    apr_pool_t *pool = *state, *a, *a1, *b;
    struct walk_record w = { 0 };

    apr_pool_tag(pool, "root");
    assert_int_equal(apr_pool_create(&a, pool), APR_SUCCESS);
    assert_int_equal(apr_pool_create(&b, pool), APR_SUCCESS);
    assert_int_equal(apr_pool_create(&a1, a), APR_SUCCESS);
    apr_pool_tag(a, "a");
    apr_pool_tag(b, "b");
    assert_int_equal(apr_pool_walk(pool, record_pool, &w), 0);
    assert_int_equal(w.n, 4);
    assert_ptr_equal(w.pool[0], pool);
    assert_ptr_equal(w.pool[1], b);
    assert_ptr_equal(w.pool[2], a);
    assert_ptr_equal(w.pool[3], a1);
    assert_int_equal(w.depth[0], 0);
    assert_int_equal(w.depth[1], 1);
    assert_int_equal(w.depth[2], 1);
    assert_int_equal(w.depth[3], 2);
    assert_string_equal(w.tag[0], "root");
    assert_string_equal(w.tag[1], "b");
    assert_string_equal(w.tag[2], "a");
    assert_null(w.tag[3]);

    /* Stopping early: the callback's value comes back. */
    for (int stop = 1; stop <= 4; stop++) {
        struct walk_record s = { .stop_after = stop };
        assert_int_equal(apr_pool_walk(pool, record_pool, &s), 7);
        assert_int_equal(s.n, stop);
    }

    /* A destroyed subpool and a cleared one's subpools are gone. */
    apr_pool_destroy(b);
    apr_pool_clear(a);
    memset(&w, 0, sizeof w);
    assert_int_equal(apr_pool_walk(pool, record_pool, &w), 0);
    assert_int_equal(w.n, 2);
    assert_ptr_equal(w.pool[1], a);
}

/* NULL walks from the global pool, which holds every pool but unmanaged
 * ones; a pool's reap figures are reachable from the callback. */
struct find_pool {
    apr_pool_t *want;
    unsigned int depth;
    uint64_t footprint;
    int found, unmanaged_seen;
};

static int find_pool(apr_pool_t *pool, unsigned int depth, void *data)
{
    struct find_pool *f = data;
    const char *tag = apr_pool_tag_get(pool);

    if (tag != NULL && strcmp(tag, "unmanaged-walk") == 0)
        f->unmanaged_seen = 1;
    if (pool != f->want)
        return 0;
    f->found = 1;
    f->depth = depth;
    f->footprint = reap_footprint(apr_pool_reap_get(pool), NULL);
    return 0;
}

static void test_walk_from_global_pool(void **state)
{
    apr_pool_t *pool = *state, *sub, *unmanaged;
    struct find_pool f = { 0 };

    assert_int_equal(apr_pool_create(&sub, pool), APR_SUCCESS);
    assert_int_equal(apr_pool_create_unmanaged(&unmanaged), APR_SUCCESS);
    apr_pool_tag(unmanaged, "unmanaged-walk");
    for (int i = 0; i < 64; i++)
        fill(apr_palloc(sub, 16384), 16384, (unsigned)i);
    f.want = sub;
    assert_int_equal(apr_pool_walk(NULL, find_pool, &f), 0);
    assert_true(f.found);
    /* global pool -> pool (setup_pool's, parent NULL) -> sub */
    assert_int_equal(f.depth, 2);
    assert_true(f.footprint >= 64 * 16384);
    assert_false(f.unmanaged_seen);
    apr_pool_destroy(unmanaged);
}

/* Walks while threads make, use and destroy subpools of the walked pool:
 * every pool handed over is a live, tagged pool of the tree. */
struct walk_shared {
    apr_pool_t *parent;
    volatile int stop;
    long walks, bad;
};

static int check_walked(apr_pool_t *pool, unsigned int depth, void *data)
{
    struct walk_shared *sh = data;
    const char *tag = apr_pool_tag_get(pool);

    if (depth == 0 ? pool != sh->parent
                   : apr_pool_parent_get(pool) != sh->parent
                     || reap_footprint(apr_pool_reap_get(pool), NULL) == 0
                     || (tag != NULL && strcmp(tag, "walked") != 0))
        sh->bad++;
    return 0;
}

static void *walk_loop(void *arg)
{
    struct walk_shared *sh = arg;

    while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
        apr_pool_walk(sh->parent, check_walked, sh);
        __atomic_add_fetch(&sh->walks, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void *make_tagged_subpools(void *arg)
{
    struct worker *w = arg;

    for (int i = 0; i < 3000; i++) {
        apr_pool_t *p;

        if (apr_pool_create(&p, w->parent) != APR_SUCCESS) {
            w->failures++;
            continue;
        }
        apr_pool_tag(p, "walked");
        apr_pfree(p, apr_palloc(p, 64 + i % 4000));
        apr_palloc(p, 1000);
        apr_pool_destroy(p);
    }
    return NULL;
}

static void test_walk_while_threads_make_pools(void **state)
{
    enum { THREADS = 3 };
    struct walk_shared sh = { 0 };
    struct worker w[THREADS];
    pthread_t tid[THREADS], walker;

    (void)state;
    assert_int_equal(apr_pool_create(&sh.parent, NULL), APR_SUCCESS);
    assert_int_equal(pthread_create(&walker, NULL, walk_loop, &sh), 0);
    /* The workers start once the walker has walked: under load it may
     * otherwise first run after they are all done (it did once in CI),
     * and walk nothing while they work.  It keeps walking meanwhile. */
    while (__atomic_load_n(&sh.walks, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    for (int t = 0; t < THREADS; t++) {
        w[t].parent = sh.parent;
        w[t].failures = 0;
        assert_int_equal(pthread_create(&tid[t], NULL, make_tagged_subpools,
                                        &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tid[t], NULL);
        assert_int_equal(w[t].failures, 0);
    }
    __atomic_store_n(&sh.stop, 1, __ATOMIC_RELEASE);
    pthread_join(walker, NULL);
    assert_true(sh.walks > 0);
    assert_int_equal(sh.bad, 0);
    apr_pool_destroy(sh.parent);
}

/* ---- misuse --------------------------------------------------------------- */

/* Run fn in a child process with its stderr in buf; return whether the
 * child died of SIGABRT. */
static int dies_with_abort(void (*fn)(void), char *buf, size_t len)
{
    int fds[2], status;
    size_t got = 0;
    ssize_t n;
    pid_t pid;

    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        fn();
        _exit(0);
    }
    close(fds[1]);
    while (got + 1 < len && (n = read(fds[0], buf + got, len - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* Each misuse writes "PTR=<pointer>" before misbehaving, so the parent can
 * check that the report names that pointer. */
static void double_free(void)
{
    apr_pool_t *pool;
    void *p;

    apr_pool_create(&pool, NULL);
    p = apr_palloc(pool, 100);
    (void)apr_palloc(pool, 100);
    fprintf(stderr, "PTR=%p\n", p);
    apr_pfree(pool, p);
    apr_pfree(pool, p);
}

static void foreign_free(void)
{
    apr_pool_t *a, *b;
    void *p;

    apr_pool_create(&a, NULL);
    apr_pool_create(&b, NULL);
    p = apr_palloc(b, 100);
    fprintf(stderr, "PTR=%p\n", p);
    apr_pfree(a, p);
}

static void parent_frees_child_object(void)
{
    apr_pool_t *a, *sub;
    void *p;

    apr_pool_create(&a, NULL);
    apr_pool_create(&sub, a);
    p = apr_palloc(sub, 100);
    fprintf(stderr, "PTR=%p\n", p);
    apr_pfree(a, p);
}

static void check_misuse(void (*fn)(void))
{
    char out[4096], ptr[64];
    const char *mark, *report;
    int aborted;

    aborted = dies_with_abort(fn, out, sizeof(out));
    print_message("child said: %s", out);
    assert_true(aborted);
    mark = strstr(out, "PTR=");
    assert_non_null(mark);
    assert_int_equal(sscanf(mark + 4, "%63s", ptr), 1);
    /* The report, after the marker line, names the pointer. */
    report = strchr(mark, '\n');
    assert_non_null(report);
    assert_non_null(strstr(report, ptr));
}

static void test_misuse_double_pfree(void **state)
{
    (void)state;
    check_misuse(double_free);
}

static void test_misuse_foreign_pointer(void **state)
{
    (void)state;
    check_misuse(foreign_free);
}

static void test_misuse_parent_frees_child_object(void **state)
{
    (void)state;
    check_misuse(parent_frees_child_object);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pool_is_reap, setup_pool,
                                        teardown_pool),
        cmocka_unit_test(test_unmanaged_pool),
        cmocka_unit_test_setup_teardown(test_pfree_null_is_noop, setup_pool,
                                        teardown_pool),
        cmocka_unit_test(test_objects_cost_stock_rounding),
        cmocka_unit_test(test_pool_reuses_outgrown_hash_arrays),
        cmocka_unit_test_setup_teardown(test_pfree_then_reuse, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_pcalloc_after_pfree_is_zero,
                                        setup_pool, teardown_pool),
        cmocka_unit_test_setup_teardown(test_pfree_in_subpools, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_pfree_mixed_with_clear_and_destroy,
                                        setup_pool, teardown_pool),
        cmocka_unit_test_setup_teardown(test_prealloc, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_psprintf_after_frees, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_cleanups_in_order, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_abort_fn_on_failure, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_one_gib_in_small_footprint,
                                        setup_pool, teardown_pool),
        cmocka_unit_test(test_allocator_nodes),
        cmocka_unit_test(test_allocator_max_free),
        cmocka_unit_test(test_pool_chunks_reused),
        cmocka_unit_test(test_owner_clear_parks_the_lists),
        cmocka_unit_test(test_pool_tree_given_back),
        cmocka_unit_test(test_concurrent_subpools),
        cmocka_unit_test_setup_teardown(test_tag_get, setup_pool,
                                        teardown_pool),
        cmocka_unit_test_setup_teardown(test_walk_order_depth_tags,
                                        setup_pool, teardown_pool),
        cmocka_unit_test_setup_teardown(test_walk_from_global_pool,
                                        setup_pool, teardown_pool),
        cmocka_unit_test(test_walk_while_threads_make_pools),
        cmocka_unit_test(test_lists_get_counts_the_lists),
        cmocka_unit_test(test_misuse_double_pfree),
        cmocka_unit_test(test_misuse_foreign_pointer),
        cmocka_unit_test(test_misuse_parent_frees_child_object),
    };

    return run_apr_tests(tests);
}
