/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * prodcons.c - producer-consumer blowup, after xmalloc-test: T producer
 * threads allocate objects of random sizes (16..512 bytes) and pass them
 * through bounded queues to T consumer threads, which free them.  The live
 * set is bounded by the queues, so memory held should stay near it: the
 * benchmark prints blowup = (peak RSS - RSS before) / peak live bytes,
 * which Hoard's design keeps bounded and pure per-thread heaps do not.
 *
 * A consumer stays LAG objects behind its producer, so every pair keeps
 * between LAG and QUEUE objects (1-2 MB) live the whole run.  Without the
 * lag a consumer that kept pace held a few hundred objects, the peak live
 * set swung between 0.2 and 2.1 MB from run to run, and blowup measured
 * the allocators' fixed per-thread parts (1.2 to 2.5 for the same library)
 * rather than how they reuse what other threads free.
 */
#include <stdatomic.h>

#include "bench.h"

#define QUEUE 8192        /* objects in flight per producer-consumer pair */
#define LAG (QUEUE / 2)   /* objects a consumer stays behind its producer */
#define ITEMS 4000000     /* objects per pair at scale 1 */

typedef struct pair {
    BENCH_LANE _Atomic(void *) *ring;
    long items;
    _Atomic long live_bytes;
    _Atomic long produced; /* objects the producer has put in the ring */
    long peak_live;
    uint64_t seed;
} pair_t;

/* Thread 2i produces for pair i, thread 2i + 1 consumes. */
typedef struct role {
    BENCH_LANE pair_t *pair;
    bool consumes;
} role_t;

static pair_t pairs[BENCH_MAX_THREADS / 2];
static role_t roles[BENCH_MAX_THREADS];

static void *producer(void *v)
{
    pair_t *p = v;
    for (long i = 0; i < p->items; i++) {
        size_t size = 16 + (size_t)(bench_rand(&p->seed) % 497);
        char *o = malloc(size);
        memcpy(o, &size, sizeof size);
        long live = atomic_fetch_add(&p->live_bytes, (long)size) + (long)size;
        if (live > p->peak_live)
            p->peak_live = live;
        _Atomic(void *) *slot = &p->ring[i % QUEUE];
        void *expected = NULL;
        while (!atomic_compare_exchange_weak(slot, &expected, o)) {
            expected = NULL;
            sched_yield();
        }
        atomic_store(&p->produced, i + 1);
    }
    return NULL;
}

static void *consumer(void *v)
{
    pair_t *p = v;
    for (long i = 0; i < p->items; i++) {
        /* No deadlock: the producer's object i + LAG needs only slot
         * (i + LAG) % QUEUE, freed when this consumer took i + LAG - QUEUE,
         * an earlier object. */
        long behind = i + LAG + 1 < p->items ? i + LAG + 1 : p->items;
        while (atomic_load(&p->produced) < behind)
            sched_yield();
        void *o;
        while ((o = atomic_exchange(&p->ring[i % QUEUE], NULL)) == NULL)
            sched_yield();
        size_t size;
        memcpy(&size, o, sizeof size);
        atomic_fetch_sub(&p->live_bytes, (long)size);
        free(o);
    }
    return NULL;
}

static void *play(void *v)
{
    role_t *r = v;
    return r->consumes ? consumer(r->pair) : producer(r->pair);
}

int main(int argc, char **argv)
{
    bench_args_t b = bench_parse(argc, argv, "prodcons", "producer-consumer blowup (xmalloc-test style); -t counts pairs' threads");
    int npairs = b.threads < 2 ? 1 : b.threads / 2, nthreads = 2 * npairs;
    for (int i = 0; i < nthreads; i++)
        roles[i] = (role_t){&pairs[i / 2], i % 2 == 1};
    /* The allocator under test starts up (its tables, the main thread's
     * cache) before the baseline is taken: blowup is about what it holds
     * for what the threads pass along, not its fixed start-up cost (the
     * pairs were calloc()ed here, and did that, until they became static). */
    void *volatile warm = malloc(64); /* volatile: the compiler may drop a bare free(malloc()) */
    free(warm);
    long rss0 = bench_peak_rss_kb();
    for (int i = 0; i < npairs; i++) {
        pairs[i].ring = calloc(QUEUE, sizeof *pairs[i].ring);
        pairs[i].items = (long)(ITEMS * b.scale) / npairs;
        pairs[i].seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
    }
    double secs = bench_run_threads(nthreads, play, roles, sizeof *roles);
    double peak_live = 0, ops = 0;
    for (int i = 0; i < npairs; i++) {
        peak_live += (double)pairs[i].peak_live;
        ops += (double)pairs[i].items;
    }
    char extra[96];
    double grown = (double)(bench_peak_rss_kb() - rss0) * 1024.0;
    snprintf(extra, sizeof extra, "peak_live_kb=%.0f blowup=%.2f", peak_live / 1024, grown / peak_live);
    bench_report(b.name, nthreads, secs, ops, extra);
    return 0;
}
