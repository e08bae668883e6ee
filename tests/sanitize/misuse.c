/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * misuse.c - deliberate misuse of reap objects that AddressSanitizer or
 * Valgrind memcheck must report, one case per run: `misuse CASE`.
 *
 * Built only in ASan and Valgrind builds (tests/sanitize/local.mk), where
 * libreap annotates its objects (libreap/src/util/annotate.h); misuse.sh runs
 * every case and checks the tool's report.  Each misuse is a single
 * one-byte access through a volatile pointer, so the compiler keeps it, and
 * the case prints the address it touches to stdout first, so the script can
 * check the report names it.  `misuse clean` does only legal things at the
 * edges (the last byte asked for, usable size, realloc and calloc contents)
 * and must run without a report.  `misuse --list` prints the cases;
 * `misuse --tool` prints how libreap was annotated: asan, valgrind or none.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reap.h"

#if defined(__SANITIZE_ADDRESS__)
#define TOOL "asan"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TOOL "asan"
#endif
#endif
#ifndef TOOL
#ifdef REAP_VALGRIND
#define TOOL "valgrind"
#else
#define TOOL "none"
#endif
#endif

static reap_t *must_create(void)
{
    reap_t *r = reap_create(NULL);
    if (!r) {
        fprintf(stderr, "misuse: reap_create failed\n");
        exit(2);
    }
    return r;
}

static void *must_alloc(reap_t *r, size_t n)
{
    void *p = reap_malloc(r, n);
    if (!p) {
        fprintf(stderr, "misuse: reap_malloc(%zu) failed\n", n);
        exit(2);
    }
    return p;
}

/* Name the address, then read it: the tool must stop the program here. */
static int touch(const void *addr)
{
    printf("%p\n", addr);
    fflush(stdout);
    return *(const volatile char *)addr;
}

static void poke(void *addr)
{
    printf("%p\n", addr);
    fflush(stdout);
    *(volatile char *)addr = 1;
}

static int use_after_free(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 100);
    must_alloc(r, 10); /* p does not border the frontier: it goes to a bin */
    reap_free(r, p);
    return touch(p + 50);
}

static int use_after_free_quick(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 24);
    must_alloc(r, 10);
    reap_free(r, p); /* filed on its list, its link in p[0..7] */
    return touch(p + 12);
}

static int use_after_free_at_frontier(void)
{
    reap_t *r = must_create();
    must_alloc(r, 10);
    char *p = must_alloc(r, 64);
    reap_free(r, p); /* the last block: goes back to the frontier */
    return touch(p);
}

static int write_after_free(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 200);
    must_alloc(r, 10);
    reap_free(r, p);
    poke(p + 199);
    return 0;
}

static int use_after_clear(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 40);
    reap_clear(r);
    return touch(p + 3);
}

static int use_after_clear_later_chunk(void)
{
    reap_t *r = must_create();
    char *p = NULL;
    for (int i = 0; i < 2000; i++) /* ~200 KiB: several chunks */
        p = must_alloc(r, 100);
    reap_clear(r);
    return touch(p);
}

static int use_after_destroy(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 40);
    reap_destroy(r);
    return touch(p + 1);
}

static int use_after_child_destroyed_by_clear(void)
{
    reap_t *parent = must_create();
    reap_t *child = reap_create(parent);
    char *p = must_alloc(child, 40);
    reap_clear(parent); /* destroys the child first */
    return touch(p);
}

static int overflow_into_rounding(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 20); /* block of 32: 4 bytes of rounding follow */
    must_alloc(r, 20);
    return touch(p + 20);
}

/* Blocks have no headers: past an object's block is the next object's.
 * A live neighbour is the program's to touch; a freed one is not. */
static int overflow_into_freed_neighbour(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 32); /* exact fit: p[32] is the next block's first byte */
    char *q = must_alloc(r, 32);
    must_alloc(r, 10);
    reap_free(r, q);
    poke(p + 32);
    return 0;
}

static int underflow_into_freed_neighbour(void)
{
    reap_t *r = must_create();
    char *a = must_alloc(r, 32);
    char *p = must_alloc(r, 32);
    reap_free(r, a);
    return touch(p - 1);
}

static int read_bump_space(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 16);
    return touch(p + 256); /* never handed out */
}

static int large_overflow(void)
{
    reap_t *r = must_create();
    size_t n = (size_t)1 << 20; /* above the large threshold */
    char *p = must_alloc(r, n);
    return touch(p + n);
}

static int use_after_large_free(void)
{
    reap_t *r = must_create();
    size_t n = (size_t)1 << 20;
    char *p = must_alloc(r, n);
    reap_free(r, p);
    return touch(p + 4096);
}

static int use_after_realloc_moved(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 32);
    must_alloc(r, 10); /* p cannot grow in place */
    char *q = reap_realloc(r, p, 4000);
    if (q == p) {
        fprintf(stderr, "misuse: realloc did not move\n");
        return 2;
    }
    return touch(p);
}

static int past_shrunk_realloc(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 400);
    must_alloc(r, 10);
    char *q = reap_realloc(r, p, 100); /* shrinks in place */
    return touch(q + 100);
}

static int past_calloc(void)
{
    reap_t *r = must_create();
    char *p = reap_calloc(r, 7, 3);
    return touch(p + 21);
}

static int past_aligned(void)
{
    reap_t *r = must_create();
    char *p = reap_aligned_alloc(r, 256, 40);
    return touch(p + 40);
}

static int past_usable_size(void)
{
    reap_t *r = must_create();
    char *p = must_alloc(r, 20);
    size_t n = reap_usable_size(p); /* 24: all of it may be used now */
    memset(p, 1, n);
    return touch(p + n);
}

/* Legal use at every edge: must run clean under the tool. */
static int clean(void)
{
    reap_t *r = must_create();
    char *a = must_alloc(r, 20);
    memset(a, 'a', 20);
    size_t usable = reap_usable_size(a);
    if (usable < 20)
        return 3;
    memset(a, 'a', usable); /* reap.h: all of it may be used */
    char *b = reap_realloc(r, a, 3000);
    if (!b || b[19] != 'a')
        return 4;
    memset(b, 'b', 3000);
    char *c = reap_realloc(r, b, 10);
    if (!c || c[9] != 'b')
        return 5;
    reap_free(r, c);
    char *z = reap_calloc(r, 10, 10);
    for (int i = 0; i < 100; i++)
        if (z[i] != 0)
            return 6;
    char *al = reap_aligned_alloc(r, 128, 50);
    if (!al || (uintptr_t)al % 128 != 0)
        return 7;
    memset(al, 1, 50);
    for (int i = 0; i < 1000; i++) { /* reuse of freed blocks */
        char *p = must_alloc(r, (size_t)(i % 300) + 1);
        memset(p, i, (size_t)(i % 300) + 1);
        if (i % 3)
            reap_free(r, p);
    }
    char *big = must_alloc(r, (size_t)1 << 20);
    big[((size_t)1 << 20) - 1] = 1;
    reap_free(r, big);
    reap_clear(r);
    char *again = must_alloc(r, 64);
    memset(again, 2, 64);
    reap_t *child = reap_create(r);
    memset(must_alloc(child, 100), 3, 100);
    reap_destroy(r);
    r = must_create(); /* its memory may be the old reap's: must be open again */
    memset(must_alloc(r, 500), 4, 500);
    reap_destroy(r);
    puts("clean");
    return 0;
}

static const struct {
    const char *name;
    int (*fn)(void);
} cases[] = {
    {"use_after_free", use_after_free},
    {"use_after_free_quick", use_after_free_quick},
    {"use_after_free_at_frontier", use_after_free_at_frontier},
    {"write_after_free", write_after_free},
    {"use_after_clear", use_after_clear},
    {"use_after_clear_later_chunk", use_after_clear_later_chunk},
    {"use_after_destroy", use_after_destroy},
    {"use_after_child_destroyed_by_clear", use_after_child_destroyed_by_clear},
    {"overflow_into_rounding", overflow_into_rounding},
    {"overflow_into_freed_neighbour", overflow_into_freed_neighbour},
    {"underflow_into_freed_neighbour", underflow_into_freed_neighbour},
    {"read_bump_space", read_bump_space},
    {"large_overflow", large_overflow},
    {"use_after_large_free", use_after_large_free},
    {"use_after_realloc_moved", use_after_realloc_moved},
    {"past_shrunk_realloc", past_shrunk_realloc},
    {"past_calloc", past_calloc},
    {"past_aligned", past_aligned},
    {"past_usable_size", past_usable_size},
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: misuse CASE | clean | --list | --tool\n");
        return 2;
    }
    if (strcmp(argv[1], "--tool") == 0) {
        puts(TOOL);
        return 0;
    }
    if (strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            puts(cases[i].name);
        return 0;
    }
    if (strcmp(argv[1], "clean") == 0)
        return clean();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].fn();
            /* reached only when the tool missed it (ASan halts; Valgrind
             * goes on and fails the run through --error-exitcode) */
            return 0;
        }
    fprintf(stderr, "misuse: unknown case '%s' (try --list)\n", argv[1]);
    return 2;
}
