/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_tcache.c - unit tests of the thread caches' growth
 * (libreap/src/base/tcache.c): a bin that overflows grows its cap out of
 * the thread's budget instead of flushing, once per overflow that follows
 * a refill; the budget bounds what all bins together add, the
 * process's budget what all live threads add together (and an exiting
 * thread gives its share back), a bin that
 * only runs dry does not grow, a cache taken
 * over by the next thread starts again from the base caps, a refill
 * of never-used blocks is kept as the bin's range and given back whole
 * when the thread exits (to its superblock's owner, whichever heap that
 * is by then), and a bin's run breaks and starts again as
 * rp_hd_bin_push says; and a trim from another thread flushes and
 * releases the cache of a thread that waits parked (rp_hd_thread_park),
 * and no other, and gives back the pages no live thread's cache lies on:
 * the thread, waking (or parking again, or exiting while parked), gives
 * the released cache up and goes on with a new one.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "base/hoard.h"
#include "util/misuse.h"

#define BUDGET (64u << 10)
#define TOTAL (96u << 10) /* the process's: one thread's budget and a half */

static int setup(void **state)
{
    (void)state;
    setenv("REAP_SUPERBLOCK", "64k", 1);
    setenv("REAP_TCACHE", "8k", 1);
    setenv("REAP_TCACHE_GROW", "64k", 1);
    setenv("REAP_TCACHE_GROW_TOTAL", "96k", 1);
    setenv("REAP_TCACHE_AFTER", "0", 1); /* a cache from a thread's first call */
    rp_hd_init();
    return 0;
}

/* The cap a fresh cache gives class c: tcache_bytes / size, at least 2
 * blocks (hoard.h's C), at most RP_HD_CAP_MAX. */
static uint32_t base_cap(uint32_t c)
{
    size_t size = rp_hd_sc.size[c], cap = rp_hd_opt.tcache_bytes / size;
    if (cap < 2)
        cap = 2;
    return (uint32_t)(cap > RP_HD_CAP_MAX ? RP_HD_CAP_MAX : cap);
}

/* Bytes the caps of tc have grown by over the base caps; checks that no
 * cap is below its base and no bin holds more than its cap. */
static size_t grown_bytes(const rp_hd_tcache_t *tc)
{
    size_t sum = 0;
    for (uint32_t c = 0; c < rp_hd_sc.n; c++) {
        assert_true(tc->bin[c].cap >= base_cap(c));
        assert_true(tc->bin[c].count <= tc->bin[c].cap);
        sum += (size_t)(tc->bin[c].cap - base_cap(c)) * rp_hd_sc.size[c];
    }
    return sum;
}

/* Mallocs n blocks of size bytes, then frees them all; false when a
 * malloc failed.  Runs in a worker thread: no cmocka asserts there. */
static bool churn(size_t size, size_t n)
{
    void **p = malloc(n * sizeof *p); /* glibc's: this test does not preload */
    bool ok = p != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = (p[i] = rp_hoard_malloc(size)) != NULL;
    for (size_t i = 0; ok && i < n; i++)
        rp_hoard_free(p[i]);
    free(p);
    return ok;
}

/* What a worker thread did and what its cache looked like before it
 * exited. */
typedef struct snap {
    bool ok;
    rp_hd_tcache_t tc;
} snap_t;

static void take_snap(snap_t *s, bool ok)
{
    s->ok = ok;
    s->tc = *rp_hd_tls;
}

static void *in_thread(void *arg)
{
    void **a = arg;
    void (*fn)(snap_t *) = (void (*)(snap_t *))(uintptr_t)a[0];
    fn(a[1]);
    return NULL;
}

/* Runs fn in a new thread (each gets a cache of its own); asserts that it
 * reported success. */
static void run_in_thread(void (*fn)(snap_t *), snap_t *s)
{
    pthread_t t;
    void *a[2] = {(void *)(uintptr_t)fn, s};
    assert_int_equal(pthread_create(&t, NULL, in_thread, a), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(s->ok);
}

static snap_t snap; /* 4 KiB of bins: not on the test's stack */

/* Frees of 4 KiB blocks overflow a bin of base cap 2: it grows, keeps
 * more than its base cap of the freed blocks, and the rest of the budget
 * is accounted for. */
static void overflow(snap_t *s) { take_snap(s, churn(4096, 12)); }

static void test_overflow_grows(void **state)
{
    (void)state;
    run_in_thread(overflow, &snap);
    uint32_t c = rp_hd_sc_of(4096);
    assert_true(snap.tc.bin[c].cap > base_cap(c));
    assert_true(snap.tc.bin[c].count > base_cap(c));
    assert_int_equal(grown_bytes(&snap.tc) + snap.tc.grow_left, BUDGET);
}

/* A bin grows once per overflow that follows a refill: 40 frees after
 * 40 mallocs of 4 KiB double its cap once, not at each of the overflows
 * (a thread that only frees a class, a consumer, would keep what its
 * heap's other threads are about to allocate); a second round doubles it
 * again. */
static uint32_t caps_seen[2];

static void two_rounds(snap_t *s)
{
    bool ok = churn(4096, 40);
    caps_seen[0] = rp_hd_tls->bin[rp_hd_sc_of(4096)].cap;
    ok = ok && churn(4096, 40);
    caps_seen[1] = rp_hd_tls->bin[rp_hd_sc_of(4096)].cap;
    take_snap(s, ok);
}

static void test_grows_once_per_refill(void **state)
{
    (void)state;
    run_in_thread(two_rounds, &snap);
    uint32_t c = rp_hd_sc_of(4096);
    assert_int_equal(caps_seen[0], 2 * base_cap(c));
    assert_int_equal(caps_seen[1], 4 * base_cap(c));
    assert_int_equal(grown_bytes(&snap.tc) + snap.tc.grow_left, BUDGET);
}

/* Overflowing many classes spends the budget and no more; the bins keep
 * no more than their caps. */
static void many_classes(snap_t *s)
{
    bool ok = true;
    for (size_t size = 512; size <= 16384; size += 512)
        ok = ok && churn(size, 40);
    take_snap(s, ok);
}

static void test_budget_bounds(void **state)
{
    (void)state;
    run_in_thread(many_classes, &snap);
    size_t grown = grown_bytes(&snap.tc);
    assert_true(grown <= BUDGET);
    assert_int_equal(grown + snap.tc.grow_left, BUDGET);
    assert_true(snap.tc.grow_left < 16384); /* spent: 40 blocks of 16 KiB alone need more */
}

/* Two threads alive at once share the process's budget: the first spends
 * its own, the second gets what is left of TOTAL; once both have exited,
 * a third has its whole budget again. */
static pthread_barrier_t both_grown;
static snap_t pair[2];
static int has_grown[2]; /* set (atomically) once pair[i] is taken */

static void *grow_and_wait(void *arg)
{
    int i = (int)(intptr_t)arg;
    bool ok = true;
    for (size_t size = 512; size <= 16384; size += 512)
        ok = ok && churn(size, 40);
    take_snap(&pair[i], ok);
    __atomic_store_n(&has_grown[i], 1, __ATOMIC_RELEASE);
    pthread_barrier_wait(&both_grown); /* alive until the other has grown */
    return NULL;
}

static void wait_grown(int i)
{
    while (!__atomic_load_n(&has_grown[i], __ATOMIC_ACQUIRE))
        sched_yield();
}

static void test_process_budget_bounds(void **state)
{
    (void)state;
    pthread_t a, b;
    assert_int_equal(pthread_barrier_init(&both_grown, NULL, 3), 0);
    assert_int_equal(pthread_create(&a, NULL, grow_and_wait, (void *)(intptr_t)0), 0);
    wait_grown(0);
    assert_int_equal(pthread_create(&b, NULL, grow_and_wait, (void *)(intptr_t)1), 0);
    wait_grown(1);
    pthread_barrier_wait(&both_grown);
    assert_int_equal(pthread_join(a, NULL), 0);
    assert_int_equal(pthread_join(b, NULL), 0);
    pthread_barrier_destroy(&both_grown);
    assert_true(pair[0].ok && pair[1].ok);
    size_t first = grown_bytes(&pair[0].tc), second = grown_bytes(&pair[1].tc);
    assert_true(first > TOTAL - BUDGET);   /* the first was not held back */
    assert_true(first <= BUDGET);
    assert_true(second <= TOTAL - first);  /* the second got only the rest */
    run_in_thread(many_classes, &snap);    /* both gave theirs back */
    assert_true(grown_bytes(&snap.tc) > TOTAL - BUDGET);
}

/* Threads alive together get caches of their own, each the header and
 * the bins of the classes in use, side by side: a server of hundreds of
 * threads must not pay two pages a thread (a whole rp_hd_tcache_t is
 * 64 bins).  Every cache works: each thread takes, frees and takes again
 * blocks of the smallest and the largest class. */
#define NCACHES 8
static pthread_barrier_t all_bound;
static rp_hd_tcache_t *caches[NCACHES];
static bool cache_ok[NCACHES];

static void *bind_and_wait(void *arg)
{
    intptr_t i = (intptr_t)arg;
    size_t big = rp_hd_sc.size[rp_hd_sc.n - 1];
    void *a = rp_hoard_malloc(16), *b = rp_hoard_malloc(big);
    caches[i] = rp_hd_tls;
    if (a && b) {
        memset(a, 1, 16), memset(b, 2, big);
        rp_hoard_free(a);
        rp_hoard_free(b);
        a = rp_hoard_malloc(16), b = rp_hoard_malloc(big);
    }
    cache_ok[i] = a && b;
    pthread_barrier_wait(&all_bound); /* alive until all are bound */
    rp_hoard_free(a);
    rp_hoard_free(b);
    return NULL;
}

static int by_address(const void *x, const void *y)
{
    uintptr_t a = (uintptr_t)*(rp_hd_tcache_t *const *)x, b = (uintptr_t)*(rp_hd_tcache_t *const *)y;
    return (a > b) - (a < b);
}

static void test_caches_packed(void **state)
{
    (void)state;
    pthread_t t[NCACHES];
    size_t bytes = rp_hd_tcache_bytes();
    assert_true(bytes < sizeof(rp_hd_tcache_t)); /* not whole caches */
    assert_int_equal(pthread_barrier_init(&all_bound, NULL, NCACHES + 1), 0);
    for (intptr_t i = 0; i < NCACHES; i++)
        assert_int_equal(pthread_create(&t[i], NULL, bind_and_wait, (void *)i), 0);
    pthread_barrier_wait(&all_bound);
    for (int i = 0; i < NCACHES; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    pthread_barrier_destroy(&all_bound);
    qsort(caches, NCACHES, sizeof caches[0], by_address);
    size_t near = 0;
    for (int i = 0; i < NCACHES; i++) {
        assert_true(cache_ok[i]);
        if (i > 0) {
            size_t gap = (size_t)((char *)caches[i] - (char *)caches[i - 1]);
            assert_true(gap >= bytes); /* no two overlap */
            near += gap == bytes;
        }
    }
    /* side by side, but for a new slab now and then, and caches that
     * earlier tests' threads left in the pool */
    assert_true(near >= NCACHES / 2);
}

/* Mallocs alone (a bin that runs dry and is refilled) grow nothing. */
static void mallocs_only(snap_t *s)
{
    void *p[64];
    bool ok = true;
    for (size_t i = 0; i < 64; i++)
        ok = ok && (p[i] = rp_hoard_malloc(2048)) != NULL;
    take_snap(s, ok);
    for (size_t i = 0; ok && i < 64; i++)
        rp_hoard_free(p[i]);
}

static void test_underflow_keeps(void **state)
{
    (void)state;
    run_in_thread(mallocs_only, &snap);
    assert_int_equal(grown_bytes(&snap.tc), 0);
    assert_int_equal(snap.tc.grow_left, BUDGET);
}

/* A cache given back by an exiting thread starts its next thread from
 * the base caps and the whole budget. */
static void bind_only(snap_t *s)
{
    void *p = rp_hoard_malloc(16); /* binds the thread: takes a pooled cache */
    rp_hoard_free(p);
    take_snap(s, p != NULL);
}

static void test_reused_cache_starts_over(void **state)
{
    (void)state;
    run_in_thread(many_classes, &snap);
    assert_true(grown_bytes(&snap.tc) > 0);
    run_in_thread(bind_only, &snap);
    assert_int_equal(grown_bytes(&snap.tc), 0);
    assert_int_equal(snap.tc.grow_left, BUDGET);
}

/* A class no other test uses: the first malloc refills from a fresh
 * superblock, which has no free list, so the refill takes a piece of
 * never-used blocks: the bin's range, handed out in address order after
 * the one returned, and given back whole at the thread's exit.  The
 * thread keeps its first block, so the superblock does not empty (and
 * reset) before the test looks at it. */
#define RANGE_SIZE 96
#define RANGE_TAKEN 5

static void *range_blocks[RANGE_TAKEN];

static void range_mallocs(snap_t *s)
{
    bool ok = true;
    for (size_t i = 0; i < RANGE_TAKEN; i++)
        ok = ok && (range_blocks[i] = rp_hoard_malloc(RANGE_SIZE)) != NULL;
    take_snap(s, ok);
    for (size_t i = 1; ok && i < RANGE_TAKEN; i++)
        rp_hoard_free(range_blocks[i]);
}

static void test_range_given_back(void **state)
{
    (void)state;
    run_in_thread(range_mallocs, &snap);
    uint32_t c = rp_hd_sc_of(RANGE_SIZE);
    const rp_hd_bin_t *bin = &snap.tc.bin[c];
    char *first = range_blocks[0];
    for (size_t i = 1; i < RANGE_TAKEN; i++)
        assert_ptr_equal(range_blocks[i], first + i * bin->size);
    assert_int_equal(bin->count, 0); /* the piece is not on the list */
    assert_ptr_equal(bin->next, first + RANGE_TAKEN * bin->size);
    assert_true(bin->end > bin->next); /* blocks left in the range at exit */
    /* The thread exited: its exit flush gave back the four blocks it
     * freed and the rest of the range, the range whole (the superblock's
     * last carve, so its bump moved back over it and no link was written
     * into its never-used blocks).  Only the kept block is out. */
    rp_hd_sb_t *sb = rp_hd_hdr(first);
    rp_hd_heap_t *h = rp_hd_lock_owner(sb);
    uint32_t used = sb->used;
    char *bump = sb->bump;
    bool consistent = rp_hd_heap_check(h);
    pthread_mutex_unlock(&h->lock);
    assert_int_equal(used, 1);
    assert_ptr_equal(bump, bin->next);
    assert_true(consistent);
    rp_hd_free_locked(sb, first);
    h = rp_hd_lock_owner(sb);
    used = sb->used;
    consistent = rp_hd_heap_check(h);
    pthread_mutex_unlock(&h->lock);
    assert_int_equal(used, 0);
    assert_true(consistent);
}

/* A range whose superblock has left the cache's heap since the refill
 * goes back to that superblock's owner at the flush.  A cache made here,
 * bound to heap 2, takes a range of a class no other test uses; bound
 * then to heap 3 (as if balance had moved the superblock away), its flush
 * still gives the range back to heap 2 whole: the bump moves back over
 * it, and heap 2's lists and counts stay consistent. */
#define MOVED_SIZE 160

static void test_range_of_another_heap(void **state)
{
    (void)state;
    static rp_hd_tcache_t tc; /* zeroed: no blocks, no outbox */
    uint32_t c = rp_hd_sc_of(MOVED_SIZE);
    rp_hd_bin_t *bin = &tc.bin[c];
    bin->cap = 16;
    bin->size = rp_hd_sc.size[c];
    tc.heap = &rp_hd_heaps[2];
    char *p = rp_hd_tcache_refill(&tc, c);
    assert_non_null(p);
    assert_ptr_equal(bin->next, p + bin->size);
    assert_true(bin->end > bin->next);
    rp_hd_sb_t *sb = rp_hd_hdr(p);
    tc.heap = &rp_hd_heaps[3];
    rp_hd_tcache_flush_all(&tc);
    assert_ptr_equal(bin->next, bin->end);
    rp_hd_heap_t *h = rp_hd_lock_owner(sb);
    uint32_t used = sb->used;
    char *bump = sb->bump;
    bool consistent = rp_hd_heap_check(h) && rp_hd_heap_check(&rp_hd_heaps[3]);
    pthread_mutex_unlock(&h->lock);
    assert_ptr_equal(h, &rp_hd_heaps[2]);
    assert_int_equal(used, 1);
    assert_ptr_equal(bump, p + bin->size);
    assert_true(consistent);
    rp_hd_free_locked(sb, p);
}

/* The run (hoard.h): frees of one superblock extend it; a free of
 * another after a short run breaks it for good (no restart, and so no
 * mispredicted branch, on every free of a random pattern), until the list
 * empties; after a long run (frees in address order crossing into the
 * next superblock) a new run starts at once.  Fake superblocks: the push
 * only compares them. */
static void test_run_breaks_and_restarts(void **state)
{
    (void)state;
    static void *blocks[64][2];
    static char sbs[3];
    rp_hd_sb_t *sb1 = (rp_hd_sb_t *)&sbs[0], *sb2 = (rp_hd_sb_t *)&sbs[1], *sb3 = (rp_hd_sb_t *)&sbs[2];
    rp_hd_bin_t bin = {.cap = 64};
    size_t b = 0;
    for (int i = 0; i < 3; i++)
        rp_hd_bin_push(&bin, sb1, blocks[b++]);
    assert_ptr_equal(bin.run_sb, sb1);
    assert_int_equal(bin.run_base, 0);
    assert_ptr_equal(bin.run_first, blocks[0]);
    rp_hd_bin_push(&bin, sb2, blocks[b++]); /* a short run: broken */
    assert_ptr_equal(bin.run_sb, RP_HD_RUN_BROKEN);
    for (int i = 0; i < 4; i++)
        rp_hd_bin_push(&bin, i % 2 ? sb1 : sb2, blocks[b++]);
    assert_ptr_equal(bin.run_sb, RP_HD_RUN_BROKEN);
    assert_int_equal(bin.count, 8);
    while (bin.count > 0)
        assert_non_null(rp_hd_bin_take(&bin));
    rp_hd_bin_push(&bin, sb2, blocks[b++]); /* the list emptied: a new run */
    assert_ptr_equal(bin.run_sb, sb2);
    assert_int_equal(bin.run_base, 0);
    for (int i = 1; i < RP_HD_RUN_LONG; i++)
        rp_hd_bin_push(&bin, sb2, blocks[b++]);
    assert_ptr_equal(bin.run_sb, sb2);
    rp_hd_bin_push(&bin, sb3, blocks[b]); /* after a long run: the next starts */
    assert_ptr_equal(bin.run_sb, sb3);
    assert_int_equal(bin.run_base, RP_HD_RUN_LONG);
    assert_ptr_equal(bin.run_first, blocks[b]);
    assert_ptr_equal(bin.head, blocks[b]);
    assert_int_equal(bin.count, RP_HD_RUN_LONG + 1);
}

/* ---- parked threads: a trim from another thread takes their caches ---- */

typedef struct parker {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int stage;           /* 1: cache filled (and parked if park), 2: go on */
    bool park;
    bool exit_parked;    /* return without unparking (a thread cancelled in its wait) */
    bool park_again;     /* park a second time before unparking */
    rp_hd_tcache_t *tc;  /* its cache before the wait */
    size_t cached;       /* blocks on the thread's lists when it stopped */
    bool kept;           /* rp_hd_tls was still tc after the wait */
    size_t after;        /* blocks on its lists once it went on (if kept) */
    bool ok;             /* blocks allocated after waking were usable */
    bool rebound;        /* after waking, it had a real cache of its own again */
    bool none_after_wake; /* no cache after its first malloc once awake */
} parker_t;

#define PARKER_INIT {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER}

static size_t cached_blocks(const rp_hd_tcache_t *tc)
{
    size_t n = 0;
    for (uint32_t c = 0; c < rp_hd_sc.n; c++)
        n += tc->bin[c].count;
    return n;
}

static void *parker_main(void *arg)
{
    parker_t *pk = arg;
    void *p[32];
    for (int i = 0; i < 32; i++)
        p[i] = rp_hoard_malloc(256);
    for (int i = 0; i < 32; i++)
        rp_hoard_free(p[i]); /* into this thread's 256-byte bin */
    rp_hd_tcache_t *tc = rp_hd_tls;
    pthread_mutex_lock(&pk->lock);
    pk->tc = tc;
    pk->cached = cached_blocks(tc);
    if (pk->park)
        rp_hd_thread_park();
    pk->stage = 1;
    pthread_cond_broadcast(&pk->cond);
    while (pk->stage != 2)
        pthread_cond_wait(&pk->cond, &pk->lock);
    pthread_mutex_unlock(&pk->lock);
    if (pk->exit_parked)
        return NULL; /* the exit destructor finds the cache parked or released */
    if (pk->park_again)
        rp_hd_thread_park();
    if (pk->park)
        rp_hd_thread_unpark();
    pk->kept = rp_hd_tls == tc;
    if (pk->kept) /* a released cache is not the thread's to read any more */
        pk->after = cached_blocks(tc);
    void *first = rp_hoard_malloc(256);
    pk->none_after_wake = rp_hd_tls == &rp_hd_none;
    rp_hoard_free(first);
    pk->ok = true;
    for (int i = 0; i < 32; i++) {
        p[i] = rp_hoard_malloc(256);
        pk->ok = pk->ok && p[i] != NULL && rp_hd_hdr(p[i])->magic == RP_HD_SB_MAGIC;
        memset(p[i], 0x5a, 256);
    }
    pk->rebound = rp_hd_tls != &rp_hd_none && rp_hd_tls->heap != NULL && rp_hd_tls->bin[0].cap > 0;
    for (int i = 0; i < 32; i++)
        rp_hoard_free(p[i]);
    return NULL;
}

static void parker_start(parker_t *pk, pthread_t *t)
{
    assert_int_equal(pthread_create(t, NULL, parker_main, pk), 0);
    pthread_mutex_lock(&pk->lock);
    while (pk->stage != 1)
        pthread_cond_wait(&pk->cond, &pk->lock);
    pthread_mutex_unlock(&pk->lock);
}

static void parker_finish(parker_t *pk, pthread_t t)
{
    pthread_mutex_lock(&pk->lock);
    pk->stage = 2;
    pthread_cond_broadcast(&pk->cond);
    pthread_mutex_unlock(&pk->lock);
    assert_int_equal(pthread_join(t, NULL), 0);
}

/* Runs a thread that fills its cache and waits, parked or not; trims
 * meanwhile from this thread; returns what the thread saw. */
static parker_t run_parker(bool park)
{
    parker_t pk = PARKER_INIT;
    pk.park = park;
    pthread_t t;
    parker_start(&pk, &t);
    rp_hoard_trim();
    parker_finish(&pk, t);
    return pk;
}

/* The parked thread's cache is flushed and taken from it: it wakes with
 * no cache and makes a new one at its next malloc.  A thread that waits
 * without parking keeps its cache untouched. */
static void test_trim_releases_parked(void **state)
{
    (void)state;
    parker_t parked = run_parker(true), busy = run_parker(false);
    assert_true(parked.cached >= 8);
    assert_false(parked.kept);
    assert_true(parked.ok);
    assert_true(parked.rebound);
    assert_true(busy.cached >= 8);
    assert_true(busy.kept);
    assert_int_equal(busy.after, busy.cached); /* not parked: left alone */
    assert_true(busy.ok);
}

/* Whether the page holding p is resident. */
static bool resident(const void *p)
{
    size_t page = rp_hd_os_page();
    unsigned char v = 0;
    void *base = (void *)((uintptr_t)p & ~(uintptr_t)(page - 1));
    assert_int_equal(mincore(base, page, &v), 0);
    return v & 1;
}

/* Many parked threads: the trim releases every one of their caches and
 * gives their pages back, all but those shared with a cache still in use
 * (this thread's, the busy one's); when the threads wake, each gives its
 * old cache up and works with a new one, and the slots are free again. */
#define NPARKED 48

static void test_released_pages_given_back(void **state)
{
    (void)state;
    rp_hoard_free(rp_hoard_malloc(64)); /* this thread's cache: owned throughout */
    rp_hd_tcache_census_t before, trimmed, after;
    rp_hd_tcache_census(&before);
    static parker_t pk[NPARKED];
    pthread_t t[NPARKED];
    for (int i = 0; i < NPARKED; i++) {
        pk[i] = (parker_t)PARKER_INIT;
        pk[i].park = true;
        parker_start(&pk[i], &t[i]);
    }
    rp_hoard_trim();
    rp_hd_tcache_census(&trimmed);
    assert_int_equal(trimmed.released, before.released + NPARKED);
    assert_int_equal(trimmed.owned, before.owned);
    /* Every cache page is resident or given back, and a cache lies on at
     * most two pages another cache shares; NPARKED caches of about 3 KiB
     * side by side cover NPARKED * 3 / 4 pages, most of them whole. */
    size_t bytes = rp_hd_tcache_bytes(), page = rp_hd_os_page();
    assert_true(trimmed.purged >= (NPARKED * bytes / page - 2 * 3) * page);
    size_t gone = 0;
    for (int i = 0; i < NPARKED; i++)
        gone += !resident((char *)pk[i].tc + bytes / 2);
    assert_true(gone >= NPARKED / 2);
    for (int i = 0; i < NPARKED; i++)
        parker_finish(&pk[i], t[i]);
    for (int i = 0; i < NPARKED; i++) {
        assert_false(pk[i].kept);
        assert_true(pk[i].ok);
        assert_true(pk[i].rebound);
    }
    rp_hd_tcache_census(&after);
    assert_int_equal(after.released, before.released);
    assert_int_equal(after.owned, before.owned);
    assert_true(after.free >= NPARKED);
}

/* A thread that ends while parked (cancelled in its wait): its exit gives
 * up the cache a trim released, and flushes nothing twice; one that ends
 * parked with no trim takes its cache back and flushes it as usual. */
static void test_exit_while_parked(void **state)
{
    (void)state;
    rp_hd_tcache_census_t before, after;
    rp_hd_tcache_census(&before);
    parker_t released = PARKER_INIT, still = PARKER_INIT;
    released.park = released.exit_parked = true;
    still.park = still.exit_parked = true;
    pthread_t a, b;
    parker_start(&released, &a);
    rp_hoard_trim();
    parker_start(&still, &b);
    parker_finish(&released, a);
    parker_finish(&still, b);
    rp_hd_tcache_census(&after);
    assert_int_equal(after.released, before.released); /* the released one was given up */
    assert_int_equal(after.owned, before.owned);       /* the other one freed */
}

/* A second park without an unpark between (reap_base_wait_begin twice)
 * finds the cache released by a trim and gives it up; the thread goes on
 * with a new one. */
static void test_park_twice(void **state)
{
    (void)state;
    parker_t pk = PARKER_INIT;
    pk.park = pk.park_again = true;
    pthread_t t;
    parker_start(&pk, &t);
    rp_hoard_trim();
    parker_finish(&pk, t);
    assert_false(pk.kept);
    assert_true(pk.ok);
    assert_true(pk.rebound);
}

/* ---- a thread's first calls: no cache yet ---- */

/* With tcache_after = UNCACHED, a thread's first UNCACHED calls go to a
 * heap under its lock and leave the thread without a cache: the blocks
 * are distinct and usable, a freed one is known to be free (its
 * superblock emptied and took a new key, so the check is the locked one),
 * and the call after them gives the thread its cache. */
#define UNCACHED 16

typedef struct uncached {
    bool none_throughout; /* rp_hd_tls stayed rp_hd_none for UNCACHED calls */
    bool distinct;        /* the blocks held what was written into each */
    bool freed_known;     /* rp_hoard_check said the freed block is freed */
    bool cached_after;    /* a real cache after one more call */
} uncached_t;

static void *uncached_main(void *arg)
{
    uncached_t *u = arg;
    enum { N = UNCACHED / 2 - 1 };
    unsigned char *b[N];
    u->none_throughout = true;
    u->distinct = true;
    for (int i = 0; i < N; i++) { /* a class no other test uses, so its superblock empties */
        b[i] = rp_hoard_malloc(112);
        u->distinct = u->distinct && b[i] != NULL;
        if (b[i])
            memset(b[i], i, 112);
        u->none_throughout = u->none_throughout && rp_hd_tls == &rp_hd_none;
    }
    for (int i = 0; i < N && u->distinct; i++)
        for (int k = 0; k < 112; k++)
            u->distinct = u->distinct && b[i][k] == i;
    for (int i = 0; i < N; i++) {
        rp_hoard_free(b[i]);
        u->none_throughout = u->none_throughout && rp_hd_tls == &rp_hd_none;
    }
    void *last = rp_hoard_malloc(112); /* call UNCACHED - 1 */
    rp_hoard_free(last);               /* call UNCACHED: the superblock is empty again */
    u->none_throughout = u->none_throughout && rp_hd_tls == &rp_hd_none;
    size_t mode = rp_misuse_mode;
    rp_misuse_mode = RP_MISUSE_REPORT; /* one line on stderr, no abort */
    u->freed_known = !rp_hoard_check(last, "check");
    rp_misuse_mode = mode;
    rp_hoard_free(rp_hoard_malloc(112)); /* call UNCACHED + 1 */
    u->cached_after = rp_hd_tls != &rp_hd_none && rp_hd_tls->heap != NULL;
    return NULL;
}

static void test_uncached_calls(void **state)
{
    (void)state;
    size_t after = rp_hd_opt.tcache_after;
    rp_hd_opt.tcache_after = UNCACHED;
    uncached_t u = {false, false, false, false};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, uncached_main, &u), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    rp_hd_opt.tcache_after = after;
    assert_true(u.none_throughout);
    assert_true(u.distinct);
    assert_true(u.freed_known);
    assert_true(u.cached_after);
}

/* A thread whose cache a trim released starts again as a new thread
 * does: its first tcache_after calls after waking make no cache, so a
 * server that fell quiet makes caches again only for the threads that
 * allocate. */
static void test_released_thread_starts_uncached(void **state)
{
    (void)state;
    size_t after = rp_hd_opt.tcache_after;
    rp_hd_opt.tcache_after = UNCACHED; /* the parker's 64 calls pass it */
    parker_t released = run_parker(true), busy = run_parker(false);
    rp_hd_opt.tcache_after = after;
    assert_false(released.kept);
    assert_true(released.none_after_wake);
    assert_true(released.rebound); /* past UNCACHED calls again */
    assert_true(released.ok);
    assert_true(busy.kept);
    assert_false(busy.none_after_wake);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overflow_grows),
        cmocka_unit_test(test_grows_once_per_refill),
        cmocka_unit_test(test_budget_bounds),
        cmocka_unit_test(test_process_budget_bounds),
        cmocka_unit_test(test_caches_packed),
        cmocka_unit_test(test_underflow_keeps),
        cmocka_unit_test(test_reused_cache_starts_over),
        cmocka_unit_test(test_range_given_back),
        cmocka_unit_test(test_range_of_another_heap),
        cmocka_unit_test(test_run_breaks_and_restarts),
        cmocka_unit_test(test_trim_releases_parked),
        cmocka_unit_test(test_released_pages_given_back),
        cmocka_unit_test(test_exit_while_parked),
        cmocka_unit_test(test_park_twice),
        cmocka_unit_test(test_uncached_calls),
        cmocka_unit_test(test_released_thread_starts_uncached),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
