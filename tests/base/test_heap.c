/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_heap.c - unit tests of Hoard's heaps (libreap/src/base/heap.c):
 * allocation from the fullest superblock, move-to-front on free, the
 * emptiness invariant after every free, transfers to and from the global
 * heap, the slack a heap keeps before the invariant applies, the sweep of
 * idle heaps, and frees routed to the owning heap.  The tests drive heaps 3 and
 * 4 directly, which no thread is bound to here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/hoard.h"
#include "invariant.h"

static int setup(void **state)
{
    (void)state;
    setenv("REAP_HEAPS", "4", 1);
    setenv("REAP_SUPERBLOCK", "64k", 1);
    setenv("REAP_K", "4", 1);
    setenv("REAP_HEAP_SLACK", "0", 1); /* Hoard's invariant alone, but where set below */
    setenv("REAP_EMPTY_PCT", "25", 1);
    setenv("REAP_RETAIN", "64m", 1);
    rp_hd_init();
    return 0;
}

static void *take1(rp_hd_heap_t *h, uint32_t cls)
{
    void *p = NULL;
    pthread_mutex_lock(&h->lock);
    assert_int_equal(rp_hd_heap_take_chain(h, cls, 1, 0, &p), 1);
    pthread_mutex_unlock(&h->lock);
    return p;
}

/* Frees p to whichever heap owns its superblock now (it may have moved to
 * the global heap). */
static void give1(void *p)
{
    rp_hd_sb_t *sb = rp_hd_hdr(p);
    rp_hd_heap_t *h = rp_hd_lock_owner(sb);
    rp_hd_heap_give_chain(h, sb, p, p, 1);
    rp_hd_heap_balance(h);
    pthread_mutex_unlock(&h->lock);
}

/* After a free makes room in a full superblock, allocation goes back there
 * (the fullest) rather than to the emptier one. */
static void test_fullest_first(void **state)
{
    (void)state;
    rp_hd_heap_t *h = &rp_hd_heaps[4];
    uint32_t cls = rp_hd_sc_of(512);
    uint32_t n = rp_hd_sc.nblocks[cls];
    void **a = calloc(n + 1, sizeof *a);
    for (uint32_t i = 0; i <= n; i++)
        a[i] = take1(h, cls);
    rp_hd_sb_t *first = rp_hd_hdr(a[0]), *second = rp_hd_hdr(a[n]);
    assert_ptr_not_equal(first, second);
    assert_int_equal(first->group, RP_HD_FULL);
    give1(a[3]);
    assert_int_equal(first->group, 4);
    assert_int_equal(second->group, 1);
    a[3] = take1(h, cls);
    assert_ptr_equal(rp_hd_hdr(a[3]), first);
    for (uint32_t i = 0; i <= n; i++)
        give1(a[i]);
    assert_int_equal(h->u, 0);
    free(a);
}

/* A free moves its superblock to the front of its fullness group. */
static void test_move_to_front(void **state)
{
    (void)state;
    rp_hd_heap_t *h = &rp_hd_heaps[4];
    uint32_t cls = rp_hd_sc_of(2048);
    uint32_t n = rp_hd_sc.nblocks[cls];
    void **a = calloc(3 * n, sizeof *a);
    for (uint32_t i = 0; i < 3 * n; i++)
        a[i] = take1(h, cls);
    rp_hd_sb_t *s0 = rp_hd_hdr(a[0]), *s1 = rp_hd_hdr(a[n]), *s2 = rp_hd_hdr(a[2 * n]);
    give1(a[0]);
    give1(a[n]);
    give1(a[2 * n]); /* all three now in group 4, s2 in front */
    assert_ptr_equal(h->group[cls][4], s2);
    give1(a[1]);
    assert_ptr_equal(h->group[cls][4], s0);
    assert_ptr_equal(s0->next, s2);
    (void)s1;
    for (uint32_t i = 0; i < 3 * n; i++)
        if (i != 0 && i != 1 && i != n && i != 2 * n)
            give1(a[i]);
    free(a);
}

/* Freeing a big live set in a shuffled order keeps the invariant after
 * every free and pushes superblocks to the global heap. */
static void test_emptiness_invariant(void **state)
{
    (void)state;
    rp_hd_heap_t *h = &rp_hd_heaps[4];
    uint32_t cls = rp_hd_sc_of(200);
    size_t n = 40 * (size_t)rp_hd_sc.nblocks[cls];
    void **a = calloc(n, sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] = take1(h, cls);
    assert_true(h->nsb >= 40);
    uint64_t to_global = h->to_global;
    unsigned seed = 12345;
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates with a fixed seed */
        size_t j = (size_t)rand_r(&seed) % (i + 1);
        void *t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        give1(a[i]);
        assert_true(invariant_holds(h));
        if (i % 97 == 0) {
            pthread_mutex_lock(&h->lock);
            assert_true(rp_hd_heap_check(h));
            pthread_mutex_unlock(&h->lock);
        }
    }
    assert_int_equal(h->u, 0);
    assert_true(h->nsb <= rp_hd_opt.k_slack);
    assert_true(h->to_global - to_global >= 36);
    free(a);
}

/* Another heap reuses the superblocks the first gave up, mapping nothing. */
static void test_global_reuse(void **state)
{
    (void)state;
    rp_hd_heap_t *h = &rp_hd_heaps[3];
    uint32_t cls = rp_hd_sc_of(3000);
    size_t n = 10 * (size_t)rp_hd_sc.nblocks[cls];
    void **a = calloc(n, sizeof *a);
    uint64_t maps = atomic_load(&rp_hd_cnt.maps);
    uint64_t from = h->from_global;
    for (size_t i = 0; i < n; i++)
        a[i] = take1(h, cls);
    assert_true(h->from_global - from >= 10);
    assert_int_equal(atomic_load(&rp_hd_cnt.maps), maps);
    for (size_t i = 0; i < n; i++)
        give1(a[i]);
    free(a);
}

/* rp_hd_free_locked finds the owner from the address, whoever frees. */
static void test_free_to_owner(void **state)
{
    (void)state;
    rp_hd_heap_t *h = &rp_hd_heaps[3];
    uint32_t cls = rp_hd_sc_of(64);
    void *p = take1(h, cls);
    size_t u = h->u;
    assert_ptr_equal(atomic_load(&rp_hd_hdr(p)->owner), h);
    rp_hd_free_locked(rp_hd_hdr(p), p);
    assert_int_equal(h->u, u - 64);
}

/* A piece of never-used blocks comes from a superblock without a free
 * list, in address order, counted as handed out. */
static void test_take_range(void **state)
{
    (void)state;
    rp_hd_heap_t *h = &rp_hd_heaps[3];
    uint32_t cls = rp_hd_sc_of(48);
    char *start = NULL;
    pthread_mutex_lock(&h->lock);
    size_t u = h->u;
    size_t k = rp_hd_heap_take_range(h, cls, 10, &start);
    pthread_mutex_unlock(&h->lock);
    assert_int_equal(k, 10);
    rp_hd_sb_t *sb = rp_hd_hdr(start);
    assert_ptr_equal(rp_hd_hdr(start + 9 * 48), sb);
    assert_int_equal(h->u, u + 10 * 48);
    give1(start + 4 * 48); /* now it has a free list: no piece from it */
    pthread_mutex_lock(&h->lock);
    char *again = NULL;
    assert_int_equal(rp_hd_heap_take_range(h, cls, 10, &again), 0);
    assert_true(rp_hd_heap_check(h));
    pthread_mutex_unlock(&h->lock);
    for (int i = 0; i < 10; i++)
        if (i != 4)
            give1(start + i * 48);
    assert_int_equal(h->u, u);
}

/* A piece given back whole: the superblock's last carve moves its bump
 * pointer back and writes no block; an earlier piece, with another carved
 * after it, goes onto the free list.  The heap stays consistent. */
static void test_give_range(void **state)
{
    (void)state;
    rp_hd_heap_t *h = &rp_hd_heaps[3];
    uint32_t cls = rp_hd_sc_of(80);
    size_t size = rp_hd_sc.size[cls];
    char *a = NULL, *b = NULL;
    pthread_mutex_lock(&h->lock);
    size_t u = h->u;
    assert_int_equal(rp_hd_heap_take_range(h, cls, 6, &a), 6);
    assert_int_equal(rp_hd_heap_take_range(h, cls, 4, &b), 4);
    rp_hd_sb_t *sb = rp_hd_hdr(a);
    assert_ptr_equal(rp_hd_hdr(b), sb);
    assert_ptr_equal(b, a + 6 * size);
    assert_ptr_equal(sb->bump, b + 4 * size);
    for (int i = 0; i < 4; i++)
        *(uintptr_t *)(b + i * size) = 0x5a5a5a5a;
    rp_hd_heap_give_range(h, sb, b, b + 4 * size); /* the last carve */
    assert_ptr_equal(sb->bump, b);
    assert_null(sb->free);
    for (int i = 0; i < 4; i++)
        assert_int_equal(*(uintptr_t *)(b + i * size), 0x5a5a5a5a); /* not written */
    assert_int_equal(h->u, u + 6 * size);
    assert_true(rp_hd_heap_check(h));
    assert_int_equal(rp_hd_heap_take_range(h, cls, 2, &b), 2); /* a carve after a */
    rp_hd_heap_give_range(h, sb, a, a + 6 * size);
    assert_ptr_equal(sb->free, a); /* linked in address order onto the list */
    assert_ptr_equal(*(void **)(a + 5 * size), NULL);
    assert_int_equal(sb->used, 2);
    assert_true(rp_hd_heap_check(h));
    rp_hd_heap_give_range(h, sb, b, b + 2 * size);
    assert_int_equal(h->u, u);
    assert_true(rp_hd_heap_check(h));
    pthread_mutex_unlock(&h->lock);
}

/* Takes n blocks of class cls from h into a[] and gives them all back. */
static void take_and_give(rp_hd_heap_t *h, uint32_t cls, void **a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = take1(h, cls);
    for (size_t i = 0; i < n; i++) {
        give1(a[i]);
        assert_true(invariant_holds(h));
    }
}

/* Below heap_slack bytes not handed out, a heap keeps its empty and
 * partly used superblocks, so it builds its working set again without the
 * global heap; beyond it, Hoard's invariant applies.  Empties left unused
 * through a decay period go to the global heap at its next balance, down
 * to K; a trim sends the rest. */
static void test_heap_slack(void **state)
{
    (void)state;
    rp_hd_heap_t *h = &rp_hd_heaps[2];
    uint32_t cls = rp_hd_sc_of(1000);
    size_t s = rp_hd_opt.sb_size, per = rp_hd_sc.nblocks[cls], n = 20 * per;
    void **a = calloc(n, sizeof *a);
    size_t decay = rp_hd_opt.decay_ms, slack = rp_hd_opt.heap_slack;
    rp_hd_opt.heap_slack = 8 * s;
    rp_hd_opt.decay_ms = 3600000;
    take_and_give(h, cls, a, n);
    assert_int_equal(h->u, 0);
    assert_int_equal(h->nempty, 8);
    uint64_t from = h->from_global, to = h->to_global;
    take_and_give(h, cls, a, 8 * per); /* the working set again: all local */
    assert_int_equal(h->from_global, from);
    assert_int_equal(h->to_global, to);
    assert_int_equal(h->nempty, 8);

    /* Every third block out: over the slack, the victims go but the
     * heap keeps no more than the slack beyond what the invariant allows. */
    for (size_t i = 0; i < 12 * per; i++)
        a[i] = take1(h, cls);
    for (size_t i = 0; i < 12 * per; i++)
        if (i % 3)
            give1(a[i]);
    assert_true(invariant_holds(h));
    assert_true(h->a - h->u <= 8 * s);
    assert_true(h->to_global > to);
    /* A new superblock of another class takes the heap over the slack
     * again; the next balance (after any free) must still look at the
     * first class, left too empty but under the slack. */
    uint32_t other = rp_hd_sc_of(2000);
    void *b0 = take1(h, other), *b1 = take1(h, other);
    assert_true(h->a - h->u > 8 * s);
    give1(b1);
    assert_true(invariant_holds(h));
    give1(b0);
    for (size_t i = 0; i < 12 * per; i += 3)
        give1(a[i]);

    rp_hd_opt.decay_ms = 0; /* every balance ends a period */
    for (int i = 0; i < 3; i++)
        take_and_give(h, cls, a, 1);
    assert_int_equal(h->nempty, rp_hd_opt.k_slack);

    rp_hd_heap_trim();
    assert_int_equal(h->nempty, 0);
    assert_int_equal(h->nsb, 0);
    pthread_mutex_lock(&h->lock);
    assert_true(rp_hd_heap_check(h));
    pthread_mutex_unlock(&h->lock);
    rp_hd_opt.heap_slack = slack;
    rp_hd_opt.decay_ms = decay;
    free(a);
}

/* A heap nobody frees into any more keeps its stale empties only until
 * the others' balances sweep it (every 64th balance of a heap): within
 * two sweeps, the first of which may end the decay period they were
 * stamped in.  The sweeps run the global heap's clock too. */
static void test_idle_heap_swept(void **state)
{
    (void)state;
    rp_hd_heap_t *idle = &rp_hd_heaps[3], *busy = &rp_hd_heaps[4];
    uint32_t cls = rp_hd_sc_of(1000);
    size_t s = rp_hd_opt.sb_size, per = rp_hd_sc.nblocks[cls], n = 8 * per;
    void **a = calloc(n, sizeof *a);
    size_t decay = rp_hd_opt.decay_ms, slack = rp_hd_opt.heap_slack;
    rp_hd_heap_trim();
    rp_hd_opt.heap_slack = 8 * s;
    rp_hd_opt.decay_ms = 3600000;
    take_and_give(idle, cls, a, n);
    assert_int_equal(idle->nempty, 8);

    rp_hd_opt.decay_ms = 0; /* every tick ends a period */
    pthread_mutex_lock(&busy->lock);
    busy->balances = 0;
    pthread_mutex_unlock(&busy->lock);
    take_and_give(busy, cls, a, 63); /* 63 balances are not enough */
    assert_int_equal(idle->nempty, 8);
    take_and_give(busy, cls, a, 2 * 64 + 1); /* two sweeps */
    assert_int_equal(idle->nempty, rp_hd_opt.k_slack);
    pthread_mutex_lock(&idle->lock);
    assert_true(rp_hd_heap_check(idle));
    pthread_mutex_unlock(&idle->lock);

    /* The sweeps also run the global heap's clock: with nothing to
     * retain, its stale empties go back to the OS, though nobody uses
     * the global heap. */
    rp_hd_heap_t *g = &rp_hd_heaps[0];
    size_t retain = rp_hd_opt.retain_bytes;
    rp_hd_opt.retain_bytes = 0;
    uint64_t unmaps = atomic_load(&rp_hd_cnt.unmaps);
    take_and_give(busy, cls, a, 2 * 64 + 1);
    pthread_mutex_lock(&g->lock);
    assert_int_equal(g->nempty, 0);
    pthread_mutex_unlock(&g->lock);
    assert_true(atomic_load(&rp_hd_cnt.unmaps) > unmaps);
    rp_hd_opt.retain_bytes = retain;

    rp_hd_heap_trim();
    rp_hd_opt.heap_slack = slack;
    rp_hd_opt.decay_ms = decay;
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fullest_first),
        cmocka_unit_test(test_move_to_front),
        cmocka_unit_test(test_emptiness_invariant),
        cmocka_unit_test(test_global_reuse),
        cmocka_unit_test(test_free_to_owner),
        cmocka_unit_test(test_take_range),
        cmocka_unit_test(test_give_range),
        cmocka_unit_test(test_heap_slack),
        cmocka_unit_test(test_idle_heap_swept),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
