/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * shbench.c - random sizes, after MicroQuill's SmartHeap benchmark: each
 * thread allocates batches of objects of random sizes between 1 and 1000
 * bytes (mostly small) and frees them in a random order that overlaps the
 * next batch, so blocks of many sizes are freed and reused in mixtures.
 */
#include "bench.h"

#define BATCH 1000
#define ROUNDS 16000

typedef struct arg {
    BENCH_LANE uint64_t seed;
    long rounds;
} arg_t;

static arg_t args[BENCH_MAX_THREADS];

static size_t pick_size(uint64_t *s)
{
    uint64_t r = bench_rand(s);
    return (r & 3) ? 1 + (size_t)((r >> 8) % 100) : 1 + (size_t)((r >> 8) % 1000);
}

static void *worker(void *v)
{
    arg_t *a = v;
    char *held[BATCH] = {0};
    for (long r = 0; r < a->rounds; r++) {
        for (int i = 0; i < BATCH; i++) {
            int k = (int)(bench_rand(&a->seed) % BATCH);
            free(held[k]); /* random order: frees overlap allocations */
            size_t size = pick_size(&a->seed);
            held[k] = malloc(size);
            held[k][0] = (char)size;
        }
        if (r % 10 == 9)
            for (int i = 0; i < BATCH; i += 2) {
                free(held[i]);
                held[i] = NULL;
            }
    }
    for (int i = 0; i < BATCH; i++)
        free(held[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    bench_args_t b = bench_parse(argc, argv, "shbench", "random sizes 1..1000 freed in random order");
    long rounds = bench_work(&b, ROUNDS, true);
    for (int i = 0; i < b.threads; i++) {
        args[i].seed = 0xa0761d6478bd642full * (uint64_t)(i + 1);
        args[i].rounds = rounds;
    }
    bench_go(&b, worker, args, sizeof *args, (double)rounds * b.threads * BATCH);
    return 0;
}
