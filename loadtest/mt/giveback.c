/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * giveback.c - how much memory an allocator gives back to the OS after a
 * peak, when nobody asks it to (no malloc_trim).  T threads each build
 * their share of a live set (-m MB in all; by bytes about 40% small
 * objects of 16 B-1 KiB, 40% medium of 1-32 KiB and 20% large of 64 KiB-
 * 1 MiB, interleaved at random) and write every byte of it; then every
 * object is freed, -c percent of each thread's by the next thread (the
 * cross-thread frees, where allocators hold memory; none with -t 1).  The
 * threads then exit, or stay alive and idle (-x idle, as httpd's workers
 * do); the program makes no more allocator calls and samples its RSS
 * every 100 ms for -i seconds.  One result line, for giveback.sh:
 *   bench=giveback alloc=NAME threads=T mode=idle|exit mb=M cross_pct=C
 *   live_kb=K before_kb=K peak_kb=K after_kb=K rss_0s_kb=K rss_0.1s_kb=K ...
 * before is VmRSS before the threads start, peak is VmHWM after the build,
 * after is the last sample (at -i s), rss_Xs the samples at 0, 0.1, 0.5,
 * 1 and 2 s (those within -i).  In idle mode the program exits with the
 * threads still parked, so an allocator's at-exit statistics
 * (REAP_SHOW_STATS) show the idle state.  The bookkeeping (pointer
 * arrays) is mmap'ed, not malloc'ed, and unmapped before the idle.
 */
#include "bench.h"

#include <sys/mman.h>

#define SMALL_MIN 16
#define SMALL_MAX 1024
#define MEDIUM_MIN 1025
#define MEDIUM_MAX (32 * 1024)
#define LARGE_MIN (64 * 1024)
#define LARGE_MAX (1024 * 1024)
#define SAMPLE_S 0.1
#define MAX_SAMPLES 10001 /* -i up to 1000 s */

/* The share of the live set's bytes in each size range. */
static const double share[3] = {0.4, 0.4, 0.2};
static const size_t lo[3] = {SMALL_MIN, MEDIUM_MIN, LARGE_MIN};
static const size_t hi[3] = {SMALL_MAX, MEDIUM_MAX, LARGE_MAX};
/* The samples reported by name, in seconds after the frees. */
static const double marks[] = {0, 0.1, 0.5, 1, 2};

typedef struct lane {
    BENCH_LANE int id;
    uint64_t seed;
    size_t budget; /* bytes this thread allocates */
    size_t live; /* bytes it did allocate */
    void **obj; /* mmap'ed, cap pointers */
    size_t n, cap;
} lane_t;

static lane_t lanes[BENCH_MAX_THREADS];
static int nthreads, cross_pct;
static bool stay_idle;
static pthread_barrier_t built, freed;
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park = PTHREAD_COND_INITIALIZER;

/* Whether object j of thread i is freed by thread i + 1: a hash of (i, j),
 * the same for the thread that allocated it and the one that frees it. */
static bool crosses(int i, size_t j)
{
    if (nthreads < 2)
        return false;
    uint64_t h = ((uint64_t)i << 40 ^ (uint64_t)j) * 0x9E3779B97F4A7C15u;
    return (int)((h >> 33) % 100) < cross_pct;
}

/* A size: the range picked at random, weighted by the objects still to
 * come in each (bytes left / mean size), so the ranges interleave through
 * the build and each ends near its share. */
static size_t pick_size(lane_t *l, double left[3])
{
    double w[3], total = 0;
    for (int c = 0; c < 3; c++) {
        w[c] = left[c] > 0 ? left[c] / ((double)(lo[c] + hi[c]) / 2) : 0;
        total += w[c];
    }
    double r = (double)(bench_rand(&l->seed) >> 11) / 9007199254740992.0 * total;
    int c = 0;
    while (c < 2 && (r >= w[c] || w[c] == 0)) {
        r -= w[c];
        c++;
    }
    size_t size = lo[c] + (size_t)(bench_rand(&l->seed) % (hi[c] - lo[c] + 1));
    left[c] -= (double)size;
    return size;
}

static void build(lane_t *l)
{
    double left[3];
    for (int c = 0; c < 3; c++)
        left[c] = share[c] * (double)l->budget;
    while ((left[0] > 0 || left[1] > 0 || left[2] > 0) && l->n < l->cap) {
        size_t size = pick_size(l, left);
        char *p = malloc(size);
        if (!p) {
            fprintf(stderr, "giveback: malloc(%zu) failed\n", size);
            exit(1);
        }
        memset(p, (int)(l->n & 0xff) | 1, size);
        l->obj[l->n++] = p;
        l->live += size;
    }
}

/* Frees this thread's objects that stay with it and the previous thread's
 * that cross over, interleaved, in allocation order. */
static void free_all(lane_t *l)
{
    int prev_id = (l->id + nthreads - 1) % nthreads;
    lane_t *prev = &lanes[prev_id];
    size_t n = l->n > prev->n ? l->n : prev->n;
    for (size_t j = 0; j < n; j++) {
        if (j < l->n && !crosses(l->id, j))
            free(l->obj[j]);
        if (prev != l && j < prev->n && crosses(prev_id, j))
            free(prev->obj[j]);
    }
}

static void *worker(void *v)
{
    lane_t *l = v;
    build(l);
    pthread_barrier_wait(&built); /* main reads the peak */
    pthread_barrier_wait(&built); /* every live set is complete */
    free_all(l);
    pthread_barrier_wait(&freed);
    if (stay_idle) { /* parked until the process exits */
        pthread_mutex_lock(&park_lock);
        for (;;)
            pthread_cond_wait(&park, &park_lock);
    }
    return NULL;
}

static void usage(const char *argv0, int status)
{
    fprintf(stderr,
            "usage: %s [-t threads] [-m MB] [-c cross_pct] [-x idle|exit] [-i idle_s] [-a name]\n"
            "giveback: build a live set on T threads (default 4, 256 MB), free it (25%% by\n"
            "another thread), let the threads stay idle (default) or exit, and sample RSS\n"
            "every 100 ms for idle_s seconds (default 2); -a names the allocator in the\n"
            "result line (default $GIVEBACK_ALLOC)\n",
            argv0);
    exit(status);
}

static void sleep_until(double t)
{
    struct timespec ts = {(time_t)t, (long)((t - (double)(time_t)t) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
        ;
}

int main(int argc, char **argv)
{
    const char *name = getenv("GIVEBACK_ALLOC");
    double mb = 256, idle = 2;
    int c;
    nthreads = 4;
    cross_pct = 25;
    stay_idle = true;
    while ((c = getopt(argc, argv, "t:m:c:x:i:a:h")) != -1) {
        if (c == 't')
            nthreads = atoi(optarg);
        else if (c == 'm')
            mb = atof(optarg);
        else if (c == 'c')
            cross_pct = atoi(optarg);
        else if (c == 'x' && (!strcmp(optarg, "idle") || !strcmp(optarg, "exit")))
            stay_idle = !strcmp(optarg, "idle");
        else if (c == 'i')
            idle = atof(optarg);
        else if (c == 'a')
            name = optarg;
        else
            usage(argv[0], c == 'h' ? 0 : 2);
    }
    if (nthreads < 1 || nthreads > BENCH_MAX_THREADS || !(mb > 0) || cross_pct < 0 ||
        cross_pct > 100 || !(idle >= 0) || idle > (MAX_SAMPLES - 1) * SAMPLE_S)
        usage(argv[0], 2);

    long before = bench_status_kb("VmRSS:");
    size_t budget = (size_t)(mb * 1048576.0 / nthreads);
    for (int i = 0; i < nthreads; i++) {
        lane_t *l = &lanes[i];
        l->id = i;
        l->seed = 0x2545F4914F6CDD1Du + (uint64_t)i * 0x9E3779B97F4A7C15u;
        l->budget = budget;
        l->cap = budget / SMALL_MIN + 1;
        l->obj = mmap(NULL, l->cap * sizeof *l->obj, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (l->obj == MAP_FAILED) {
            perror("giveback: mmap");
            return 1;
        }
    }
    pthread_barrier_init(&built, NULL, (unsigned)nthreads + 1);
    pthread_barrier_init(&freed, NULL, (unsigned)nthreads + 1);
    pthread_t tid[BENCH_MAX_THREADS];
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&tid[i], NULL, worker, &lanes[i]) != 0) {
            perror("giveback: pthread_create");
            return 1;
        }

    pthread_barrier_wait(&built);
    long peak = bench_peak_rss_kb();
    pthread_barrier_wait(&built);
    pthread_barrier_wait(&freed);
    if (!stay_idle)
        for (int i = 0; i < nthreads; i++)
            pthread_join(tid[i], NULL);
    size_t live = 0;
    for (int i = 0; i < nthreads; i++) {
        live += lanes[i].live;
        munmap(lanes[i].obj, lanes[i].cap * sizeof *lanes[i].obj);
    }

    /* The idle: no allocator call from here to the result line. */
    static long rss[MAX_SAMPLES];
    int ns = (int)(idle / SAMPLE_S + 1e-9) + 1;
    double t0 = bench_now();
    for (int k = 0; k < ns; k++) {
        sleep_until(t0 + k * SAMPLE_S);
        rss[k] = bench_status_kb("VmRSS:");
    }

    printf("bench=giveback alloc=%s threads=%d mode=%s mb=%g cross_pct=%d live_kb=%zu "
           "before_kb=%ld peak_kb=%ld after_kb=%ld",
           name && *name ? name : "-", nthreads, stay_idle ? "idle" : "exit", mb, cross_pct,
           live / 1024, before, peak, rss[ns - 1]);
    for (size_t m = 0; m < sizeof marks / sizeof *marks; m++) {
        int k = (int)(marks[m] / SAMPLE_S + 0.5);
        if (k < ns)
            printf(" rss_%gs_kb=%ld", marks[m], rss[k]);
    }
    printf("\n");
    fflush(stdout);
    return 0; /* in idle mode, with the threads still parked */
}
