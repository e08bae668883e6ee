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
    int no_free;      /* pool mode: free does nothing */
    struct blk *pool; /* every block not yet freed, as a pool holds them:
                         pool_release() frees them all at once */
} mem;

/* The prefix of every block: its links in mem.pool (16 bytes, so the
 * blocks stay 16-byte aligned). */
typedef struct blk {
    struct blk *next, *prev;
} blk;

static void *t_alloc(void *ud, size_t n)
{
    mem *m = ud;
    if (m->fail_at && ++m->allocs >= m->fail_at)
        return NULL;
    if (!m->fail_at)
        m->allocs++;
    blk *b = malloc(sizeof *b + n);
    if (!b)
        return NULL;
    m->live++;
    b->prev = NULL;
    b->next = m->pool;
    if (m->pool)
        m->pool->prev = b;
    m->pool = b;
    return b + 1;
}

/* What a pool does when it is cleared: free what is left.  (After an
 * error or a limit the interpreter leaves that statement's temporaries to
 * the pool, see bc.h.) */
static void pool_release(mem *m)
{
    while (m->pool) {
        blk *next = m->pool->next;
        free(m->pool);
        m->pool = next;
    }
}

static void t_free(void *ud, void *p)
{
    mem *m = ud;
    if (m->no_free)
        return; /* leaked on purpose: a pool would free it later */
    m->live--;
    blk *b = (blk *)p - 1;
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

static void test_out_of_memory(void)
{
    /* count the allocations of a full run, then fail each one in turn */
    const char *prog = "define f(n) { if (n < 2) return 1; return n * f(n-1) }\n"
                       "f(30)\nscale = 30; sqrt(2); 1/7; a[5] = 3; a[5]^40\n"
                       "print \"x\", 2.5 % 1, \"\\n\"; obase = 16; 255.5\n";
    mem probe = {0};
    buf o = {0}, e = {0};
    CHECK(run(&probe, &o, &e, prog, 1) == BC_OK, "probe run: %s", e.data);
    long total = probe.allocs;
    CHECK(total > 50, "only %ld allocations", total);
    int nomem = 0, ok = 0;
    for (long n = 1; n <= total; n++) {
        mem m = {0};
        buf out = {0}, err = {0};
        m.fail_at = n;
        int st = run(&m, &out, &err, prog, 1);
        if (st == BC_ERR_NOMEM || st == -1)
            nomem++;
        else if (st == BC_OK)
            ok++;
        else
            CHECK(0, "failing allocation %ld gave status %d", n, st);
        pool_release(&m);
    }
    CHECK(nomem > 0 && nomem + ok == total, "nomem %d ok %d of %ld", nomem,
          ok, total);
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

int main(void)
{
    test_basic();
    test_leaks_and_pool_mode();
    test_out_of_memory();
    test_limits();
    test_stream();
    test_threads();
    if (failures) {
        fprintf(stderr, "test_api: %d failures\n", failures);
        return 1;
    }
    printf("test_api: all passed\n");
    return 0;
}
