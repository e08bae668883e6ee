/*
 * test_threads.c - children of one shared parent created, used and
 * destroyed from several threads at once, with and without a limit on the
 * parent, while another thread reads the parent's subtree statistics.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "reap.h"

#define THREADS 8
#define ROUNDS 3000

typedef struct shared {
    reap_t *parent;
    size_t limit;
    atomic_int stop;
    atomic_long refused;
} shared_t;

static void *worker(void *arg)
{
    shared_t *sh = arg;
    for (int i = 0; i < ROUNDS; i++) {
        reap_t *kid = reap_create(sh->parent);
        if (!kid) {
            atomic_fetch_add(&sh->refused, 1);
            continue;
        }
        reap_t *grandkid = (i % 4 == 0) ? reap_create(kid) : NULL;
        for (int j = 0; j < 50; j++) {
            char *p = reap_malloc(kid, (size_t)(16 + (i * j) % 3000));
            if (!p) {
                atomic_fetch_add(&sh->refused, 1);
                break;
            }
            memset(p, j, 16);
            if (j % 2)
                reap_free(kid, p);
            if (grandkid)
                reap_malloc(grandkid, 100);
        }
        if (grandkid && i % 8 == 0)
            reap_destroy(grandkid); /* else the kid's destroy takes it */
        reap_destroy(kid);
    }
    return NULL;
}

static void *reader(void *arg)
{
    shared_t *sh = arg;
    while (!atomic_load(&sh->stop)) {
        reap_stats_t s;
        reap_get_tree_stats(sh->parent, &s);
        assert_true(s.reaps >= 1);
        if (sh->limit)
            assert_true(s.footprint <= sh->limit + (1u << 20)); /* racy sum, bounded */
    }
    return NULL;
}

static void run(size_t limit)
{
    shared_t sh = {.parent = reap_create(NULL), .limit = limit};
    if (limit)
        reap_set_limit(sh.parent, limit);
    reap_stats_t before, after;
    reap_get_tree_stats(sh.parent, &before);
    pthread_t t[THREADS], rd;
    pthread_create(&rd, NULL, reader, &sh);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, &sh);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    atomic_store(&sh.stop, 1);
    pthread_join(rd, NULL);
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
