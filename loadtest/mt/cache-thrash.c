/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * cache-thrash.c - active false sharing (Hoard's cache-thrash): each
 * thread repeatedly allocates a small object, writes it many times and
 * frees it.  An allocator that gives concurrent threads pieces of one
 * cache line makes them fight over it without any sharing in the program.
 */
#include "bench.h"

#define SIZE 8
#define ITERATIONS 40000
#define REPS 2000

typedef struct arg {
    BENCH_LANE long iters;
} arg_t;

static arg_t args[BENCH_MAX_THREADS];

static void *worker(void *v)
{
    arg_t *a = v;
    bench_scribble(a->iters, SIZE, REPS);
    return NULL;
}

int main(int argc, char **argv)
{
    bench_args_t b = bench_parse(argc, argv, "cache-thrash", "active false sharing");
    long iters = bench_work(&b, ITERATIONS, true);
    for (int i = 0; i < b.threads; i++)
        args[i].iters = iters;
    bench_go(&b, worker, args, sizeof *args, (double)iters * b.threads * REPS * SIZE);
    return 0;
}
