/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * fuzz_bc.c - libFuzzer target: the input is a bc program, run by the
 * interpreter of modules/mod_bc under the kind of limits the httpd module
 * sets (1 s of time, 64 KiB of output, 1000 nested calls, 64 KiB of
 * program, memory from a reap capped at 32 MiB with reap_set_limit).
 *
 * What must hold, whatever the bytes: no crash and no sanitizer report in
 * the lexer, parser, evaluator or number code; the status is one of
 * bc_status; no more output than max_output reaches the output hook; a
 * refused allocation ends the run with BC_ERR_NOMEM, never with a crash;
 * after bc_destroy() the reap holds no live object (the interpreter frees
 * everything it allocated, also after errors and limits unwind), and after
 * reap_destroy() the base allocator is back where it started.  Time is
 * bounded by the time limit; libFuzzer's -timeout catches a run that
 * ignores it.  Built with -DFUZZ_BC_MATHLIB=1 the same target runs with
 * the -l library loaded (fuzz_bc_mathlib), so its functions are reachable.
 * FUZZ_TRACE=1 in the environment prints the program's output and errors
 * and its status, for reading a reproducer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"
#include "reap.h"

#ifndef FUZZ_BC_MATHLIB
#define FUZZ_BC_MATHLIB 0
#endif

#define MEMORY_LIMIT (32u << 20)
#define MAX_OUTPUT (64u << 10)
#define MAX_PROGRAM (64u << 10)

typedef struct sink {
    size_t bytes; /* written through the hook so far */
    int trace;    /* copy to stderr */
} sink;

static void fail(const char *what, size_t a)
{
    fprintf(stderr, "fuzz_bc: %s (%zu)\n", what, a);
    abort();
}

static void *mem_alloc(void *ud, size_t n) { return reap_malloc(ud, n); }
static void mem_free(void *ud, void *p) { reap_free(ud, p); }

static void write_out(void *ud, const char *buf, size_t n)
{
    sink *s = ud;
    s->bytes += n;
    if (s->bytes > MAX_OUTPUT)
        fail("output passed max_output", s->bytes);
    if (s->trace)
        fwrite(buf, 1, n, stderr);
}

static void write_err(void *ud, const char *buf, size_t n)
{
    sink *s = ud;
    s->bytes += n;
    if (s->trace)
        fwrite(buf, 1, n, stderr);
}

/* read() gets a few numbers, then the end of its input. */
static const char *read_line(void *ud, size_t *len)
{
    static const char *lines[] = {"7\n", "-1.5\n", "123456789012345678901234567890\n"};
    int *next = ud;
    if (*next >= 3)
        return NULL;
    const char *l = lines[(*next)++];
    *len = strlen(l);
    return l;
}

static void check_status(bc_status st)
{
    if ((int)st < BC_OK || st > BC_ERR_PROGSIZE)
        fail("status out of range", (size_t)st);
    if (bc_strstatus(st) == NULL)
        fail("no description of status", (size_t)st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reap_base_stats_t b0, b1;
    reap_base_trim(); /* in_use counts this thread's cache: empty it */
    reap_get_base_stats(&b0);

    reap_t *r = reap_create(NULL);
    if (!r || reap_set_limit(r, MEMORY_LIMIT) != 0)
        fail("no reap", 0);
    sink out = {0, getenv("FUZZ_TRACE") != NULL}, err = out;
    int next_line = 0;
    bc_config_t cfg = {0};
    cfg.alloc = mem_alloc;
    cfg.free = mem_free;
    cfg.mem_ud = r;
    cfg.out = write_out;
    cfg.out_ud = &out;
    cfg.err = write_err;
    cfg.err_ud = &err;
    cfg.time_limit = 1.0;
    cfg.max_output = MAX_OUTPUT;
    cfg.max_depth = 1000;
    cfg.max_program = MAX_PROGRAM;
    cfg.line_length = -1;
    cfg.mathlib = FUZZ_BC_MATHLIB;
    cfg.input = read_line;
    cfg.input_ud = &next_line;

    bc_ctx_t *ctx = bc_create(&cfg);
    if (!ctx)
        fail("bc_create failed", 0);
    bc_status st = bc_run(ctx, (const char *)data, size, "(fuzz)");
    check_status(st);
    if (out.trace)
        fprintf(stderr, "\n[status %d: %s]\n", (int)st, bc_strstatus(st));

    reap_stats_t s;
    reap_get_tree_stats(r, &s);
    if (s.footprint > MEMORY_LIMIT)
        fail("reap footprint above the limit", (size_t)s.footprint);
    bc_destroy(ctx);
    reap_get_stats(r, &s);
    /* Every run, also one that an error, a limit or a halt unwound (once
     * a known bug, fuzz/crashes/fuzz_bc-leak-on-error.txt: unwind.c). */
    if (s.live_objects != 0)
        fail("objects left in the reap after bc_destroy (a leak)", (size_t)s.live_objects);
    reap_destroy(r);

    reap_base_trim();
    reap_get_base_stats(&b1);
    if (b1.in_use > b0.in_use)
        fail("base allocator holds more in use after the reap is gone", (size_t)(b1.in_use - b0.in_use));
    return 0;
}
