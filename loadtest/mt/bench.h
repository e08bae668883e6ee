/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * bench.h - what the allocator benchmarks of loadtest/mt/ share, so each
 * holds only its own loop: argument parsing (-t threads, -s scale) and the
 * amount of work it scales, starting the threads and timing them, a
 * deterministic random number generator, and one result line per run in a
 * fixed format that run.sh parses:
 *   bench=NAME threads=N seconds=S ops=N mops_per_s=X peak_rss_kb=K [extra]
 * A benchmark's main parses (bench_parse), fills each thread's lane, and
 * calls bench_go, or bench_run_threads and bench_report when its report
 * needs figures of the run.  The benchmarks only call malloc/free: the
 * allocator is chosen outside, with LD_PRELOAD.
 */
#ifndef REAP_BENCH_H
#define REAP_BENCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

/* The largest -t, and the alignment of each thread's state (its lane):
 * the benchmarks keep it in static arrays of structs whose first member
 * is BENCH_LANE, so no two threads' state shares a cache line, or a pair
 * of lines (the L2's adjacent-line prefetcher fetches 128-byte pairs),
 * whatever allocator is loaded.  They used to calloc() it, padded to 64
 * bytes: the allocator under test decided whether two threads' fields
 * shared a line (with glibc's 16-byte alignment they could). */
#define BENCH_MAX_THREADS 1024
#define BENCH_LANE _Alignas(128)

typedef struct bench_args {
    const char *name; /* bench= in the result line */
    int threads; /* -t, default 1 */
    double scale; /* -s, multiplies the amount of work, default 1 */
} bench_args_t;

/* Reads -t and -s; on -h or a bad option prints the usage with what, the
 * benchmark's one-line description, and exits. */
static inline bench_args_t bench_parse(int argc, char **argv, const char *name, const char *what)
{
    bench_args_t a = {name, 1, 1.0};
    int c;
    while ((c = getopt(argc, argv, "t:s:h")) != -1) {
        if (c == 't')
            a.threads = atoi(optarg);
        else if (c == 's')
            a.scale = atof(optarg);
        else {
            fprintf(stderr, "usage: %s [-t threads] [-s scale]\n%s: %s\n", argv[0], name, what);
            exit(c == 'h' ? 0 : 2);
        }
    }
    if (a.threads < 1 || a.threads > BENCH_MAX_THREADS || !(a.scale > 0)) {
        fprintf(stderr, "%s: threads must be 1..%d and scale > 0\n", argv[0], BENCH_MAX_THREADS);
        exit(2);
    }
    return a;
}

/* The amount of work -s asks for: base * scale, divided among the threads
 * when split (the total is fixed) and not when each thread does it all;
 * at least 1. */
static inline long bench_work(const bench_args_t *b, double base, bool split)
{
    long n = (long)(base * b->scale);
    if (split)
        n /= b->threads;
    return n < 1 ? 1 : n;
}

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A field of /proc/self/status in KiB ("VmHWM", "VmRSS"), read with
 * open/read into the stack: no malloc, so reading it changes nothing in
 * the allocator under test. */
static inline long bench_status_kb(const char *field)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY);
    if (fd < 0) {
        perror("bench: /proc/self/status");
        exit(1);
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    const char *at = strstr(buf, field);
    if (!at) {
        fprintf(stderr, "bench: no %s in /proc/self/status\n", field);
        exit(1);
    }
    return strtol(at + strlen(field), NULL, 10);
}

/* Peak RSS of this program: VmHWM, the high-water mark of its own address
 * space.  getrusage's ru_maxrss is no good here: Linux carries it over
 * exec from the process that forked us, so a benchmark started by a
 * Python runner (14 MB) or a shell reported at least their RSS, whatever
 * it used itself. */
static inline long bench_peak_rss_kb(void)
{
    return bench_status_kb("VmHWM:");
}

static inline uint64_t bench_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static inline void bench_report(const char *name, int threads, double secs, double ops,
                                const char *extra)
{
    printf("bench=%s threads=%d seconds=%.4f ops=%.0f mops_per_s=%.3f peak_rss_kb=%ld%s%s\n",
           name, threads, secs, ops, ops / secs / 1e6, bench_peak_rss_kb(),
           extra ? " " : "", extra ? extra : "");
}

/* Runs fn(arg_i) on n threads, arg_i = base + i * stride; returns seconds. */
static inline double bench_run_threads(int n, void *(*fn)(void *), void *base, size_t stride)
{
    pthread_t *t = malloc(sizeof *t * (size_t)n);
    double start = bench_now();
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, fn, (char *)base + (size_t)i * stride) != 0) {
            perror("pthread_create");
            exit(1);
        }
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    double secs = bench_now() - start;
    free(t);
    return secs;
}

/* The whole run of most benchmarks: fn on b->threads threads, thread i
 * given lanes + i * stride, timed, and reported as ops operations. */
static inline void bench_go(const bench_args_t *b, void *(*fn)(void *), void *lanes,
                            size_t stride, double ops)
{
    double secs = bench_run_threads(b->threads, fn, lanes, stride);
    bench_report(b->name, b->threads, secs, ops, NULL);
}

/* The false-sharing kernel of cache-scratch and cache-thrash: iters times,
 * allocate size bytes, write each byte reps times, free.  Objects that share
 * a cache line with another thread's make every write a coherence miss. */
static inline void bench_scribble(long iters, int size, int reps)
{
    for (long i = 0; i < iters; i++) {
        volatile char *p = malloc((size_t)size);
        for (int r = 0; r < reps; r++) {
            for (int k = 0; k < size; k++) {
                p[k] = (char)(p[k] + r);
                (void)p[k];
            }
        }
        free((void *)p);
    }
}

#endif
