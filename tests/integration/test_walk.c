/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_walk.c - reap_walk() and reap_footprint() through the public API:
 * the order and depths of a walk, stopping early, reading user areas and
 * footprints from the callback, walks that see reaps destroyed and
 * cleared; then a walker thread going over a shared parent again and again
 * while worker threads create, use and destroy children and grandchildren
 * under it.  Build it with -fsanitize=thread by hand to check the locking
 * (see tests/local.mk).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "reap.h"

/* ---- single-threaded semantics ------------------------------------------------- */

#define MAX_SEEN 64

/* What a walk saw, in order. */
typedef struct seen {
    reap_t *reap[MAX_SEEN];
    unsigned depth[MAX_SEEN];
    int n;
    int stop_at; /* stop after this many visits (0: never) */
} seen_t;

static int record(reap_t *r, unsigned depth, void *arg)
{
    seen_t *s = arg;
    assert_true(s->n < MAX_SEEN);
    s->reap[s->n] = r;
    s->depth[s->n] = depth;
    s->n++;
    return s->stop_at && s->n == s->stop_at ? 42 : 0;
}

/* root
 *  +- a            (created first)
 *  |   +- a1
 *  |   +- a2
 *  +- b
 *      +- b1                                                            */
typedef struct tree {
    reap_t *root, *a, *a1, *a2, *b, *b1;
} tree_t;

static tree_t make_tree(size_t user_size)
{
    reap_options_t o = {.user_size = user_size};
    tree_t t;
    t.root = reap_create_ex(NULL, &o);
    t.a = reap_create_ex(t.root, &o);
    t.b = reap_create_ex(t.root, &o);
    t.a1 = reap_create_ex(t.a, &o);
    t.a2 = reap_create_ex(t.a, &o);
    t.b1 = reap_create_ex(t.b, &o);
    assert_non_null(t.root);
    assert_non_null(t.b1);
    return t;
}

/* Depth first, each reap before its subtree, children newest first. */
static void order_and_depth(void **state)
{
    (void)state;
    tree_t t = make_tree(0);
    seen_t s = {0};
    assert_int_equal(reap_walk(t.root, record, &s), 0);
    reap_t *want[] = {t.root, t.b, t.b1, t.a, t.a2, t.a1};
    unsigned depth[] = {0, 1, 2, 1, 2, 2};
    assert_int_equal(s.n, 6);
    for (int i = 0; i < 6; i++) {
        assert_ptr_equal(s.reap[i], want[i]);
        assert_int_equal(s.depth[i], depth[i]);
    }
    reap_destroy(t.root);
}

/* A walk from an inner reap covers its subtree only, with depths from it. */
static void subtree_walk(void **state)
{
    (void)state;
    tree_t t = make_tree(0);
    seen_t s = {0};
    assert_int_equal(reap_walk(t.a, record, &s), 0);
    assert_int_equal(s.n, 3);
    assert_ptr_equal(s.reap[0], t.a);
    assert_int_equal(s.depth[0], 0);
    assert_ptr_equal(s.reap[1], t.a2);
    assert_int_equal(s.depth[1], 1);
    assert_ptr_equal(s.reap[2], t.a1);
    reap_destroy(t.root);
}

/* A non-zero return stops at once and comes back from reap_walk(). */
static void early_stop(void **state)
{
    (void)state;
    tree_t t = make_tree(0);
    for (int stop = 1; stop <= 6; stop++) {
        seen_t s = {.stop_at = stop};
        assert_int_equal(reap_walk(t.root, record, &s), 42);
        assert_int_equal(s.n, stop);
    }
    reap_destroy(t.root);
}

/* The callback reads each reap's user area: every reap is visited once. */
static int sum_ids(reap_t *r, unsigned depth, void *arg)
{
    uint64_t *id = reap_user_area(r);
    assert_non_null(id);
    *(uint64_t *)arg += *id + 100 * depth;
    return 0;
}

static void user_areas(void **state)
{
    (void)state;
    tree_t t = make_tree(sizeof(uint64_t));
    reap_t *all[] = {t.root, t.a, t.a1, t.a2, t.b, t.b1};
    for (int i = 0; i < 6; i++)
        *(uint64_t *)reap_user_area(all[i]) = (uint64_t)1 << i;
    uint64_t sum = 0;
    assert_int_equal(reap_walk(t.root, sum_ids, &sum), 0);
    /* ids 1+2+...+32 = 63; depths 0+1+2+2+1+2 = 8 */
    assert_int_equal(sum, 63 + 800);
    reap_destroy(t.root);
}

/* Destroyed reaps and the children of a cleared one are no longer seen. */
static void destroyed_and_cleared(void **state)
{
    (void)state;
    tree_t t = make_tree(0);
    reap_destroy(t.a2);
    reap_clear(t.b);
    seen_t s = {0};
    assert_int_equal(reap_walk(t.root, record, &s), 0);
    assert_int_equal(s.n, 4);
    assert_ptr_equal(s.reap[0], t.root);
    assert_ptr_equal(s.reap[1], t.b);
    assert_ptr_equal(s.reap[2], t.a);
    assert_ptr_equal(s.reap[3], t.a1);
    reap_destroy(t.root);
}

/* reap_footprint() agrees with reap_get_stats() and follows growth. */
static void footprint_reader(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    uint64_t peak0, fp0 = reap_footprint(r, &peak0);
    reap_stats_t st;
    reap_get_stats(r, &st);
    assert_int_equal(fp0, st.footprint);
    assert_int_equal(peak0, st.peak_footprint);
    assert_true(fp0 > 0);
    for (int i = 0; i < 100; i++)
        assert_non_null(reap_malloc(r, 1000));
    uint64_t peak1, fp1 = reap_footprint(r, &peak1);
    assert_true(fp1 >= fp0 + 100 * 1000);
    assert_true(peak1 >= fp1);
    reap_clear(r);
    uint64_t peak2, fp2 = reap_footprint(r, &peak2);
    assert_true(fp2 < fp1);
    assert_int_equal(peak2, peak1);
    assert_int_equal(reap_footprint(r, NULL), fp2);
    reap_destroy(r);
}

/* ---- a walker among threads that change the tree --------------------------- */

#define WORKERS 4
#define ROUNDS 2000
#define MAGIC UINT64_C(0x5eed5eed5eed5eed)

typedef struct shared {
    reap_t *parent;
    atomic_int stop;
    atomic_long walks, visits, failures;
} shared_t;

/* cmocka's asserts must stay on the main thread (they longjmp to it):
 * the other threads count failed checks and print the first few. */
#define CHECK(sh, cond)                                                        \
    do {                                                                       \
        if (!(cond) && atomic_fetch_add(&(sh)->failures, 1) < 5)               \
            fprintf(stderr, "test_walk.c:%d: check failed: %s\n", __LINE__,   \
                    #cond);                                                    \
    } while (0)

/* A worker marks each reap it made through its user area (atomically: the
 * walker may read it at the same moment). */
static reap_t *make_marked(shared_t *sh, reap_t *parent)
{
    reap_options_t o = {.user_size = sizeof(uint64_t)};
    reap_t *r = reap_create_ex(parent, &o);
    CHECK(sh, r != NULL);
    if (r)
        __atomic_store_n((uint64_t *)reap_user_area(r), MAGIC, __ATOMIC_RELAXED);
    return r;
}

static void *worker(void *arg)
{
    shared_t *sh = arg;
    /* Start once the walker has walked: under load it may otherwise first
     * run after every worker is done (it did once), and walk nothing. */
    while (atomic_load(&sh->walks) == 0)
        sched_yield();
    for (int i = 0; i < ROUNDS; i++) {
        reap_t *kid = make_marked(sh, sh->parent);
        if (!kid)
            return NULL;
        reap_t *grandkid = i % 3 == 0 ? make_marked(sh, kid) : NULL;
        for (int j = 0; j < 20; j++) {
            char *p = reap_malloc(kid, (size_t)(16 + (i * 7 + j * 131) % 5000));
            CHECK(sh, p != NULL);
            if (!p)
                break;
            memset(p, j, 16);
            if (j % 2)
                reap_free(kid, p);
            if (grandkid)
                CHECK(sh, reap_malloc(grandkid, 200) != NULL);
        }
        if (i % 5 == 0)
            reap_clear(kid); /* destroys the grandkid */
        else if (grandkid && i % 2 == 0)
            reap_destroy(grandkid);
        reap_destroy(kid);
    }
    return NULL;
}

typedef struct walk_state {
    shared_t *sh;
    long visits, limit;
} walk_state_t;

/* Checks what must hold of any reap the walk hands over, whatever the
 * workers are doing: its place in the tree, its mark, a footprint. */
static int check_visit(reap_t *r, unsigned depth, void *arg)
{
    walk_state_t *w = arg;
    shared_t *sh = w->sh;
    CHECK(sh, depth <= 2);
    if (depth == 0) {
        CHECK(sh, r == sh->parent);
    } else {
        uint64_t mark = __atomic_load_n((uint64_t *)reap_user_area(r), __ATOMIC_RELAXED);
        CHECK(sh, mark == 0 || mark == MAGIC); /* 0: not marked yet */
        reap_t *up = reap_parent(r);
        CHECK(sh, depth == 1 ? up == sh->parent : reap_parent(up) == sh->parent);
    }
    uint64_t peak, fp = reap_footprint(r, &peak);
    CHECK(sh, fp > 0);
    CHECK(sh, peak >= fp);
    w->visits++;
    return w->limit && w->visits >= w->limit ? 1 : 0;
}

static void *walker(void *arg)
{
    shared_t *sh = arg;
    while (!atomic_load(&sh->stop)) {
        long n = atomic_load(&sh->walks);
        walk_state_t w = {.sh = sh, .limit = n % 4 == 3 ? 3 : 0}; /* sometimes stop early */
        int rc = reap_walk(sh->parent, check_visit, &w);
        CHECK(sh, rc == 0 || (w.limit && rc == 1 && w.visits == w.limit));
        atomic_fetch_add(&sh->walks, 1);
        atomic_fetch_add(&sh->visits, w.visits);
    }
    return NULL;
}

static void walk_while_threads_change_the_tree(void **state)
{
    (void)state;
    shared_t sh = {.parent = reap_create(NULL)};
    pthread_t t[WORKERS], wk;
    pthread_create(&wk, NULL, walker, &sh);
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, &sh);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    atomic_store(&sh.stop, 1);
    pthread_join(wk, NULL);
    assert_int_equal(atomic_load(&sh.failures), 0);
    assert_true(atomic_load(&sh.walks) > 0);
    assert_true(atomic_load(&sh.visits) >= atomic_load(&sh.walks));
    print_message("%ld walks visited %ld reaps\n", atomic_load(&sh.walks),
                  atomic_load(&sh.visits));
    seen_t s = {0}; /* all workers are done: only the parent is left */
    assert_int_equal(reap_walk(sh.parent, record, &s), 0);
    assert_int_equal(s.n, 1);
    reap_destroy(sh.parent);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_and_depth),
        cmocka_unit_test(subtree_walk),
        cmocka_unit_test(early_stop),
        cmocka_unit_test(user_areas),
        cmocka_unit_test(destroyed_and_cleared),
        cmocka_unit_test(footprint_reader),
        cmocka_unit_test(walk_while_threads_change_the_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
