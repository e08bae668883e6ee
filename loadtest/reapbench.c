/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * reapbench.c - reaps against Debian's APR pools and against malloc/free.
 *
 * Three workloads, each run by several allocators in one process:
 *   batch     batches of 10,000 random 16-256 byte objects, then clear (for
 *             malloc: free every object of the batch);
 *   halffree  the same, but after each allocation, with probability 1/2, a
 *             random live object of the batch is freed (APR cannot free:
 *             its row shows what the frees would have saved);
 *   request   a child pool/reap per "request": 200 allocations of mixed
 *             sizes (mostly small, a few up to 16 KiB), then destroy.
 * Each case runs in a forked child, so its peak RSS (minus that of an idle
 * child) is its footprint, measured the same way for every allocator; the
 * cases alternate and repeat, and the medians are printed.  The sizes and
 * the free decisions are drawn before forking, so every allocator sees the
 * same sequence and no random number generation is timed.
 *
 * Usage: reapbench [--reps N] [--scale F] [--csv FILE] [--label NAME]
 * Put another malloc under the "malloc" rows with LD_PRELOAD; --label names
 * it in the output.  Numbers are ns per allocation, frees and clears
 * included.  This is a benchmark: it asserts nothing.
 */
#include <apr_general.h>
#include <apr_pools.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reap.h"

#define BATCH 10000
#define REQUEST_ALLOCS 200
#define MAX_REPS 32

/* ---- the workload, drawn once -------------------------------------------------- */

static struct {
    size_t nallocs;     /* allocations per run of batch/halffree */
    size_t nrequests;   /* requests per run of request */
    uint16_t *size;     /* batch sizes, 16..256 */
    uint8_t *coin;      /* halffree: free something after this allocation? */
    uint32_t *pick;     /* halffree: which live object */
    uint16_t *rsize;    /* request sizes */
} w;

static uint64_t rng = 0x2002;
static uint32_t next_rand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)rng;
}

static size_t request_size(void)
{
    uint32_t k = next_rand() % 100;
    if (k < 70)
        return 16 + next_rand() % 49;
    if (k < 90)
        return 64 + next_rand() % 449;
    if (k < 99)
        return 512 + next_rand() % 3585;
    return 4096 + next_rand() % 12289;
}

static void draw(double scale)
{
    w.nallocs = (size_t)(2000000 * scale) / BATCH * BATCH;
    if (w.nallocs < BATCH)
        w.nallocs = BATCH;
    w.nrequests = (size_t)(20000 * scale) + 1;
    w.size = malloc(w.nallocs * sizeof *w.size);
    w.coin = malloc(w.nallocs);
    w.pick = malloc(w.nallocs * sizeof *w.pick);
    w.rsize = malloc(REQUEST_ALLOCS * sizeof *w.rsize * 64);
    for (size_t i = 0; i < w.nallocs; i++) {
        w.size[i] = (uint16_t)(16 + next_rand() % 241);
        w.coin[i] = next_rand() & 1;
        w.pick[i] = next_rand();
    }
    for (size_t i = 0; i < REQUEST_ALLOCS * 64; i++)
        w.rsize[i] = (uint16_t)request_size();
}

/* Touch what every case reads, so an idle child's RSS is a fair baseline. */
static volatile uint64_t sink;
static void touch_workload(void)
{
    uint64_t s = 0;
    for (size_t i = 0; i < w.nallocs; i++)
        s += w.size[i] + w.coin[i] + w.pick[i];
    for (size_t i = 0; i < REQUEST_ALLOCS * 64; i++)
        s += w.rsize[i];
    sink = s;
}

/* ---- the allocators, behind one small interface ----------------------------------- */

typedef struct side {
    const char *name;
    void *(*create)(void *parent);
    void *(*alloc)(void *ctx, size_t n);
    void (*free)(void *ctx, void *p); /* NULL: cannot free one object */
    void (*clear)(void *ctx, void **live, size_t nlive);
    void (*destroy)(void *ctx, void **live, size_t nlive);
} side_t;

static void *reap_new(void *parent) { return reap_create(parent); }
static void *reap_alloc(void *c, size_t n) { return reap_malloc(c, n); }
static void reap_del(void *c, void *p) { reap_free(c, p); }
static void reap_clr(void *c, void **l, size_t n) { (void)l, (void)n, reap_clear(c); }
static void reap_dst(void *c, void **l, size_t n) { (void)l, (void)n, reap_destroy(c); }

static void *apr_new(void *parent)
{
    apr_pool_t *p;
    return apr_pool_create(&p, parent) == APR_SUCCESS ? p : NULL;
}
static void *apr_alloc(void *c, size_t n) { return apr_palloc(c, n); }
static void apr_clr(void *c, void **l, size_t n) { (void)l, (void)n, apr_pool_clear(c); }
static void apr_dst(void *c, void **l, size_t n) { (void)l, (void)n, apr_pool_destroy(c); }

static void *mal_new(void *parent) { (void)parent; return (void *)1; }
static void *mal_alloc(void *c, size_t n) { (void)c; return malloc(n); }
static void mal_del(void *c, void *p) { (void)c, free(p); }
static void mal_clr(void *c, void **l, size_t n)
{
    (void)c;
    for (size_t i = 0; i < n; i++)
        free(l[i]);
}

static const side_t sides[] = {
    {"apr-pool", apr_new, apr_alloc, NULL, apr_clr, apr_dst},
    {"reap", reap_new, reap_alloc, reap_del, reap_clr, reap_dst},
    {"malloc", mal_new, mal_alloc, mal_del, mal_clr, mal_clr},
};
enum { APR, REAP, MALLOC, NSIDES };

/* ---- the workloads --------------------------------------------------------------- */

static void **live;

/* batch and halffree: frees says whether to free as it goes. */
static void run_batches(const side_t *s, bool frees)
{
    void *ctx = s->create(NULL);
    for (size_t base = 0; base < w.nallocs; base += BATCH) {
        size_t nlive = 0;
        for (size_t i = base; i < base + BATCH; i++) {
            char *p = s->alloc(ctx, w.size[i]);
            p[0] = 1;
            live[nlive++] = p;
            if (frees && w.coin[i]) {
                size_t k = w.pick[i] % nlive;
                if (s->free)
                    s->free(ctx, live[k]);
                live[k] = live[--nlive];
            }
        }
        s->clear(ctx, live, nlive);
    }
    s->destroy(ctx, live, 0);
}

static void run_requests(const side_t *s, bool frees)
{
    void *conn = s->create(NULL);
    for (size_t r = 0; r < w.nrequests; r++) {
        void *req = s->create(s == &sides[MALLOC] ? NULL : conn);
        const uint16_t *sz = &w.rsize[(r % 64) * REQUEST_ALLOCS];
        size_t nlive = 0;
        for (size_t i = 0; i < REQUEST_ALLOCS; i++) {
            char *p = s->alloc(req, sz[i]);
            p[0] = 1;
            live[nlive++] = p;
            if (frees && (i & 1)) { /* free the one before this */
                s->free(req, live[nlive - 2]);
                live[nlive - 2] = live[nlive - 1];
                nlive--;
            }
        }
        s->destroy(req, live, nlive);
    }
    s->destroy(conn, live, 0);
}

typedef struct bcase {
    const char *workload;
    const char *name; /* row name; "malloc" rows take the --label instead */
    int side;
    bool frees;
    const char *note;
} bcase_t;

static const bcase_t cases[] = {
    {"batch", "apr-pool", APR, false, "apr_palloc + apr_pool_clear"},
    {"batch", "reap", REAP, false, "region mode: reap_malloc + reap_clear"},
    {"batch", "malloc", MALLOC, false, "malloc, then free the batch"},
    {"halffree", "apr-pool", APR, true, "apr_palloc; frees ignored (stock APR cannot free)"},
    {"halffree", "reap", REAP, true, "reap_malloc, half freed as it goes, reap_clear"},
    {"halffree", "malloc", MALLOC, true, "malloc, half freed as it goes, free the rest"},
    {"request", "apr-pool", APR, false, "subpool, 200 apr_palloc, destroy"},
    {"request", "reap", REAP, false, "child reap, 200 reap_malloc, destroy"},
    {"request", "reap-free", REAP, true, "child reap, 200 allocations, half freed, destroy"},
    {"request", "malloc", MALLOC, true, "200 malloc, half freed as it goes, free the rest"},
};
#define NCASES (sizeof cases / sizeof cases[0])

static size_t ops_of(const bcase_t *c)
{
    return strcmp(c->workload, "request") == 0 ? w.nrequests * REQUEST_ALLOCS : w.nallocs;
}

static void run_case(const bcase_t *c)
{
    const side_t *s = &sides[c->side];
    if (strcmp(c->workload, "request") == 0)
        run_requests(s, c->frees);
    else
        run_batches(s, c->frees);
}

/* ---- measuring in a child ---------------------------------------------------------- */

typedef struct result {
    double ns;    /* per allocation */
    long rss_kb;  /* child's peak RSS */
} result_t;

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Run c (or nothing, for c == NULL) in a child; returns time and peak RSS. */
static result_t in_child(const bcase_t *c)
{
    int fd[2];
    result_t res = {0, 0};
    if (pipe(fd) != 0)
        exit(1);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        touch_workload();
        double t0 = now_ns();
        if (c)
            run_case(c);
        double ns = c ? (now_ns() - t0) / (double)ops_of(c) : 0;
        if (write(fd[1], &ns, sizeof ns) != sizeof ns)
            _exit(2);
        _exit(0);
    }
    close(fd[1]);
    if (read(fd[0], &res.ns, sizeof res.ns) != sizeof res.ns)
        res.ns = -1;
    close(fd[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    res.rss_kb = ru.ru_maxrss;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        res.ns = -1;
    return res;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Footprint of the reap rows from the reap's own figures, against the live
 * bytes the program asked for (ratio) and against the reap's live blocks,
 * headers and rounding included (block_ratio): run untimed, here. */
static void reap_ratio(const bcase_t *c, double *ratio, double *block_ratio)
{
    *ratio = *block_ratio = 0;
    if (c->side != REAP || strcmp(c->workload, "request") == 0)
        return;
    reap_t *r = reap_create(NULL);
    uint64_t live_req = 0, peak_req = 0, peak_fp = 0, peak_blocks = 0;
    size_t *sz = malloc(BATCH * sizeof *sz);
    for (size_t base = 0; base < w.nallocs; base += BATCH) {
        size_t nlive = 0;
        for (size_t i = base; i < base + BATCH; i++) {
            live[nlive] = reap_malloc(r, w.size[i]);
            sz[nlive++] = w.size[i];
            live_req += w.size[i];
            if (live_req > peak_req)
                peak_req = live_req;
            if (c->frees && w.coin[i]) {
                size_t k = w.pick[i] % nlive;
                reap_free(r, live[k]);
                live_req -= sz[k];
                live[k] = live[--nlive];
                sz[k] = sz[nlive];
            }
        }
        reap_stats_t st;
        reap_get_stats(r, &st);
        if (st.peak_footprint > peak_fp)
            peak_fp = st.peak_footprint;
        if (st.peak_live_bytes > peak_blocks)
            peak_blocks = st.peak_live_bytes;
        reap_clear(r);
        live_req = 0;
    }
    reap_destroy(r);
    free(sz);
    *ratio = (double)peak_fp / (double)peak_req;
    *block_ratio = (double)peak_fp / (double)peak_blocks;
}

int main(int argc, char **argv)
{
    int reps = 5;
    double scale = 1.0;
    const char *csv = NULL, *label = getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "glibc";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
            scale = atof(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--label") && i + 1 < argc)
            label = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--reps N] [--scale F] [--csv FILE] [--label NAME]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS || scale <= 0) {
        fprintf(stderr, "reapbench: --reps must be 1..%d and --scale positive\n", MAX_REPS);
        return 2;
    }
    apr_initialize();
    draw(scale);
    live = malloc(BATCH * sizeof *live);

    double ns[NCASES][MAX_REPS], rss[NCASES][MAX_REPS], idle[MAX_REPS];
    for (int rep = 0; rep < reps; rep++) { /* alternate: every case once per round */
        idle[rep] = (double)in_child(NULL).rss_kb;
        for (size_t c = 0; c < NCASES; c++) {
            result_t r = in_child(&cases[c]);
            ns[c][rep] = r.ns;
            rss[c][rep] = (double)r.rss_kb;
        }
        fprintf(stderr, "\rreapbench: round %d of %d", rep + 1, reps);
    }
    fprintf(stderr, "\n");
    double idle_kb = median(idle, reps);

    FILE *out = csv ? fopen(csv, "w") : NULL;
    if (csv && !out) {
        perror(csv);
        return 1;
    }
    if (out)
        fprintf(out, "workload,allocator,malloc,ns_per_alloc,ns_min,ns_max,peak_rss_kb,"
                     "footprint_ratio,footprint_block_ratio,note\n");
    printf("%-9s %-9s %9s %17s %12s %13s  %s\n", "workload", "allocator", "ns/alloc", "(min-max)",
           "peak RSS KiB", "fp/live(blk)", "what");
    for (size_t c = 0; c < NCASES; c++) {
        double t = median(ns[c], reps), lo = ns[c][0], hi = ns[c][reps - 1];
        double kb = median(rss[c], reps) - idle_kb, ratio, block_ratio;
        reap_ratio(&cases[c], &ratio, &block_ratio);
        const char *who = cases[c].side == MALLOC ? label : cases[c].name;
        char rs[16] = "", bs[16] = "", both[40] = "";
        if (ratio > 0) {
            snprintf(rs, sizeof rs, "%.2f", ratio);
            snprintf(bs, sizeof bs, "%.2f", block_ratio);
            snprintf(both, sizeof both, "%s (%s)", rs, bs);
        }
        printf("%-9s %-9s %9.2f %8.2f-%-8.2f %12.0f %13s  %s\n", cases[c].workload, who, t, lo, hi, kb, both,
               cases[c].note);
        if (out)
            fprintf(out, "%s,%s,%s,%.3f,%.3f,%.3f,%.0f,%s,%s,\"%s\"\n", cases[c].workload,
                    cases[c].name, label, t, lo, hi, kb, rs, bs, cases[c].note);
    }
    if (out)
        fclose(out);
    printf("(%zu allocations per batch run, %zu per request run; medians of %d alternating rounds;"
           " RSS net of an idle child's %.0f KiB)\n",
           w.nallocs, w.nrequests * REQUEST_ALLOCS, reps, idle_kb);
    return 0;
}
