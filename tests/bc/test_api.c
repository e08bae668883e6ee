/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_api.c - the interpreter's embedding API (bc.h), as httpd will use it.
 *
 * Checks what the GNU comparisons cannot: that every allocation failure
 * becomes BC_ERR_NOMEM and never a crash (failing the n-th allocation for
 * every n), that a free hook doing nothing (pool mode) gives the same output,
 * that contexts are reentrant (threads running programs at once all get the
 * right answers), that each limit has its own status, and that a context
 * frees everything it allocated.  Expected outputs are facts of arithmetic
 * (digits of 2^100, 20!, the 1000th prime) or GNU bc's output (pi at
 * scale 50 with -l), not outputs of the code under test.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bc.h"

static int failures;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

/* ------------------------------------------------------------ hooks */

typedef struct mem {
    long allocs;      /* allocations made */
    long fail_at;     /* the allocation that fails (1-based), 0 = none */
    long live;        /* blocks not yet freed */
    size_t bytes;     /* their sizes */
    size_t max_bytes; /* refuse an allocation past this, 0 = no limit */
    int no_free;      /* pool mode: free does nothing */
    int strict;       /* free checks that the block is live */
    long bad_frees;   /* strict: frees of blocks not live (double frees) */
    struct blk *pool; /* every block not yet freed, as a pool holds them:
                         pool_release() frees them all at once */
} mem;

/* The prefix of every block: its links in mem.pool and its size (32
 * bytes, so the blocks stay 16-byte aligned). */
typedef struct blk {
    struct blk *next, *prev;
    size_t size, pad;
} blk;

static void *t_alloc(void *ud, size_t n)
{
    mem *m = ud;
    if (m->fail_at && ++m->allocs >= m->fail_at)
        return NULL;
    if (!m->fail_at)
        m->allocs++;
    if (m->max_bytes && m->bytes + n > m->max_bytes)
        return NULL;
    blk *b = malloc(sizeof *b + n);
    if (!b)
        return NULL;
    m->live++;
    m->bytes += n;
    b->size = n;
    b->prev = NULL;
    b->next = m->pool;
    if (m->pool)
        m->pool->prev = b;
    m->pool = b;
    return b + 1;
}

/* What a pool does when it is cleared: free what is left (test_unwind
 * checks that the interpreter itself left nothing). */
static void pool_release(mem *m)
{
    while (m->pool) {
        blk *next = m->pool->next;
        free(m->pool);
        m->pool = next;
    }
}

static int is_live(const mem *m, const void *p)
{
    for (const blk *b = m->pool; b; b = b->next)
        if (b + 1 == p)
            return 1;
    return 0;
}

static void t_free(void *ud, void *p)
{
    mem *m = ud;
    if (m->no_free)
        return; /* leaked on purpose: a pool would free it later */
    if (m->strict && !is_live(m, p)) {
        m->bad_frees++; /* freed twice, or never allocated here */
        return;
    }
    m->live--;
    blk *b = (blk *)p - 1;
    m->bytes -= b->size;
    if (b->prev)
        b->prev->next = b->next;
    else
        m->pool = b->next;
    if (b->next)
        b->next->prev = b->prev;
    free(b);
}

typedef struct buf {
    char data[8192];
    size_t len;
} buf;

static void t_write(void *ud, const char *s, size_t n)
{
    buf *b = ud;
    if (b->len + n < sizeof b->data) {
        memcpy(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = 0;
    }
}

static bc_config_t config(mem *m, buf *out, buf *err)
{
    bc_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.alloc = t_alloc;
    cfg.free = t_free;
    cfg.mem_ud = m;
    cfg.out = t_write;
    cfg.out_ud = out;
    cfg.err = t_write;
    cfg.err_ud = err;
    cfg.line_length = 70;
    return cfg;
}

/* Runs @p prog in a fresh context; returns its status (or -1 if the
 * context could not be made). */
static int run(mem *m, buf *out, buf *err, const char *prog, int mathlib)
{
    bc_config_t cfg = config(m, out, err);
    cfg.mathlib = mathlib;
    bc_ctx_t *bc = bc_create(&cfg);
    if (!bc)
        return -1;
    int st = bc_run(bc, prog, strlen(prog), "(test)");
    bc_destroy(bc);
    return st;
}

/* ------------------------------------------------------------ tests */

static const char prime_prog[] =
    "define prime(k) {\n"
    "  auto n, c, d, p\n"
    "  n = 1\n"
    "  while (c < k) {\n"
    "    n = n + 1; p = 1\n"
    "    for (d = 2; d * d <= n; d++) if (n % d == 0) { p = 0; break }\n"
    "    if (p) c = c + 1\n"
    "  }\n"
    "  return n\n"
    "}\n"
    "prime(1000)\n";

static void test_basic(void)
{
    mem m = {0};
    buf out = {0}, err = {0};
    int st = run(&m, &out, &err, "2^100\nx = 20; p = 1\n"
                 "while (x) p *= x--\np\nscale = 3; 1/8\n", 0);
    CHECK(st == BC_OK, "status %d", st);
    CHECK(strcmp(out.data, "1267650600228229401496703205376\n"
                           "2432902008176640000\n.125\n") == 0,
          "output %s", out.data);
    CHECK(m.live == 0, "%ld blocks not freed", m.live);
}

static void test_leaks_and_pool_mode(void)
{
    mem m = {0}, pool = {0};
    buf o1 = {0}, o2 = {0}, e1 = {0}, e2 = {0};
    pool.no_free = 1;
    CHECK(run(&m, &o1, &e1, prime_prog, 0) == BC_OK, "prime");
    CHECK(strcmp(o1.data, "7919\n") == 0, "1000th prime: %s", o1.data);
    CHECK(m.live == 0, "%ld blocks not freed", m.live);
    CHECK(run(&pool, &o2, &e2, prime_prog, 0) == BC_OK, "prime, pool");
    CHECK(strcmp(o1.data, o2.data) == 0, "pool mode output %s", o2.data);
    pool_release(&pool);
}

/* Runs @p prog once to count its allocations, then once more for each,
 * failing that one and every later one: each run must end in BC_ERR_NOMEM
 * (or no context at all) or, if it needed no more, in @p want, and must
 * have freed every block it allocated, each once. */
static void fail_each_allocation(const char *name, const char *prog,
                                 int mathlib, int want)
{
    mem probe = {0};
    buf o = {0}, e = {0};
    CHECK(run(&probe, &o, &e, prog, mathlib) == want, "%s: probe run: %s",
          name, e.data);
    long total = probe.allocs;
    CHECK(total > 50, "%s: only %ld allocations", name, total);
    int nomem = 0;
    for (long n = 1; n <= total; n++) {
        mem m = {0};
        buf out = {0}, err = {0};
        m.fail_at = n;
        m.strict = 1;
        int st = run(&m, &out, &err, prog, mathlib);
        /* whatever allocation failed, the unwind freed what it held */
        CHECK(m.live == 0 && m.bad_frees == 0,
              "%s: failing allocation %ld: %ld blocks not freed, %ld freed "
              "twice", name, n, m.live, m.bad_frees);
        if (st == BC_ERR_NOMEM || st == -1)
            nomem++;
        else
            CHECK(st == want, "%s: failing allocation %ld gave status %d",
                  name, n, st);
        pool_release(&m);
    }
    CHECK(nomem > 0, "%s: no run failed for memory", name);
}

static void test_out_of_memory(void)
{
    fail_each_allocation(
        "arithmetic",
        "define f(n) { if (n < 2) return 1; return n * f(n-1) }\n"
        "f(30)\nscale = 30; sqrt(2); 1/7; a[5] = 3; a[5]^40\n"
        "print \"x\", 2.5 % 1, \"\\n\"; obase = 16; 255.5\n", 1, BC_OK);
}

static void test_limits(void)
{
    struct { const char *prog; int field; long value; int want; } cases[] = {
        {"while (1) {}\n", 0, 1, BC_ERR_TIME},
        {"while (1) print \"xx\"\n", 1, 1000, BC_ERR_OUTPUT},
        {"define f(x) { return f(x + 1) }\nf(1)\n", 2, 100, BC_ERR_DEPTH},
        {"1 + 1\n", 3, 3, BC_ERR_PROGSIZE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mem m = {0};
        buf out = {0}, err = {0};
        bc_config_t cfg = config(&m, &out, &err);
        switch (cases[i].field) {
        case 0: cfg.time_limit = 0.2; break;
        case 1: cfg.max_output = (size_t)cases[i].value; break;
        case 2: cfg.max_depth = (unsigned)cases[i].value; break;
        default: cfg.max_program = (size_t)cases[i].value; break;
        }
        bc_ctx_t *bc = bc_create(&cfg);
        int st = bc_run(bc, cases[i].prog, strlen(cases[i].prog), "(t)");
        CHECK(st == cases[i].want, "case %zu: status %d, want %d", i, st,
              cases[i].want);
        CHECK(strstr(err.data, bc_strstatus((bc_status)st)) != NULL,
              "case %zu: message %s", i, err.data);
        bc_destroy(bc);
        CHECK(m.live == 0, "case %zu: %ld blocks not freed", i, m.live);
    }
}

typedef struct lines {
    const char **v;
    int i;
} lines;

static const char *next_line(void *ud, size_t *len)
{
    lines *l = ud;
    const char *s = l->v[l->i];
    if (!s)
        return NULL;
    l->i++;
    *len = strlen(s);
    return s;
}

/* Line-by-line input: definitions, strings and comments across lines. */
static void test_stream(void)
{
    const char *v[] = {"define f(x) {\n", "  return x * 2\n", "}\n",
                       "f(21); \"two\n", "lines\"\n", "/* a\n", "b */ 12\\\n",
                       "34\n", "quit\n", "99\n", NULL};
    lines l = {v, 0};
    mem m = {0};
    buf out = {0}, err = {0};
    bc_config_t cfg = config(&m, &out, &err);
    bc_ctx_t *bc = bc_create(&cfg);
    int st = bc_run_stream(bc, next_line, &l, "(lines)");
    CHECK(st == BC_QUIT, "status %d", st);
    CHECK(strcmp(out.data, "42\ntwo\nlines1234\n") == 0, "output %s", out.data);
    CHECK(l.i == 9, "read %d lines, quit is on the 9th", l.i);
    bc_destroy(bc);
    CHECK(m.live == 0, "%ld blocks not freed", m.live);
}

static void *thread_main(void *arg)
{
    int *bad = arg;
    for (int i = 0; i < 5; i++) {
        mem m = {0};
        buf out = {0}, err = {0};
        if (run(&m, &out, &err, prime_prog, 0) != BC_OK ||
            strcmp(out.data, "7919\n") != 0 || m.live != 0)
            (*bad)++;
        buf o2 = {0};
        if (run(&m, &o2, &err, "scale = 50; 4 * a(1)\n", 1) != BC_OK ||
            strcmp(o2.data, "3.14159265358979323846264338327950288419716939937"
                            "508\n") != 0)
            (*bad)++;
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t t[4];
    int bad[4] = {0};
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, thread_main, &bad[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(bad[i] == 0, "thread %d: %d wrong runs", i, bad[i]);
    }
}

/* ------------------------------------------------------------ unwinding
 * Errors, halts and limits unwind with longjmp out of the evaluator, the
 * arithmetic and the parser; each case below checks that the context then
 * holds nothing more than before (the temporaries of the unwound item are
 * freed, the refcounts right), that it still computes correctly, and that
 * bc_destroy() leaves no block. */

typedef struct unwind_case {
    const char *name;
    const char *setup;   /* run first; its output is not checked */
    const char *prog;    /* errs, halts or hits a limit */
    int want;            /* prog's status */
    const char *after;   /* run last, on the same context */
    const char *expect;  /* its output */
    int mathlib;
    double time_limit;
    size_t max_output;
    size_t max_bytes;    /* memory limit for prog only */
} unwind_case;

static const char deep_funcs[] =
    "define g(a[], n) {\n"
    "  auto t, u[]\n"
    "  u[1] = a[1] * n; u[2] = 123456789012345678901234567890 + n; t = 7\n"
    "  if (n == 0) return (u[2] * t) / (a[1] - a[1])\n"
    "  return g(u[], n - 1) + t * u[2]\n"
    "}\n"
    "define f(b[]) { auto z; z = 3.25; return 2 * g(b[], 6) + z }\n"
    "define k() { return 98765432109876543210.5 }\n";

static const unwind_case unwind_cases[] = {
    {"1/0 repeated", "x = 5; y = x * 1000000000000000000000\n",
     "1/0\n1/0\n2 + 3/0 * y\nsqrt(-y)\n1/0\n5 % 0\n1/0\n",
     BC_ERR_RUNTIME, "x; y\n", "5\n5000000000000000000000\n", .mathlib = 0},
    {"error deep in nested calls", deep_funcs,
     "b[1] = 2; x = 11; y = x + k()\nf(b[]) + x\nf(b[])\n",
     BC_ERR_RUNTIME, "x; b[1]; y; k(); b[2]; z\n",
     "11\n2\n98765432109876543221.5\n98765432109876543210.5\n0\n0\n", .mathlib = 0},
    {"halt inside a function", "define f() { halt }\n"
     "define k() { return 12345678901234567890 }\nv = k()\n",
     "1 + f()\n", BC_QUIT, "k(); v; 1 + k()\n",
     "12345678901234567890\n12345678901234567890\n12345678901234567891\n", .mathlib = 0},
    {"halt with arrays and autos", deep_funcs,
     "define h(a[], n) { auto t[]; t[n] = a[1] + n; if (n > 3) halt; "
     "return h(t[], n + 1) + k() }\nb[1] = 4\n7 * h(b[], 0)\n",
     BC_QUIT, "b[1]; k()\n", "4\n98765432109876543210.5\n", .mathlib = 0},
    {"syntax errors inside definitions", "x = 8\n",
     "define f(a\n"
     "define g(a[], b) {\n auto c, d\n x = (\n}\n"
     "define h(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[ ) { }\n"
     "define p(q, r, s, t, u, v, w, q) { return 1 }\n"
     "define k(n) { auto t[], bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, + }\n"
     "x = ) 1.000000000000000000000\\\n000000000000000001 2\n",
     BC_ERR_SYNTAX, "x\n", "8\n", .mathlib = 0},
    /* The loop keeps its products in temporaries only, so both runs
     * leave the same variables whenever the limit strikes (with b = a * a
     * assigned in the loop, a slow build could stop the first run before
     * b existed and the second after). */
    {"time limit inside multiplication and division", "x = 9\n",
     "a = 3^20000; while (1) { if (a * a / (a - 1) % 7 == 9) break }\n",
     BC_ERR_TIME, "x; 2 * 21\n", "9\n42\n", .time_limit = 0.3},
    {"memory limit inside multiplication", "x = 9\n",
     "a = 7^100000\nb = a * a * a * a * a * a * a * a\nc = b / a\n",
     BC_ERR_NOMEM, "x; x^20\n", "9\n12157665459056928801\n",
     .max_bytes = 400000},
    {"memory limit inside division", "x = 9\n",
     "scale = 50000; a = 7^30000; b = a / (a - 1)\n",
     BC_ERR_NOMEM, "x; x^20\n", "9\n12157665459056928801\n",
     .max_bytes = 80000},
    {"output limit while printing", "x = 4\n", "2^100000\n", BC_ERR_OUTPUT,
     "x\n", "4\n", .max_output = 1000},
    {"output limit while printing in base 16", "x = 4\n",
     "obase = 16; 3^100000 + .5\n", BC_ERR_OUTPUT, "obase = 10; x\n", "4\n",
     .max_output = 1000},
    {"math library: error inside a(), halt after", "x = 2\n",
     "define f() { halt }\ns(1/0)\na(x) / (x - 2)\nl(0)\n1 + e(f())\n",
     BC_QUIT, "scale = 20; x; s(0); e(0)\n", "2\n0\n1.00000000000000000000\n",
     .mathlib = 1},
};

static void test_unwind(void)
{
    for (size_t i = 0; i < sizeof unwind_cases / sizeof unwind_cases[0]; i++) {
        const unwind_case *u = &unwind_cases[i];
        mem m = {0};
        buf out = {0}, err = {0};
        bc_config_t cfg = config(&m, &out, &err);
        cfg.mathlib = u->mathlib;
        cfg.time_limit = u->time_limit;
        cfg.max_output = u->max_output;
        bc_ctx_t *bc = bc_create(&cfg);
        CHECK(bc != NULL, "%s: no context", u->name);
        if (!bc)
            continue;
        int st = bc_run(bc, u->setup, strlen(u->setup), "(setup)");
        CHECK(st == BC_OK, "%s: setup status %d: %s", u->name, st, err.data);
        long live = m.live;
        size_t bytes = m.bytes;
        m.max_bytes = u->max_bytes ? bytes + u->max_bytes : 0;
        st = bc_run(bc, u->prog, strlen(u->prog), "(prog)");
        m.max_bytes = 0;
        CHECK(st == u->want, "%s: status %d, want %d: %s", u->name, st,
              u->want, err.data);
        /* Nothing new lives on but the names and slots the program made
         * and the bodies it defined: run it again, which makes none, and
         * the context must not grow. */
        long live1 = m.live;
        size_t bytes1 = m.bytes;
        m.max_bytes = u->max_bytes ? bytes + u->max_bytes : 0;
        st = bc_run(bc, u->prog, strlen(u->prog), "(prog)");
        m.max_bytes = 0;
        CHECK(st == u->want, "%s: second status %d", u->name, st);
        CHECK(m.live == live1 && m.bytes == bytes1,
              "%s: the context grew from %ld blocks (%zu bytes) to %ld (%zu)"
              " (%ld before the first run)", u->name, live1, bytes1, m.live,
              m.bytes, live);
        out.len = 0;
        out.data[0] = 0;
        cfg.max_output = 0;
        st = bc_run(bc, u->after, strlen(u->after), "(after)");
        CHECK(st == BC_OK, "%s: after: status %d", u->name, st);
        CHECK(strcmp(out.data, u->expect) == 0, "%s: after: output %s",
              u->name, out.data);
        bc_destroy(bc);
        CHECK(m.live == 0, "%s: %ld blocks not freed", u->name, m.live);
        pool_release(&m);
    }
}

/* bc_run_stream: a long-lived context reading line by line must not grow
 * with its failing lines. */
static const char *error_lines(void *ud, size_t *len)
{
    int *left = ud;
    if (*left == 0)
        return NULL;
    (*left)--;
    static const char line[] = "x = x + 1; 10 ^ 40 / (x - x)\n";
    *len = sizeof line - 1;
    return line;
}

static void test_unwind_stream(void)
{
    mem m = {0};
    buf out = {0}, err = {0};
    bc_config_t cfg = config(&m, &out, &err);
    cfg.err = NULL; /* 1000 messages */
    bc_ctx_t *bc = bc_create(&cfg);
    int left = 10;
    int st = bc_run_stream(bc, error_lines, &left, "(lines)");
    CHECK(st == BC_ERR_RUNTIME, "status %d", st);
    long live = m.live;
    left = 1000;
    st = bc_run_stream(bc, error_lines, &left, "(lines)");
    CHECK(st == BC_ERR_RUNTIME, "status %d", st);
    CHECK(m.live == live, "%ld blocks after 10 failing lines, %ld after 1010",
          live, m.live);
    st = bc_run(bc, "x\n", 2, "(x)");
    CHECK(strcmp(out.data, "1010\n") == 0, "x: %s", out.data);
    bc_destroy(bc);
    CHECK(m.live == 0, "%ld blocks not freed", m.live);
}

/* Syntax errors inside nested blocks and definitions: parsing resumes
 * after the failed statement, whose nodes are freed there, and the item is
 * dropped, its other nodes freed at its end.  Every node must be freed
 * once, also when an allocation fails anywhere in the parse, and the clean
 * items after the bad ones must run.  The expected output is GNU bc's. */
static const char recovery_prog[] =
    "define f(a,b[]) { auto x; if (a) { x = ( ; x = 5 }; return x }\n"
    "while (1) { break + ; 3 }\n"
    "if (1) { for (i = 0; i < 3; i++) { y = * 2 ; y = 1 } ; 5 }\n"
    "define h(n) {\n"
    "  if (n) { return (n + ; 1 } else { return 9 }\n"
    "  for (;;) { n = n - 1; if (n < 0) { break ( ; 2 } }\n"
    "}\n"
    "define m() { return 1 }\n"
    "define m() { { 1 + ; 3 } ; return 2 }\n"
    "x = 3; { z = 4; w = ) ; v = 5 }; q = 6\n"
    "{ a = 1\n  b = ( 2\n  c = 3 }\n"
    "define k(n) { auto u[]; u[n] = 2 * n; { if (n) { u[0] = + ; 1 } }; "
    "return u[n] }\n"
    "define k(n) { auto u[]; u[n] = 2 * n; return u[n] }\n"
    "define g(a, b[]) { auto t; while (a) { t = t + b[a]; a = a - 1 }; "
    "return t }\n"
    "k(21); { 1 + 2; print \"ok\\n\" }\n"
    "for (j = 1; j <= 4; j++) { d[j] = j * j }; g(4, d[])\n"
    "x; z; v; q; a; c; i; y; w\n";
static const char recovery_out[] = "42\n3\nok\n30\n0\n0\n0\n0\n0\n0\n0\n0\n0\n";

static void test_syntax_recovery(void)
{
    mem m = {0};
    buf out = {0}, err = {0};
    m.strict = 1;
    bc_config_t cfg = config(&m, &out, &err);
    bc_ctx_t *bc = bc_create(&cfg);
    CHECK(bc != NULL, "no context");
    if (!bc)
        return;
    int st = bc_run(bc, recovery_prog, strlen(recovery_prog), "(t)");
    CHECK(st == BC_ERR_SYNTAX, "status %d", st);
    CHECK(strcmp(out.data, recovery_out) == 0, "output %s", out.data);
    /* again on the same context: the same output, and no growth */
    long live = m.live;
    size_t bytes = m.bytes;
    out.len = 0;
    out.data[0] = 0;
    st = bc_run(bc, recovery_prog, strlen(recovery_prog), "(t)");
    CHECK(st == BC_ERR_SYNTAX, "second status %d", st);
    CHECK(strcmp(out.data, recovery_out) == 0, "second output %s", out.data);
    CHECK(m.live == live && m.bytes == bytes,
          "the context grew from %ld blocks (%zu bytes) to %ld (%zu)", live,
          bytes, m.live, m.bytes);
    bc_destroy(bc);
    CHECK(m.live == 0, "%ld blocks not freed", m.live);
    CHECK(m.bad_frees == 0, "%ld double frees", m.bad_frees);
    pool_release(&m);

    /* a limit unwinding from anywhere in the parse, also from inside the
     * recovery of a nested statement */
    fail_each_allocation("syntax recovery", recovery_prog, 0, BC_ERR_SYNTAX);
}

int main(void)
{
    test_basic();
    test_leaks_and_pool_mode();
    test_out_of_memory();
    test_limits();
    test_stream();
    test_unwind();
    test_unwind_stream();
    test_syntax_recovery();
    test_threads();
    if (failures) {
        fprintf(stderr, "test_api: %d failures\n", failures);
        return 1;
    }
    printf("test_api: all passed\n");
    return 0;
}
