/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mstress.c - a large, changing live set across threads, after mimalloc's
 * mstress: each thread keeps an array of live objects (mostly small, some
 * up to 64 KiB, a few larger), repeatedly replaces random ones, and in
 * every round moves a share of its objects to a shared pool where other
 * threads pick them up and free them.  The live set stays around 60 MB in
 * total; peak RSS shows how much more an allocator holds.
 */
#include <stdatomic.h>

#include "bench.h"

#define LIVE 40000           /* objects alive at once, all threads together */
#define ROUNDS 20
#define OPS_PER_ROUND 100000
#define POOL 4096

static _Atomic(void *) pool[POOL];

static size_t pick_size(uint64_t *s)
{
    uint64_t r = bench_rand(s) % 1000;
    if (r < 900)
        return 8 + (size_t)(bench_rand(s) % 248);    /* small */
    if (r < 995)
        return 256 + (size_t)(bench_rand(s) % 16128); /* medium */
    return 65536 + (size_t)(bench_rand(s) % 262144); /* large */
}

typedef struct arg {
    BENCH_LANE uint64_t seed;
    long rounds;
    int nthreads;
} arg_t;

static arg_t args[BENCH_MAX_THREADS];

static void *worker(void *v)
{
    arg_t *a = v;
    size_t live = LIVE / (size_t)a->nthreads;
    char **obj = calloc(live, sizeof *obj);
    for (long r = 0; r < a->rounds; r++) {
        for (long i = 0; i < OPS_PER_ROUND / a->nthreads; i++) {
            size_t k = (size_t)(bench_rand(&a->seed) % live);
            free(obj[k]);
            size_t size = pick_size(&a->seed);
            obj[k] = malloc(size);
            obj[k][0] = obj[k][size - 1] = 1;
        }
        for (size_t k = 0; k < live; k += 8) { /* share an eighth with others */
            void *old = atomic_exchange(&pool[bench_rand(&a->seed) % POOL], obj[k]);
            obj[k] = old;
        }
    }
    for (size_t k = 0; k < live; k++)
        free(obj[k]);
    free(obj);
    return NULL;
}

int main(int argc, char **argv)
{
    bench_args_t b = bench_parse(argc, argv, "mstress", "large changing live set with cross-thread frees");
    long rounds = bench_work(&b, ROUNDS, false);
    for (int i = 0; i < b.threads; i++) {
        args[i].seed = 0xd1b54a32d192ed03ull * (uint64_t)(i + 1);
        args[i].rounds = rounds;
        args[i].nthreads = b.threads;
    }
    bench_go(&b, worker, args, sizeof *args, (double)rounds * (OPS_PER_ROUND / b.threads) * b.threads);
    for (int i = 0; i < POOL; i++)
        free(atomic_exchange(&pool[i], NULL));
    return 0;
}
