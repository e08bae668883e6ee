/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_reap.c - reap objects: creation, the user area, nesting, clear and
 * destroy order, tags, limits over a subtree, the child-list lock.  Sees
 * internals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static size_t count_children(reap_t *r)
{
    size_t n = 0;
    for (reap_t *c = r->children; c; c = c->next_sibling)
        n++;
    return n;
}

static void create_links_children_both_ways(void **state)
{
    (void)state;
    reap_t *p = reap_create(NULL);
    reap_t *a = reap_create(p), *b = reap_create(p), *aa = reap_create(a);
    assert_ptr_equal(reap_parent(a), p);
    assert_ptr_equal(reap_parent(aa), a);
    assert_null(reap_parent(p));
    assert_int_equal(count_children(p), 2);
    reap_destroy(a); /* takes aa with it */
    assert_int_equal(count_children(p), 1);
    assert_ptr_equal(p->children, b);
    reap_destroy(p);
}

static void clear_destroys_children_and_keeps_the_reap(void **state)
{
    (void)state;
    reap_t *p = reap_create(NULL);
    reap_t *a = reap_create(p);
    reap_create(a);
    reap_create(p);
    reap_stats_t s;
    reap_get_tree_stats(p, &s);
    assert_int_equal(s.reaps, 4);
    reap_clear(p);
    reap_get_tree_stats(p, &s);
    assert_int_equal(s.reaps, 1);
    assert_null(p->children);
    assert_non_null(reap_malloc(p, 10)); /* still usable */
    assert_non_null(reap_create(p));
    reap_destroy(p);
}

static void user_area_is_zeroed_and_survives_clear(void **state)
{
    (void)state;
    reap_options_t o = {.user_size = 100};
    reap_t *r = reap_create_ex(NULL, &o);
    unsigned char *u = reap_user_area(r);
    assert_non_null(u);
    assert_int_equal((uintptr_t)u % REAP_ALIGNMENT, 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(u[i], 0);
    memset(u, 0xab, 100);
    for (int i = 0; i < 3000; i++)
        memset(reap_malloc(r, 64), 0xcd, 64);
    reap_clear(r);
    for (int i = 0; i < 100; i++)
        assert_int_equal(u[i], 0xab);
    char *p = reap_malloc(r, 32);
    assert_true(p >= (char *)u + 100);
    reap_destroy(r);
    r = reap_create(NULL);
    assert_null(reap_user_area(r));
    reap_destroy(r);
    o.user_size = REAP_USER_MAX;
    r = reap_create_ex(NULL, &o);
    assert_non_null(r);
    reap_destroy(r);
    o.user_size = REAP_USER_MAX + 1;
    assert_null(reap_create_ex(NULL, &o));
}

static void limit_refuses_and_the_reap_goes_on(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_int_equal(reap_set_limit(r, 64 << 10), 0);
    assert_int_equal(reap_get_limit(r), 64 << 10);
    size_t got = 0;
    void *p;
    while ((p = reap_malloc(r, 1000)) != NULL)
        got++;
    assert_true(got > 20 && got < 64);
    reap_stats_t s;
    reap_get_stats(r, &s);
    assert_true(s.footprint <= 64 << 10);
    assert_true(s.limit_failures >= 1);
    assert_null(reap_malloc(r, 200000)); /* a large object too */
    p = reap_malloc(r, 16);              /* what still fits, fits */
    (void)p;
    reap_set_limit(r, 0);
    assert_non_null(reap_malloc(r, 200000));
    assert_int_equal(reap_get_limit(r), 0);
    reap_destroy(r);
}

/* Every refusal counts, also when the doubling chunk size is already the
 * least that serves and no retry follows (found by fuzz/fuzz_reap). */
static void every_refusal_is_counted(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_non_null(reap_malloc(r, 7576));
    reap_set_limit(r, 1);
    reap_stats_t s;
    for (uint64_t n = 1; n <= 3; n++) {
        assert_null(reap_malloc(r, 12384));
        reap_get_stats(r, &s);
        assert_int_equal(s.limit_failures, n);
    }
    reap_destroy(r);
}

/* A reap at its limit still uses again what it frees: the lists it needs
 * for that, refused by the limit, are carved from its own memory. */
static void blocks_freed_under_a_limit_are_reused(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    void *objs[4000];
    size_t n = 0;
    reap_set_limit(r, 64 << 10);
    while ((objs[n] = reap_malloc(r, 200)) != NULL)
        n++;
    assert_true(n > 100);
    for (size_t i = 0; i < n; i += 2)
        reap_free(r, objs[i]);
    rp_heap_check(r);
    reap_stats_t s;
    reap_get_stats(r, &s);
    uint64_t failures = s.limit_failures;
    for (size_t i = 0; i + 8 < n; i += 2) /* all but a few, which the lists took */
        assert_non_null(reap_malloc(r, 200));
    reap_get_stats(r, &s);
    assert_true(s.footprint <= 64 << 10);
    assert_true(s.limit_failures > failures); /* the lists' memory was refused */
    /* the lists, if any, are carved: nothing of the base allocator's */
    assert_true(r->heap == NULL || r->heap->carved);
    rp_heap_check(r);
    reap_clear(r);
    assert_null(r->heap);
    reap_destroy(r);
}

static void limit_covers_the_subtree(void **state)
{
    (void)state;
    reap_t *top = reap_create(NULL);
    reap_t *kid = reap_create(top);
    reap_t *grandkid = reap_create(kid);
    reap_set_limit(top, 256 << 10);
    int n = 0;
    while (reap_malloc(grandkid, 30000))
        n++;
    assert_true(n > 2);
    reap_stats_t s;
    reap_get_tree_stats(top, &s);
    assert_true(s.footprint <= 256 << 10);
    assert_int_equal(s.footprint, atomic_load(&top->tree_footprint));
    /* children's first chunks count too: creating them stops at the limit */
    int made = 0;
    while (reap_create(kid))
        made++;
    assert_true(made < (256 << 10) / (8 << 10));
    reap_get_tree_stats(top, &s);
    assert_true(s.footprint <= 256 << 10);
    /* freeing memory in the subtree makes room again */
    reap_clear(grandkid);
    assert_non_null(reap_malloc(grandkid, 30000));
    reap_destroy(kid);
    assert_int_equal(atomic_load(&top->tree_footprint), top->footprint);
    reap_destroy(top);
}

static void nested_limits_both_hold(void **state)
{
    (void)state;
    reap_t *top = reap_create(NULL);
    reap_t *kid = reap_create(top);
    reap_set_limit(top, 1 << 20);
    reap_set_limit(kid, 100 << 10);
    while (reap_malloc(kid, 4000))
        ;
    reap_stats_t s;
    reap_get_tree_stats(kid, &s);
    assert_true(s.footprint <= 100 << 10);
    reap_t *other = reap_create(top);
    while (reap_malloc(other, 4000))
        ;
    reap_get_tree_stats(top, &s);
    assert_true(s.footprint <= 1 << 20);
    assert_true(s.footprint > 900 << 10);
    reap_destroy(top);
}

/* ---- lock.h ---------------------------------------------------------------------- */

typedef struct lock_race {
    rp_lock_t lock;
    unsigned long count; /* plain: only the lock keeps the increments whole */
    int inside;          /* threads between rp_lock and rp_unlock */
    int overlaps;
} lock_race;

enum { RACE_THREADS = 4, RACE_ROUNDS = 100000 };

static void *race(void *arg)
{
    lock_race *lr = arg;
    for (int i = 0; i < RACE_ROUNDS; i++) {
        rp_lock(&lr->lock);
        if (__atomic_fetch_add(&lr->inside, 1, __ATOMIC_RELAXED) != 0)
            __atomic_fetch_add(&lr->overlaps, 1, __ATOMIC_RELAXED);
        unsigned long c = lr->count;
        if (i % 64 == 0)
            sched_yield(); /* lengthen some holds so others queue and sleep */
        lr->count = c + 1;
        __atomic_fetch_sub(&lr->inside, 1, __ATOMIC_RELAXED);
        rp_unlock(&lr->lock);
    }
    return NULL;
}

/* Threads hammering one lock: no two inside at once, no increment lost,
 * and the word free at the end (every waiter woken and gone). */
static void lock_excludes_under_contention(void **state)
{
    (void)state;
    lock_race lr = {.count = 0};
    pthread_t t[RACE_THREADS];
    rp_lock_init(&lr.lock);
    for (int i = 0; i < RACE_THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, race, &lr), 0);
    for (int i = 0; i < RACE_THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(lr.overlaps, 0);
    assert_int_equal(lr.count, (unsigned long)RACE_THREADS * RACE_ROUNDS);
    assert_int_equal(atomic_load(&lr.lock.word), 0);
}

static void *take_and_release(void *arg)
{
    rp_lock_t *l = arg;
    rp_lock(l);
    rp_unlock(l);
    return NULL;
}

/* A thread that finds the lock held marks it "waiters" (2) and sleeps; the
 * unlock wakes it and it gets the lock. */
static void waiter_sleeps_and_is_woken(void **state)
{
    (void)state;
    rp_lock_t l;
    pthread_t t;
    rp_lock_init(&l);
    rp_lock(&l);
    assert_int_equal(atomic_load(&l.word), 1);
    assert_int_equal(pthread_create(&t, NULL, take_and_release, &l), 0);
    while (atomic_load(&l.word) != 2) /* the waiter has marked it */
        sched_yield();
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL); /* let it sleep */
    rp_unlock(&l);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(atomic_load(&l.word), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_links_children_both_ways),
        cmocka_unit_test(clear_destroys_children_and_keeps_the_reap),
        cmocka_unit_test(user_area_is_zeroed_and_survives_clear),
        cmocka_unit_test(limit_refuses_and_the_reap_goes_on),
        cmocka_unit_test(every_refusal_is_counted),
        cmocka_unit_test(blocks_freed_under_a_limit_are_reused),
        cmocka_unit_test(limit_covers_the_subtree),
        cmocka_unit_test(nested_limits_both_hold),
        cmocka_unit_test(lock_excludes_under_contention),
        cmocka_unit_test(waiter_sleeps_and_is_woken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
