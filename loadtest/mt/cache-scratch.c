/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * cache-scratch.c - passive false sharing (Hoard's cache-scratch): the
 * main thread allocates one small object per thread, all likely in one
 * cache line, and hands one to each thread; each thread frees it, then
 * repeatedly allocates an object of the same size and writes it many
 * times.  An allocator that lets a thread reuse the freed piece of another
 * thread's cache line makes the threads fight over that line.
 */
#include "bench.h"

#define SIZE 8
#define ITERATIONS 40000
#define REPS 2000

typedef struct arg {
    BENCH_LANE char *given;
    long iters;
} arg_t;

static arg_t args[BENCH_MAX_THREADS];

static void *worker(void *v)
{
    arg_t *a = v;
    free(a->given);
    bench_scribble(a->iters, SIZE, REPS);
    return NULL;
}

int main(int argc, char **argv)
{
    bench_args_t b = bench_parse(argc, argv, "cache-scratch", "passive false sharing");
    long iters = bench_work(&b, ITERATIONS, true);
    for (int i = 0; i < b.threads; i++) {
        args[i].given = malloc(SIZE);
        args[i].iters = iters;
    }
    bench_go(&b, worker, args, sizeof *args, (double)iters * b.threads * REPS * SIZE);
    return 0;
}
