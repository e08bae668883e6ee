/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * release.c - the release thread: memory goes back to the OS while the
 * program makes no allocator call.
 *
 * The decay clocks of heap.c (empty superblocks) and large.c (the cache
 * of freed large mappings) advance only when some thread takes their
 * locks, so a program whose threads all wait after a burst (an httpd
 * child between bursts, a worker pool) would keep the burst.  This
 * thread runs them: every decay period while something waits to decay,
 * and, once the allocator has seen no operation for idle_ms after some
 * activity, one whole trim (rp_base_trim: the trim hook, the parked
 * threads' caches, the empties the global heap retains and the free pages
 * of superblocks in use).  Then it sleeps until an operation of the
 * allocator wakes it (rp_hd_release_wake, one relaxed load on the heaps'
 * locked paths), so an idle process pays no wake-ups.
 *
 * It is jemalloc's background thread with its decay, with two choices of
 * our own: it starts by itself, once the allocator holds more than
 * RP_HD_RELEASE_MIN (a small program never gets it), from an allocation's
 * slow path (never from a free: glibc frees thread descriptors with its
 * stack-cache lock held, which pthread_create takes); and a forked child
 * whose parent ran one starts its own at once, in the fork handler, so a
 * child that inherits a burst and never calls the allocator still gives
 * it back.  The thread blocks every signal, has a small stack, and uses
 * no cache of its own (rp_hd_nocache).  REAP_RELEASE=off turns it off;
 * the in-line clocks then work as before.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "../util/annotate.h"
#include "base.h"
#include "hoard.h"

rp_hd_release_t rp_hd_bg;

static pthread_mutex_t bg_lock = PTHREAD_MUTEX_INITIALIZER; /* a leaf: taken under heap locks */
static pthread_cond_t bg_cond;                              /* CLOCK_MONOTONIC; bg_lock */
static bool bg_poked;                                       /* bg_lock */

#define STACK_BYTES (256u << 10)
#define PERIOD_MIN_MS 10

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Every operation the heaps and the large objects have counted: while it
 * changes, the program is using the allocator.  With `locked', each
 * heap's count is read under its lock: an operation that counted itself
 * after this read sees asleep set (it reads the flag under the same lock,
 * rp_hd_release_wake), one before it is in the sum. */
static uint64_t activity(bool locked)
{
    uint64_t n = rp_hd_large_ops();
    for (uint32_t i = 0; i <= rp_hd_nheaps; i++) {
        if (locked)
            pthread_mutex_lock(&rp_hd_heaps[i].lock);
        n += atomic_load_explicit(&rp_hd_heaps[i].ops, memory_order_relaxed);
        if (locked)
            pthread_mutex_unlock(&rp_hd_heaps[i].lock);
    }
    return n;
}

static uint64_t returned(void) { return atomic_load_explicit(&rp_hd_cnt.returned, memory_order_relaxed); }

/* The decay clocks, one period; true while something is left to decay. */
static bool tick(void)
{
    rp_ann_quiet_begin();
    bool pending = rp_hd_heap_decay();
    pending |= rp_hd_large_decay();
    rp_ann_quiet_end();
    return pending;
}

/* Whether the thread may sleep until poked: nothing happened since
 * activity read seen.  Sets asleep first, without bg_lock (wakers take
 * it under heap locks), so that no operation after the check goes
 * unseen. */
static bool may_sleep(uint64_t seen)
{
    atomic_store_explicit(&rp_hd_bg.asleep, 1, memory_order_seq_cst);
    if (activity(true) == seen)
        return true;
    atomic_store_explicit(&rp_hd_bg.asleep, 0, memory_order_relaxed);
    return false;
}

/* Waits, bg_lock held, until poked or, with a deadline, until it passes. */
static void wait_for(bool forever, uint64_t ms)
{
    if (forever) {
        while (!bg_poked)
            pthread_cond_wait(&bg_cond, &bg_lock);
        atomic_store_explicit(&rp_hd_bg.asleep, 0, memory_order_relaxed);
    } else if (!bg_poked) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += (time_t)(ms / 1000);
        ts.tv_nsec += (long)(ms % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&bg_cond, &bg_lock, &ts);
    }
    bg_poked = false;
}

static void *bg_main(void *arg)
{
    (void)arg;
    rp_hd_tls = &rp_hd_nocache; /* frees (the trim hook's) go straight to their superblocks */
    uint64_t seen = activity(false), trimmed_at = seen - 1, quiet_since = now_ms();
    pthread_mutex_lock(&bg_lock);
    for (;;) {
        pthread_mutex_unlock(&bg_lock);
        uint64_t before = returned();
        bool pending = tick();
        uint64_t a = activity(false), t = now_ms();
        size_t idle = __atomic_load_n(&rp_hd_opt.idle_ms, __ATOMIC_RELAXED);
        if (a != seen) {
            seen = a;
            quiet_since = t;
        }
        bool trim_due = idle != 0 && a != trimmed_at;
        if (trim_due && t - quiet_since >= idle) {
            rp_base_trim();
            atomic_fetch_add_explicit(&rp_hd_bg.trims, 1, memory_order_relaxed);
            seen = trimmed_at = activity(false); /* the trim's own operations */
            trim_due = false;
            pending = false; /* the trim gave back all the decay would have */
        }
        atomic_fetch_add_explicit(&rp_hd_bg.returned, returned() - before, memory_order_relaxed);
        atomic_fetch_add_explicit(&rp_hd_bg.ticks, 1, memory_order_relaxed);
        /* the next decay period, or the moment the trim falls due if that
         * is sooner (REAP_DECAY_MS may be far above REAP_IDLE_MS) */
        uint64_t period = rp_hd_opt.decay_ms;
        if (trim_due && t - quiet_since + period > idle)
            period = t - quiet_since < idle ? idle - (t - quiet_since) : 0;
        if (period < PERIOD_MIN_MS)
            period = PERIOD_MIN_MS;
        bool forever = !pending && !trim_due && may_sleep(seen);
        pthread_mutex_lock(&bg_lock);
        wait_for(forever, period);
        if (forever)
            quiet_since = now_ms(); /* woken by an operation: the quiet starts after it */
    }
    return NULL;
}

/* Starts the thread; the caller holds no allocator lock (pthread_create
 * allocates). */
static void start(void)
{
    int expected = RP_HD_BG_NONE;
    if (!atomic_compare_exchange_strong(&rp_hd_bg.state, &expected, RP_HD_BG_STARTING))
        return;
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_BYTES);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits the mask */
    int saved = errno;
    int rc = pthread_create(&t, &attr, bg_main, NULL);
    errno = saved;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        pthread_setname_np(t, "reap-release");
    /* no thread (no resources, a sandbox): the in-line clocks go on alone */
    atomic_store_explicit(&rp_hd_bg.state, rc == 0 ? RP_HD_BG_RUNNING : RP_HD_BG_FAILED,
                          memory_order_release);
}

void rp_hd_release_start(void)
{
    if (rp_hd_opt.release && atomic_load_explicit(&rp_hd_cnt.mapped, memory_order_relaxed) >= RP_HD_RELEASE_MIN)
        start();
}

void rp_hd_release_wake_slow(void)
{
    pthread_mutex_lock(&bg_lock);
    bg_poked = true;
    pthread_cond_signal(&bg_cond);
    pthread_mutex_unlock(&bg_lock);
}

static void cond_init(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&bg_cond, &ca);
    pthread_condattr_destroy(&ca);
}

void rp_hd_release_init(void) { cond_init(); }

void rp_hd_release_fork(int phase)
{
    if (phase == 0) {
        pthread_mutex_lock(&bg_lock);
        return;
    }
    if (phase == 1) {
        pthread_mutex_unlock(&bg_lock);
        return;
    }
    /* the child: the parent's thread is not here */
    pthread_mutex_init(&bg_lock, NULL);
    cond_init();
    bg_poked = false;
    atomic_store_explicit(&rp_hd_bg.asleep, 0, memory_order_relaxed);
    bool had = atomic_load_explicit(&rp_hd_bg.state, memory_order_relaxed) == RP_HD_BG_RUNNING;
    atomic_store_explicit(&rp_hd_bg.state, RP_HD_BG_NONE, memory_order_relaxed);
    if (had)
        start();
}

void rp_hd_release_set_idle(size_t ms)
{
    __atomic_store_n(&rp_hd_opt.idle_ms, ms, __ATOMIC_RELAXED);
    rp_hd_release_wake_slow(); /* asleep or in a timed wait: it recomputes when to trim */
}
