/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * reap-bc.c - the command-line bc: `reap-bc [-l] [-q] [--stats] [file...]`.
 *
 * Behaves like `bc -q`: runs each file, then standard input (line by line,
 * so it can be used interactively), in one bc context, and stops at quit or
 * halt.  Every byte the interpreter uses comes
 * from one reap (libreap), freed object by object as the interpreter frees
 * it; --stats prints the reap's peak footprint on standard error.  Limit
 * flags set the interpreter's limits and the reap's memory limit.
 *
 * The interpreter runs on a thread with a large stack (BIG_STACK), so deep
 * recursion goes about as deep as in GNU bc, and ends with a clean error
 * (not a crash) when it would overflow.
 *
 * Exit status: 0 as GNU bc (also after reported syntax or runtime errors),
 * 1 for a file that cannot be read or bad usage, and 10 + the bc_status of
 * a limit that stopped the program (14 memory, 15 time, 16 output, 17 depth,
 * 18 program size).
 */
#define _GNU_SOURCE /* getline */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reap.h"
#include "bc.h"

/* Stack of the interpreter's thread: only the pages used are touched. */
#define BIG_STACK ((size_t)256 << 20)
#define STACK_MARGIN ((size_t)1 << 20)
#define DEFAULT_DEPTH 1000000u

#define REAP_BC_VERSION "0.1.0"

typedef struct opts {
    int mathlib, stats, no_free;
    double time_limit;
    unsigned long max_depth;
    size_t memory_limit, max_output, max_program;
    size_t stack_size;
} opts;

static void *hook_alloc(void *ud, size_t n)
{
    return reap_malloc(ud, n);
}

static void hook_free(void *ud, void *p)
{
    reap_free(ud, p);
}

/* --no-free: pure region behaviour, as httpd's "BcPfree Off" */
static void hook_no_free(void *ud, void *p)
{
}

static void write_out(void *ud, const char *buf, size_t n)
{
    fwrite(buf, 1, n, stdout);
}

static void write_err(void *ud, const char *buf, size_t n)
{
    fflush(stdout);
    fwrite(buf, 1, n, stderr);
}

static void usage(FILE *f)
{
    fputs("usage: reap-bc [-l] [-q] [--stats] [--no-free] [--time-limit=SEC] "
          "[--max-depth=N]\n"
          "               [--memory-limit=BYTES] [--max-output=BYTES] "
          "[--max-program=BYTES] [file...]\n"
          "  -l, --mathlib   load the math library (s c a l e j), scale=20\n"
          "  -q, --quiet     accepted for compatibility (no banner is printed);\n"
          "                  -i, -s and -w are accepted and ignored\n"
          "  --version       print the version\n"
          "  --stats         print the reap's peak footprint on stderr\n"
          "  --no-free       never free single numbers (region behaviour, to\n"
          "                  compare footprints with --stats)\n"
          "  BYTES may end in K, M or G.\n", f);
}

/* Parses a size with an optional K/M/G suffix; 0 on error. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    switch (*end) {
    case 'K': case 'k': v <<= 10; end++; break;
    case 'M': case 'm': v <<= 20; end++; break;
    case 'G': case 'g': v <<= 30; end++; break;
    default: break;
    }
    if (*end)
        return 0;
    *out = (size_t)v;
    return 1;
}

static const char *opt_value(const char *arg, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    return NULL;
}

/* Returns the index of the first file argument, or -1 on bad usage. */
static int parse_args(int argc, char **argv, opts *o)
{
    int i;
    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i], *v;
        size_t sz;
        if (strcmp(a, "--") == 0)
            return i + 1;
        if (strcmp(a, "--stats") == 0)
            o->stats = 1;
        else if (strcmp(a, "--no-free") == 0)
            o->no_free = 1;
        else if (strcmp(a, "--mathlib") == 0)
            o->mathlib = 1;
        else if (strcmp(a, "--quiet") == 0 || strcmp(a, "--standard") == 0 ||
                 strcmp(a, "--warn") == 0 || strcmp(a, "--interactive") == 0)
            ; /* no banner to suppress; POSIX-only modes are not offered */
        else if (strcmp(a, "--version") == 0 || strcmp(a, "-v") == 0) {
            printf("reap-bc %s (GNU bc 1.07.1 compatible), libreap %s\n",
                   REAP_BC_VERSION, reap_version());
            exit(0);
        }
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if ((v = opt_value(a, "--time-limit")))
            o->time_limit = strtod(v, NULL);
        else if ((v = opt_value(a, "--max-depth")))
            o->max_depth = strtoul(v, NULL, 10);
        else if ((v = opt_value(a, "--memory-limit")) && parse_size(v, &sz))
            o->memory_limit = sz;
        else if ((v = opt_value(a, "--max-output")) && parse_size(v, &sz))
            o->max_output = sz;
        else if ((v = opt_value(a, "--max-program")) && parse_size(v, &sz))
            o->max_program = sz;
        else if (a[1] != '-' && strspn(a + 1, "lqswi") == strlen(a + 1)) {
            if (strchr(a, 'l'))
                o->mathlib = 1;
        } else {
            fprintf(stderr, "reap-bc: unknown option %s\n", a);
            usage(stderr);
            return -1;
        }
    }
    return i;
}

/* Reads a whole stream into memory from the reap, but no more than one
 * byte past @p max (0 = no limit: the interpreter then reports the size);
 * NULL on error. */
static char *slurp(reap_t *r, FILE *f, size_t max, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = reap_malloc(r, cap);
    while (buf) {
        size_t want = cap - n;
        if (max && want > max + 1 - n)
            want = max + 1 - n;
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (got < want || (max && n > max)) {
            if (ferror(f))
                break;
            *len = n;
            return buf;
        }
        if (n == cap) {
            char *nb = reap_realloc(r, buf, cap * 2);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
    }
    reap_free(r, buf);
    return NULL;
}

static int line_length(void)
{
    const char *e = getenv("BC_LINE_LENGTH");
    if (!e)
        return 70;
    int n = atoi(e);
    if (n == 0)
        return 0;
    return n < 3 ? 70 : n;
}

/* Runs one input; returns 1 if bc should stop (quit, halt or a limit), -1
 * if the input could not be read (reported). */
static int run_stream(bc_ctx_t *bc, reap_t *r, FILE *f, const char *name,
                      size_t max, bc_status *st)
{
    size_t len;
    char *src = slurp(r, f, max, &len);
    if (!src) {
        fprintf(stderr, "reap-bc: cannot read %s: %s\n", name,
                ferror(f) ? strerror(errno) : "out of memory");
        return -1;
    }
    *st = bc_run(bc, src, len, name);
    reap_free(r, src);
    return *st == BC_QUIT || *st >= BC_ERR_NOMEM;
}

/* Standard input is read a line at a time, so that each line runs as soon
 * as it is typed (or piped), as in GNU bc. */
typedef struct line_reader {
    FILE *f;
    char *line;     /* getline()'s buffer (malloc: outside the reap) */
    size_t cap;
    int error;
} line_reader;

static const char *next_line(void *ud, size_t *len)
{
    line_reader *lr = ud;
    ssize_t n = getline(&lr->line, &lr->cap, lr->f);
    if (n < 0) {
        lr->error = ferror(lr->f);
        return NULL;
    }
    *len = (size_t)n;
    return lr->line;
}

/* read() takes its numbers from standard input while the program comes
 * from files; once standard input is the program, read() finds no more. */
typedef struct input_state {
    line_reader lr;
    int stdin_is_program;
} input_state;

static const char *next_input(void *ud, size_t *len)
{
    input_state *in = ud;
    if (in->stdin_is_program)
        return NULL;
    return next_line(&in->lr, len);
}

/* Runs standard input; same returns as run_stream(). */
static int run_stdin(bc_ctx_t *bc, bc_status *st)
{
    line_reader lr = {stdin, NULL, 0, 0};
    *st = bc_run_stream(bc, next_line, &lr, "(standard_in)");
    free(lr.line);
    if (lr.error) {
        fprintf(stderr, "reap-bc: cannot read standard input: %s\n",
                strerror(errno));
        return -1;
    }
    return *st == BC_QUIT || *st >= BC_ERR_NOMEM;
}

static void print_stats(reap_t *r)
{
    reap_stats_t s;
    reap_get_stats(r, &s);
    fprintf(stderr, "reap-bc: peak footprint %llu bytes\n",
            (unsigned long long)s.peak_footprint);
}

static int finish(reap_t *r, bc_ctx_t *bc, const opts *o, int code)
{
    fflush(stdout);
    bc_destroy(bc);
    if (o->stats)
        print_stats(r);
    reap_destroy(r);
    return code;
}

static int run(int argc, char **argv, opts o, int first)
{
    reap_t *r = reap_create(NULL);
    if (!r || (o.memory_limit && reap_set_limit(r, o.memory_limit) != 0)) {
        fprintf(stderr, "reap-bc: cannot create the reap\n");
        return 1;
    }
    bc_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.alloc = hook_alloc;
    cfg.free = o.no_free ? hook_no_free : hook_free;
    cfg.mem_ud = r;
    cfg.out = write_out;
    cfg.err = write_err;
    cfg.time_limit = o.time_limit;
    cfg.max_depth = o.max_depth ? (unsigned)o.max_depth : DEFAULT_DEPTH;
    cfg.max_stack = o.stack_size - STACK_MARGIN;
    cfg.max_output = o.max_output;
    cfg.max_program = o.max_program;
    cfg.line_length = line_length();
    cfg.mathlib = o.mathlib;
    input_state in = {{stdin, NULL, 0, 0}, 0};
    cfg.input = next_input;
    cfg.input_ud = &in;
    bc_ctx_t *bc = bc_create(&cfg);
    if (!bc) {
        fprintf(stderr, "reap-bc: cannot create the interpreter\n");
        return finish(r, NULL, &o, 1);
    }
    bc_status st = BC_OK;
    int stop = 0;
    for (int i = first; i < argc && !stop; i++) {
        FILE *f = fopen(argv[i], "r");
        if (!f) {
            fprintf(stderr, "File %s is unavailable.\n", argv[i]);
            stop = -1;
            break;
        }
        stop = run_stream(bc, r, f, argv[i], o.max_program, &st);
        fclose(f);
    }
    if (!stop) {
        in.stdin_is_program = 1;
        stop = run_stdin(bc, &st);
    }
    free(in.lr.line); /* read()'s buffer, on every way out */
    if (stop < 0)
        return finish(r, bc, &o, 1);
    return finish(r, bc, &o, st >= BC_ERR_NOMEM ? 10 + (int)st : 0);
}

typedef struct job {
    int argc;
    char **argv;
    opts o;
    int first, code;
} job;

static void *job_main(void *arg)
{
    job *j = arg;
    j->code = run(j->argc, j->argv, j->o, j->first);
    return NULL;
}

int main(int argc, char **argv)
{
    job j;
    memset(&j, 0, sizeof j);
    j.first = parse_args(argc, argv, &j.o);
    if (j.first < 0)
        return 1;
    j.argc = argc;
    j.argv = argv;
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    j.o.stack_size = BIG_STACK;
    if (pthread_attr_setstacksize(&attr, BIG_STACK) != 0 ||
        pthread_create(&t, &attr, job_main, &j) != 0) {
        /* no big thread: run here, within a conservative part of the stack */
        j.o.stack_size = (size_t)4 << 20;
        return run(argc, argv, j.o, j.first);
    }
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    return j.code;
}
