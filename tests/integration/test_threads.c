/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_threads.c - children of one shared parent created, used and
 * destroyed from several threads at once, with and without a limit on the
 * parent, while another thread reads the parent's subtree statistics.
 * Every object is filled with a pattern unique to its thread and object and
 * read back before it is freed or its reap destroyed, so blocks handed to
 * two owners at once show.  cmocka is not thread-safe: the threads record
 * what went wrong, and the main thread asserts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "reap.h"

#define THREADS 8
#define ROUNDS 3000
#define OBJECTS 50

typedef struct shared {
    reap_t *parent;
    size_t limit;
    atomic_int stop;
    atomic_long refused;
} shared_t;

/* What one thread saw go wrong; read by the main thread after the join. */
typedef struct result {
    long corrupted;   /* objects whose pattern changed under them */
    long bad_figures; /* reader: figures out of bounds */
    char first[160];  /* the first problem, said */
} result_t;

typedef struct worker_arg {
    shared_t *sh;
    int id;
    result_t res;
} worker_arg_t;

typedef struct object {
    unsigned char *p;
    size_t n;
    uint32_t seed;
} object_t;

/* The pattern of object (thread, round, index): 32-bit words seed + k *
 * golden ratio, with a seed distinct for each (thread, round, index) (an
 * odd multiplier is a bijection), so an object written over by another one
 * no longer reads back as its own. */
static uint32_t seed_of(int thread, int round, int index)
{
    return ((uint32_t)thread << 24 | (uint32_t)round << 8 | (uint32_t)index) * 2654435761u + 1;
}

static uint32_t word_at(uint32_t seed, size_t k) { return seed + (uint32_t)k * 0x9E3779B9u; }

static void fill(const object_t *o)
{
    size_t k = 0;
    for (; k < o->n / 4; k++) {
        uint32_t w = word_at(o->seed, k);
        memcpy(o->p + 4 * k, &w, 4);
    }
    uint32_t w = word_at(o->seed, k);
    memcpy(o->p + 4 * k, &w, o->n % 4);
}

static void note(result_t *res, const char *what)
{
    if (res->first[0] == 0)
        snprintf(res->first, sizeof res->first, "%s", what);
}

/* Read o back; count and describe a mismatch in res. */
static void verify(const object_t *o, result_t *res)
{
    for (size_t k = 0; 4 * k < o->n; k++) {
        uint32_t want = word_at(o->seed, k), got = 0;
        size_t len = o->n - 4 * k < 4 ? o->n - 4 * k : 4;
        memcpy(&got, o->p + 4 * k, len);
        if (len < 4)
            want &= (1u << (8 * len)) - 1; /* little-endian tail */
        if (got != want) {
            char msg[160];
            snprintf(msg, sizeof msg, "object %p of %zu bytes (seed %08x) changed at byte %zu",
                     (void *)o->p, o->n, o->seed, 4 * k);
            note(res, msg);
            res->corrupted++;
            return;
        }
    }
}

static void verify_all(const object_t *objs, int n, result_t *res)
{
    for (int k = 0; k < n; k++)
        verify(&objs[k], res);
}

static void *worker(void *arg)
{
    worker_arg_t *wa = arg;
    shared_t *sh = wa->sh;
    object_t kept[OBJECTS], small[OBJECTS];
    for (int i = 0; i < ROUNDS; i++) {
        reap_t *kid = reap_create(sh->parent);
        if (!kid) {
            atomic_fetch_add(&sh->refused, 1);
            continue;
        }
        reap_t *grandkid = (i % 4 == 0) ? reap_create(kid) : NULL;
        int nkept = 0, nsmall = 0;
        for (int j = 0; j < OBJECTS; j++) {
            object_t o = {.n = (size_t)(16 + (i * j) % 3000), .seed = seed_of(wa->id, i, j)};
            o.p = reap_malloc(kid, o.n);
            if (!o.p) {
                atomic_fetch_add(&sh->refused, 1);
                break;
            }
            fill(&o);
            if (j % 2) {
                verify(&o, &wa->res);
                reap_free(kid, o.p);
            } else {
                kept[nkept++] = o;
            }
            if (grandkid) {
                object_t g = {.n = 100, .seed = seed_of(wa->id, i, OBJECTS + j)};
                g.p = reap_malloc(grandkid, g.n);
                if (g.p) {
                    fill(&g);
                    small[nsmall++] = g;
                }
            }
        }
        verify_all(kept, nkept, &wa->res);
        verify_all(small, nsmall, &wa->res);
        if (grandkid && i % 8 == 0)
            reap_destroy(grandkid); /* else the kid's destroy takes it */
        reap_destroy(kid);
    }
    return NULL;
}

static void *reader(void *arg)
{
    worker_arg_t *wa = arg;
    shared_t *sh = wa->sh;
    while (!atomic_load(&sh->stop)) {
        reap_stats_t s;
        reap_get_tree_stats(sh->parent, &s);
        if (s.reaps < 1) {
            wa->res.bad_figures++;
            note(&wa->res, "the subtree counted no reap");
        }
        /* racy sum, bounded */
        if (sh->limit && s.footprint > sh->limit + (1u << 20)) {
            char msg[160];
            snprintf(msg, sizeof msg, "subtree footprint %llu past the limit %zu + 1 MiB",
                     (unsigned long long)s.footprint, sh->limit);
            wa->res.bad_figures++;
            note(&wa->res, msg);
        }
    }
    return NULL;
}

/* Assert, in the main thread, that a thread saw nothing wrong. */
static void assert_clean(const char *who, const result_t *res)
{
    if (res->corrupted || res->bad_figures)
        fail_msg("%s: %ld corrupted object(s), %ld bad figure(s); first: %s", who,
                 res->corrupted, res->bad_figures, res->first);
}

static void run(size_t limit)
{
    shared_t sh = {.parent = reap_create(NULL), .limit = limit};
    if (limit)
        reap_set_limit(sh.parent, limit);
    reap_stats_t before, after;
    reap_get_tree_stats(sh.parent, &before);
    pthread_t t[THREADS], rd;
    static worker_arg_t wa[THREADS], ra;
    memset(wa, 0, sizeof wa);
    memset(&ra, 0, sizeof ra);
    ra.sh = &sh;
    assert_int_equal(pthread_create(&rd, NULL, reader, &ra), 0);
    for (int i = 0; i < THREADS; i++) {
        wa[i].sh = &sh;
        wa[i].id = i;
        assert_int_equal(pthread_create(&t[i], NULL, worker, &wa[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    atomic_store(&sh.stop, 1);
    pthread_join(rd, NULL);
    for (int i = 0; i < THREADS; i++) {
        char who[32];
        snprintf(who, sizeof who, "worker %d", i);
        assert_clean(who, &wa[i].res);
    }
    assert_clean("reader", &ra.res);
    reap_get_tree_stats(sh.parent, &after);
    assert_int_equal(after.reaps, 1);
    assert_int_equal(after.footprint, before.footprint);
    if (limit) {
        assert_true(after.peak_footprint <= limit);
        assert_true(atomic_load(&sh.refused) > 0);
    } else {
        assert_int_equal(atomic_load(&sh.refused), 0);
    }
    reap_destroy(sh.parent);
}

static void children_of_a_shared_parent(void **state)
{
    (void)state;
    run(0);
}

/* One thread's kid alone can pass 64 KiB, so refusals do not depend on how
 * the threads happen to overlap. */
static void children_of_a_shared_limited_parent(void **state)
{
    (void)state;
    run(64 << 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(children_of_a_shared_parent),
        cmocka_unit_test(children_of_a_shared_limited_parent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
