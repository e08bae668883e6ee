/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * reapbench.c - reaps against Debian's APR pools and against malloc/free.
 *
 * Five workloads, each run by several allocators in one process:
 *   batch     batches of 10,000 random 16-256 byte objects, then clear (for
 *             malloc: free every object of the batch);
 *   halffree  the same, but after each allocation, with probability 1/2, a
 *             random live object of the batch is freed (APR cannot free:
 *             its row shows what the frees would have saved);
 *   mixed     batches of 10,000 objects of 16 B to 4 KiB (as many of each
 *             power of two), all freed in a random order, then clear;
 *   request   a child pool/reap per "request": 200 allocations of mixed
 *             sizes (mostly small, a few up to 16 KiB), then destroy;
 *   reuse     one long-lived arena holding 10,000 objects of 16-256 bytes;
 *             each round frees a random half and allocates them again.
 * The allocators: Debian's APR pools, reaps, malloc/free, and the arenas
 * that can also free one object: mimalloc's first-class heaps
 * (mi_heap_new/mi_heap_destroy, found with dlopen, so the rows are there
 * when libmimalloc.so.2 is installed) and talloc (when built with
 * libtalloc-dev).
 * Each case runs in a forked child, so its peak RSS (minus that of an idle
 * child) is its footprint, measured the same way for every allocator; the
 * cases alternate and repeat, and the medians are printed.  The sizes and
 * the free decisions are drawn before forking, so every allocator sees the
 * same sequence and no random number generation is timed.
 *
 * Usage: reapbench [--reps N] [--scale F] [--csv FILE] [--label NAME]
 *                  [--only WORKLOAD[/ALLOCATOR]]
 * --only runs the matching rows only (for a profiler: `perf record
 * reapbench --only mixed/reap`).
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
#include "../tools/mimalloc-dl.h"

#if REAPBENCH_TALLOC
#include <talloc.h>
#endif

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
    uint16_t *msize;    /* mixed sizes, 16..4096 */
    uint32_t *order;    /* mixed: the order a batch dies in (a permutation) */
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
    w.msize = malloc(w.nallocs * sizeof *w.msize);
    w.order = malloc(BATCH * sizeof *w.order);
    for (size_t i = 0; i < w.nallocs; i++) {
        w.size[i] = (uint16_t)(16 + next_rand() % 241);
        w.coin[i] = next_rand() & 1;
        w.pick[i] = next_rand();
    }
    for (size_t i = 0; i < REQUEST_ALLOCS * 64; i++)
        w.rsize[i] = (uint16_t)request_size();
    for (size_t i = 0; i < w.nallocs; i++) { /* 2^4..2^12, log-uniform */
        unsigned lg = 4 + next_rand() % 8;
        w.msize[i] = (uint16_t)((1u << lg) + next_rand() % (1u << lg) + 1);
    }
    for (uint32_t i = 0; i < BATCH; i++)
        w.order[i] = i;
    for (uint32_t i = BATCH - 1; i > 0; i--) { /* Fisher-Yates */
        uint32_t j = next_rand() % (i + 1), t = w.order[i];
        w.order[i] = w.order[j];
        w.order[j] = t;
    }
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
    for (size_t i = 0; i < w.nallocs; i++)
        s += w.msize[i];
    for (size_t i = 0; i < BATCH; i++)
        s += w.order[i];
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

/* mimalloc's heaps (tools/mimalloc-dl.h).  A heap cannot be cleared, so
 * the context holds the heap and clear makes a new one. */
static mi_dl_t mi;

/* Two levels, as the workloads nest (a connection and its request); heaps
 * do not nest, so a request's heap stands alone. */
typedef struct mi_ctx {
    void *heap;
} mi_ctx;
static mi_ctx mi_slot[2];
static void *mih_new(void *parent)
{
    mi_ctx *c = &mi_slot[parent != NULL];
    c->heap = mi.heap_new();
    return c;
}
static void *mih_alloc(void *c, size_t n) { return mi.heap_malloc(((mi_ctx *)c)->heap, n); }
static void mih_del(void *c, void *p) { (void)c, mi.free(p); }
static void mih_clr(void *c, void **l, size_t n)
{
    (void)l, (void)n;
    mi.heap_destroy(((mi_ctx *)c)->heap);
    ((mi_ctx *)c)->heap = mi.heap_new();
}
static void mih_dst(void *c, void **l, size_t n)
{
    (void)l, (void)n;
    mi.heap_destroy(((mi_ctx *)c)->heap);
}

#if REAPBENCH_TALLOC
static void *tal_new(void *parent) { return talloc_new(parent); }
static void *tal_alloc(void *c, size_t n) { return talloc_size(c, n); }
static void tal_del(void *c, void *p) { (void)c, talloc_free(p); }
static void tal_clr(void *c, void **l, size_t n) { (void)l, (void)n, talloc_free_children(c); }
static void tal_dst(void *c, void **l, size_t n) { (void)l, (void)n, talloc_free(c); }
#endif

static const side_t sides[] = {
    {"apr-pool", apr_new, apr_alloc, NULL, apr_clr, apr_dst},
    {"reap", reap_new, reap_alloc, reap_del, reap_clr, reap_dst},
    {"malloc", mal_new, mal_alloc, mal_del, mal_clr, mal_clr},
    {"mi-heap", mih_new, mih_alloc, mih_del, mih_clr, mih_dst},
#if REAPBENCH_TALLOC
    {"talloc", tal_new, tal_alloc, tal_del, tal_clr, tal_dst},
#endif
};
enum { APR, REAP, MALLOC, MIHEAP, TALLOC };
#define NSIDES (sizeof sides / sizeof sides[0])
static bool have_mimalloc;

/* Whether this build and this machine have the case's allocator. */
static bool side_ok(int side)
{
    return (size_t)side < NSIDES && (side != MIHEAP || have_mimalloc);
}


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

/* mixed: every object of a batch dies, in the drawn random order. */
static void run_mixed(const side_t *s, bool frees)
{
    void *ctx = s->create(NULL);
    for (size_t base = 0; base < w.nallocs; base += BATCH) {
        for (size_t i = 0; i < BATCH; i++) {
            char *p = s->alloc(ctx, w.msize[base + i]);
            p[0] = 1;
            live[i] = p;
        }
        if (frees)
            for (size_t i = 0; i < BATCH; i++)
                s->free(ctx, live[w.order[i]]);
        s->clear(ctx, live, frees ? 0 : BATCH);
    }
    s->destroy(ctx, live, 0);
}

/* reuse: BATCH objects live in one arena for the whole run; each round
 * frees the objects its coins pick (about half), then allocates them
 * again with new sizes: w.nallocs allocations in all, as batch makes. */
static void run_reuse(const side_t *s, bool frees)
{
    (void)frees;
    void *ctx = s->create(NULL);
    size_t done = 0;
    for (; done < BATCH; done++) {
        live[done] = s->alloc(ctx, w.size[done]);
        ((char *)live[done])[0] = 1;
    }
    for (size_t base = BATCH; done < w.nallocs; base = (base + BATCH) % w.nallocs) {
        size_t end = 0; /* the last round stops early: done ends at w.nallocs */
        for (size_t n = done; end < BATCH && n < w.nallocs; end++)
            n += w.coin[base + end];
        for (size_t k = 0; k < end; k++)
            if (w.coin[base + k])
                s->free(ctx, live[k]);
        for (size_t k = 0; k < end; k++)
            if (w.coin[base + k]) {
                live[k] = s->alloc(ctx, w.size[base + k]);
                ((char *)live[k])[0] = 1;
                done++;
            }
    }
    s->clear(ctx, live, BATCH);
    s->destroy(ctx, live, 0);
}

static void run_requests(const side_t *s, bool frees)
{
    void *conn = s->create(NULL);
    for (size_t r = 0; r < w.nrequests; r++) {
        void *req = s->create(conn);
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
    {"batch", "mi-heap", MIHEAP, false, "mi_heap_malloc, then mi_heap_destroy"},
    {"batch", "talloc", TALLOC, false, "talloc_size, then talloc_free_children"},
    {"halffree", "apr-pool", APR, true, "apr_palloc; frees ignored (stock APR cannot free)"},
    {"halffree", "reap", REAP, true, "reap_malloc, half freed as it goes, reap_clear"},
    {"halffree", "malloc", MALLOC, true, "malloc, half freed as it goes, free the rest"},
    {"halffree", "mi-heap", MIHEAP, true, "mi_heap_malloc, half mi_free'd, mi_heap_destroy"},
    {"halffree", "talloc", TALLOC, true, "talloc_size, half talloc_free'd, free the children"},
    {"mixed", "apr-pool", APR, false, "apr_palloc 16 B-4 KiB; no frees, apr_pool_clear"},
    {"mixed", "reap", REAP, true, "reap_malloc 16 B-4 KiB, all freed in random order"},
    {"mixed", "malloc", MALLOC, true, "malloc 16 B-4 KiB, all freed in random order"},
    {"mixed", "mi-heap", MIHEAP, true, "mi_heap_malloc 16 B-4 KiB, all mi_free'd in random order"},
    {"mixed", "talloc", TALLOC, true, "talloc_size 16 B-4 KiB, all talloc_free'd in random order"},
    {"request", "apr-pool", APR, false, "subpool, 200 apr_palloc, destroy"},
    {"request", "reap", REAP, false, "child reap, 200 reap_malloc, destroy"},
    {"request", "reap-free", REAP, true, "child reap, 200 allocations, half freed, destroy"},
    {"request", "malloc", MALLOC, true, "200 malloc, half freed as it goes, free the rest"},
    {"request", "mi-heap", MIHEAP, true, "a heap, 200 allocations, half mi_free'd, mi_heap_destroy"},
    {"request", "talloc", TALLOC, true, "talloc child, 200 allocations, half freed, talloc_free"},
    {"reuse", "reap", REAP, true, "one reap, 10,000 live; rounds free half, allocate again"},
    {"reuse", "malloc", MALLOC, true, "the same with malloc/free"},
    {"reuse", "mi-heap", MIHEAP, true, "the same in one mimalloc heap"},
    {"reuse", "talloc", TALLOC, true, "the same under one talloc context"},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* --only: "workload" or "workload/allocator" (the allocator as the rows
 * name it, "malloc" for the malloc rows). */
static const char *only;
static bool case_ok(const bcase_t *c)
{
    if (!side_ok(c->side))
        return false;
    if (!only)
        return true;
    size_t n = strlen(c->workload);
    if (strncmp(only, c->workload, n) != 0)
        return false;
    return only[n] == '\0' || (only[n] == '/' && strcmp(only + n + 1, c->name) == 0);
}

static size_t ops_of(const bcase_t *c)
{
    return strcmp(c->workload, "request") == 0 ? w.nrequests * REQUEST_ALLOCS : w.nallocs;
}

static void run_case(const bcase_t *c)
{
    const side_t *s = &sides[c->side];
    if (strcmp(c->workload, "request") == 0)
        run_requests(s, c->frees);
    else if (strcmp(c->workload, "mixed") == 0)
        run_mixed(s, c->frees);
    else if (strcmp(c->workload, "reuse") == 0)
        run_reuse(s, c->frees);
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
    if (c->side != REAP || (strcmp(c->workload, "batch") != 0 && strcmp(c->workload, "halffree") != 0))
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
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--reps N] [--scale F] [--csv FILE] [--label NAME]"
                            " [--only WORKLOAD[/ALLOCATOR]]\n", argv[0]);
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
    have_mimalloc = mi_dl_open(&mi);
    if (!have_mimalloc)
        fprintf(stderr, "reapbench: no libmimalloc.so.2 (package libmimalloc2.0): no mi-heap rows\n");
#if !REAPBENCH_TALLOC
    fprintf(stderr, "reapbench: built without talloc (package libtalloc-dev): no talloc rows\n");
#endif

    double ns[NCASES][MAX_REPS], rss[NCASES][MAX_REPS], idle[MAX_REPS];
    for (int rep = 0; rep < reps; rep++) { /* alternate: every case once per round */
        idle[rep] = (double)in_child(NULL).rss_kb;
        for (size_t c = 0; c < NCASES; c++) {
            if (!case_ok(&cases[c]))
                continue;
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
        if (!case_ok(&cases[c]))
            continue;
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
    printf("(%zu allocations per batch, mixed and reuse run, %zu per request run; medians of %d alternating rounds;"
           " RSS net of an idle child's %.0f KiB)\n",
           w.nallocs, w.nrequests * REQUEST_ALLOCS, reps, idle_kb);
    return 0;
}
