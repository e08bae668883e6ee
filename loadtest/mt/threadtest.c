/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * threadtest.c - Hoard's threadtest: each of T threads repeatedly
 * allocates its share of N small objects and frees them all, with no
 * sharing between threads.  Measures raw speed and scalability of the
 * per-thread path.  Work is fixed in total (split among threads).
 */
#include "bench.h"

#define ITERATIONS 50
#define OBJECTS 100000
#define SIZE 64

typedef struct arg {
    BENCH_LANE long n, iters;
} arg_t;

static arg_t args[BENCH_MAX_THREADS];

static void *worker(void *v)
{
    arg_t *a = v;
    char **obj = malloc(sizeof *obj * (size_t)a->n);
    for (long it = 0; it < a->iters; it++) {
        for (long i = 0; i < a->n; i++) {
            obj[i] = malloc(SIZE);
            obj[i][0] = (char)i;
        }
        for (long i = 0; i < a->n; i++)
            free(obj[i]);
    }
    free(obj);
    return NULL;
}

int main(int argc, char **argv)
{
    bench_args_t b = bench_parse(argc, argv, "threadtest", "allocate and free 64-byte objects per thread");
    long iters = bench_work(&b, ITERATIONS, false), n = OBJECTS / b.threads;
    for (int i = 0; i < b.threads; i++) {
        args[i].n = n;
        args[i].iters = iters;
    }
    bench_go(&b, worker, args, sizeof *args, 2.0 * (double)iters * (double)n * b.threads);
    return 0;
}
