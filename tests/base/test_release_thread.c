/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_release_thread.c - the release thread (libreap/src/base/release.c):
 * memory freed by a burst goes back to the OS although the program makes
 * no allocator call after its last free, and a forked child that makes
 * none at all gives back what it inherited, through a thread of its own;
 * empties past REAP_RETAIN_MAX go back by the thread, not by the frees,
 * and a fork while it gives them back waits for the batch; a thread's
 * exit leaves its memory to the thread.
 * What is asserted are the thread's counters (its trims after the quiet
 * interval, the bytes it returned), read with plain atomic loads, which
 * are no allocator calls; a wait for them is bounded, never timed.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/hoard.h"

#define BURST (24u << 20)
#define OBJ 256
#define NOBJ (BURST / OBJ)
#define WAIT_MS 20000 /* far above the 300 ms of quiet the thread waits for */

static void *objs[NOBJ];

static int setup(void **state)
{
    (void)state;
    setenv("REAP_IDLE_MS", "300", 1);
    /* a decay far longer than any run: the in-line clocks of the burst's
     * own frees give nothing back (under TSan a burst is slow enough that
     * they did, and the thread found little left), so what comes back
     * after the last free is the thread's trim, and it must come on time
     * although the next decay period is a minute away */
    setenv("REAP_DECAY_MS", "60000", 1);
    setenv("REAP_RELEASE", "on", 1);
    setenv("REAP_RETAIN_MAX", "4m", 1); /* a burst passes it (test_over_cap) */
    rp_hd_init();
    return 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static uint64_t trims(void) { return atomic_load(&rp_hd_bg.trims); }
static uint64_t given(void) { return atomic_load(&rp_hd_bg.returned); }

/* Waits, making no allocator call, until the thread has trimmed more than
 * `after' times; false if it never does. */
static bool wait_trims(uint64_t after)
{
    for (long t = 0; t < WAIT_MS; t += 10) {
        if (trims() > after)
            return true;
        sleep_ms(10);
    }
    return false;
}

/* n (at most NOBJ) blocks written and freed; false if one could not be
 * had.  No cmocka assert: exit_worker runs it outside the main thread. */
static bool churn(size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!(objs[i] = rp_hoard_malloc(OBJ)))
            return false;
        memset(objs[i], 0x5a, OBJ);
    }
    for (size_t i = 0; i < n; i++)
        rp_hoard_free(objs[i]);
    return true;
}

/* A burst: NOBJ blocks.  The thread starts on the way (the allocator
 * passes RP_HD_RELEASE_MIN). */
static void burst(void) { assert_true(churn(NOBJ)); }

/* After the last free, no allocator call: the thread trims once the
 * quiet interval has passed and gives the burst's memory back. */
static void test_no_call_after_burst(void **state)
{
    (void)state;
    uint64_t t0 = trims(), g0 = given();
    burst();
    assert_int_equal(atomic_load(&rp_hd_bg.state), RP_HD_BG_RUNNING);
    assert_true(wait_trims(t0));
    assert_true(given() - g0 >= BURST / 2);
    /* then it sleeps: nothing left, no activity */
    for (long t = 0; t < WAIT_MS && !atomic_load(&rp_hd_bg.asleep); t += 10)
        sleep_ms(10);
    assert_true(atomic_load(&rp_hd_bg.asleep));
}

/* An allocator operation wakes a sleeping thread, and the next quiet
 * spell gets a trim of its own. */
static void test_woken_by_activity(void **state)
{
    (void)state;
    for (long t = 0; t < WAIT_MS && !atomic_load(&rp_hd_bg.asleep); t += 10)
        sleep_ms(10);
    uint64_t t0 = trims();
    burst();
    assert_true(wait_trims(t0));
}

/* A child forked right after a burst, which makes no allocator call at
 * all, runs a thread of its own that gives back what it inherited. */
static void test_across_fork(void **state)
{
    (void)state;
    burst();
    uint64_t t0 = trims(), g0 = given();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        bool ok = atomic_load(&rp_hd_bg.state) == RP_HD_BG_RUNNING && wait_trims(t0) &&
                  given() - g0 >= BURST / 4;
        _exit(ok ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* REAP_IDLE_MS set to 0 at run time (reap_base_idle_release(0)): the
 * thread's decay goes on, its whole trims stop. */
static void test_idle_off(void **state)
{
    (void)state;
    rp_hd_release_set_idle(0);
    uint64_t t0 = trims();
    burst();
    sleep_ms(1000); /* three quiet intervals of before */
    assert_int_equal(trims(), t0);
    rp_hd_release_set_idle(300);
    assert_true(wait_trims(t0));
}

/* Past REAP_RETAIN_MAX, the frees that fill the global heap give nothing
 * back themselves while the thread runs: they wake it, and it gives the
 * excess back, with no whole trim (idle trims off) and a decay period a
 * minute away.  What went back is the thread's, and what stays is at most
 * the cap. */
static uint64_t global_empty(void)
{
    rp_hoard_stats_t st;
    rp_hoard_get_stats(&st); /* under the heaps' locks; not an operation */
    return st.global_empty;
}

/* Every superblock is a heap's or the space's: the address space taken
 * from the region is what the space holds free plus S for each superblock
 * a heap owns (no large object is live in this program).  All heaps
 * locked, which also waits out a batch the release thread is giving. */
static bool accounted(void)
{
    size_t owned = 0;
    rp_hd_heaps_lock_all();
    for (uint32_t i = 0; i <= rp_hd_nheaps; i++)
        owned += rp_hd_heaps[i].nsb;
    size_t free_space;
    rp_hd_space_spans(&free_space);
    rp_hd_heaps_unlock_all(false);
    return atomic_load(&rp_hd_region.len) == free_space + owned * rp_hd_opt.sb_size;
}

static void test_over_cap(void **state)
{
    (void)state;
    rp_hd_release_set_idle(0);
    uint64_t t0 = trims(), g0 = given();
    burst();
    for (long t = 0; t < WAIT_MS && (given() - g0 < BURST / 2 || global_empty() > (4u << 20)); t += 10)
        sleep_ms(10);
    assert_true(given() - g0 >= BURST / 2);
    assert_true(global_empty() <= (4u << 20));
    assert_int_equal(trims(), t0);
    assert_true(accounted());
    rp_hd_release_set_idle(300);
}

/* madvise as the library calls it: the system call, unless
 * test_fork_mid_batch holds the release thread in it; counted when
 * exit_worker's thread makes it. */
static pthread_t main_thread;
static _Atomic int hold;    /* 1: another thread's next madvise waits for the fork */
static _Atomic int holding; /* it is waiting */
static _Atomic int forked;  /* the main thread has forked */
static __thread bool exiting_worker;
static _Atomic long worker_madvises;

int madvise(void *addr, size_t len, int advice)
{
    int one = 1;
    if (exiting_worker)
        atomic_fetch_add(&worker_madvises, 1);
    if (!pthread_equal(pthread_self(), main_thread) && atomic_compare_exchange_strong(&hold, &one, 0)) {
        atomic_store(&holding, 1);
        /* at most 300 ms: a fork that waits for this batch waits for this */
        for (long t = 0; t < 300 && !atomic_load(&forked); t++)
            sleep_ms(1);
        atomic_store(&holding, 0);
    }
    return (int)syscall(SYS_madvise, addr, len, advice);
}

/* A fork while the release thread gives a batch of empties back, the
 * global heap's lock let go: the fork waits for the batch, so that the
 * child inherits every superblock in a heap or in the space.  The thread
 * is held in the batch's first madvise (its only system call with idle
 * trims off and a decay period a minute away) until the main thread has
 * forked, or 300 ms have passed. */
static void test_fork_mid_batch(void **state)
{
    (void)state;
    rp_hd_release_set_idle(0);
    main_thread = pthread_self();
    atomic_store(&forked, 0);
    atomic_store(&hold, 1);
    burst();
    for (long t = 0; t < WAIT_MS && !atomic_load(&holding); t++)
        sleep_ms(1);
    assert_true(atomic_load(&holding));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(accounted() ? 0 : 1);
    atomic_store(&forked, 1);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(accounted());
    rp_hd_release_set_idle(300);
}

/* A thread that frees a burst and exits, the last of its heap. */
#define SMALL_BURST (2u << 20)
static void *exit_worker(void *arg)
{
    exiting_worker = true;
    return churn(SMALL_BURST / OBJ) ? arg : NULL;
}

/* While the release thread runs, a thread's exit leaves the giving back
 * to it: the exiting thread makes no system call (it used to purge the
 * pages of every empty superblock the global heap kept, which the next
 * thread faulted in again), and the thread's trim gives its memory
 * back. */
static void test_exit_leaves_it_to_the_thread(void **state)
{
    (void)state;
    rp_hd_release_set_idle(0);
    uint64_t g0 = given();
    pthread_t t;
    void *ok = NULL;
    assert_int_equal(pthread_create(&t, NULL, exit_worker, &ok), 0);
    assert_int_equal(pthread_join(t, &ok), 0);
    assert_non_null(ok);
    assert_int_equal(atomic_load(&worker_madvises), 0);
    assert_true(accounted());
    uint64_t t0 = trims();
    rp_hd_release_set_idle(300);
    assert_true(wait_trims(t0));
    assert_true(given() - g0 >= SMALL_BURST / 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_call_after_burst),
        cmocka_unit_test(test_woken_by_activity),
        cmocka_unit_test(test_across_fork),
        cmocka_unit_test(test_idle_off),
        cmocka_unit_test(test_over_cap),
        cmocka_unit_test(test_fork_mid_batch),
        cmocka_unit_test(test_exit_leaves_it_to_the_thread),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
