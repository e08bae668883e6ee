/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * main.c - reap-trace: replay, plot and rank a REAP_TRACE recording.
 *
 * The commands share one loaded trace (tracefile.c) and the replay engine
 * (replay.c); this file parses the command line and prints.  docs/trace.md
 * is the manual; usage() below is its summary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay.h"

static const char usage_text[] =
    "NAME\n"
    "    reap-trace - replay, plot and rank allocation traces of libreap\n"
    "\n"
    "SYNOPSIS\n"
    "    reap-trace replay [--csv] FILE\n"
    "    reap-trace plot FILE [-o OUT.png|OUT.svg]\n"
    "    reap-trace top [-n N] FILE\n"
    "    reap-trace dump FILE\n"
    "    reap-trace --help\n"
    "\n"
    "DESCRIPTION\n"
    "    FILE is a trace written by a program run with REAP_TRACE=prefix\n"
    "    (prefix.<pid>): libreap's reaps, and malloc under libreap-malloc.so.\n"
    "\n"
    "    replay   replays the trace in order, single-threaded, against each\n"
    "             allocator it can load: region (frees ignored, memory back\n"
    "             at clear/destroy, on libreap's blocks), apr-pool (the same\n"
    "             on Debian's APR pools, when its libapr-1.so.0 loads), reap\n"
    "             (libreap), glibc (malloc/free), mimalloc-heap and\n"
    "             jemalloc-arena (when libmimalloc.so.2 and libjemalloc.so.2\n"
    "             load).  One row per allocator:\n"
    "             allocator,peak_footprint_bytes,peak_live_bytes,time_s,drag\n"
    "             --csv prints that header and comma-separated rows; without\n"
    "             it, an aligned table.\n"
    "    plot     writes OUT.dat and OUT.gp (memory over time: each\n"
    "             allocator's footprint and the live bytes) next to OUT\n"
    "             (default FILE.png) and runs gnuplot on them if installed.\n"
    "    top      the pools (by tag, else by reap id) that drag most under\n"
    "             region semantics: dead bytes x seconds between an object's\n"
    "             free and its pool's clear or destroy, and the most dead\n"
    "             bytes at once; the N largest (default 20).\n"
    "    dump     the merged, checked events as CSV, one a line: reaps and\n"
    "             objects by slot (reap 0 is malloc's), times in ns.  other\n"
    "             is a create's parent reap (empty for a top-level reap) and\n"
    "             a realloc's new object; empty for the other events.\n"
    "\n"
    "    drag is the area under the bytes an allocator keeps for objects\n"
    "    over the area under the live bytes, over allocation time (docs/trace.md).\n"
    "\n"
    "EXIT STATUS\n"
    "    0 on success, 1 when the trace cannot be read (the message names\n"
    "    the file offset), 2 on a usage error.\n";

static int usage(FILE *to, int status)
{
    fputs(usage_text, to);
    return status;
}

static int load_or_say(const char *path, rt_trace_t *tr)
{
    char err[512];
    if (rt_load(path, tr, err, sizeof err) == 0) {
        if (tr->skipped)
            fprintf(stderr, "reap-trace: %s: a fork child's trace: %llu events about its parent's memory skipped\n",
                    path, (unsigned long long)tr->skipped);
        return 0;
    }
    fprintf(stderr, "%s\n", err);
    return 1;
}

/* ---- replay -------------------------------------------------------------------- */

typedef struct row {
    const char *name;
    rt_result_t r;
    double drag;
} row_t;

/* Measured, then timed; false when the allocator failed the replay. */
static bool replay_one(const rt_backend_t *b, const rt_trace_t *tr, const rt_facts_t *f, row_t *row)
{
    rt_result_t timed, measured;
    /* measured first: a timed run first would leave glibc's arena grown */
    if (rt_replay(b, tr, &measured, true, NULL, 0) < 0 || rt_replay(b, tr, &timed, false, NULL, 0) < 0) {
        fprintf(stderr, "reap-trace: %s: the replay failed (out of memory)\n", b->name);
        return false;
    }
    row->name = b->name;
    row->r = measured;
    row->r.time_s = timed.time_s;
    row->drag = b->region ? f->drag_region : f->drag_free;
    return true;
}

static int cmd_replay(const char *path, bool csv)
{
    rt_trace_t tr;
    if (load_or_say(path, &tr))
        return 1;
    rt_facts_t f;
    rt_facts(&tr, &f, NULL, 0);
    row_t rows[16];
    size_t n = 0;
    for (size_t i = 0; rt_backends[i] && n < 16; i++)
        if (rt_backends[i]->open() && replay_one(rt_backends[i], &tr, &f, &rows[n]))
            n++;
    const char *fmt = csv ? "%s,%llu,%llu,%.6f,%.4f\n" : "%-15s %20llu %15llu %10.6f %8.4f\n";
    if (csv)
        printf("allocator,peak_footprint_bytes,peak_live_bytes,time_s,drag\n");
    else
        printf("%-15s %20s %15s %10s %8s\n", "allocator", "peak_footprint_bytes", "peak_live_bytes",
               "time_s", "drag");
    for (size_t i = 0; i < n; i++)
        printf(fmt, rows[i].name, (unsigned long long)rows[i].r.peak_footprint,
               (unsigned long long)f.peak_live, rows[i].r.time_s, rows[i].drag);
    rt_free(&tr);
    return 0;
}

/* ---- plot ------------------------------------------------------------------------ */

#define PLOT_POINTS 2000

static int run_gnuplot(const char *script)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(errno == ENOENT ? 127 : 126);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool write_script(const char *gp, const char *dat, const char *out, const char **names, size_t n)
{
    FILE *s = fopen(gp, "w");
    if (!s)
        return false;
    size_t len = strlen(out);
    bool svg = len > 4 && strcmp(out + len - 4, ".svg") == 0;
    fprintf(s, "set terminal %s size 1000,600\nset output '%s'\n", svg ? "svg" : "png", out);
    fprintf(s, "set datafile separator ','\nset key top left\nset xlabel 'seconds'\n"
               "set ylabel 'bytes'\nset title 'memory over time'\n");
    fprintf(s, "plot '%s' using 1:2 with lines lw 2 title 'live'", dat);
    for (size_t i = 0; i < n; i++)
        fprintf(s, ", \\\n     '%s' using 1:%zu with lines title '%s'", dat, i + 3, names[i]);
    fprintf(s, "\n");
    return fclose(s) == 0;
}

static int cmd_plot(const char *path, const char *out)
{
    rt_trace_t tr;
    if (load_or_say(path, &tr))
        return 1;
    char def[4096], dat[4200], gp[4200];
    if (!out) {
        snprintf(def, sizeof def, "%s.png", path);
        out = def;
    }
    snprintf(dat, sizeof dat, "%s.dat", out);
    snprintf(gp, sizeof gp, "%s.gp", out);
    size_t step = tr.nops / PLOT_POINTS + 1, npts = tr.nops / step + 1;
    uint64_t *col[17];
    const char *names[16];
    size_t n = 0;
    rt_facts_t f;
    col[0] = rt_map(npts * 8);
    rt_facts(&tr, &f, col[0], step);
    for (size_t i = 0; rt_backends[i] && n < 16; i++) {
        rt_result_t r;
        if (!rt_backends[i]->open() || !(col[n + 1] = rt_map(npts * 8)))
            continue;
        if (rt_replay(rt_backends[i], &tr, &r, true, col[n + 1], step) == 0)
            names[n++] = rt_backends[i]->name;
    }
    FILE *d = fopen(dat, "w");
    if (!d) {
        fprintf(stderr, "reap-trace: %s: %s\n", dat, strerror(errno));
        return 1;
    }
    for (size_t p = 0; p * step < tr.nops; p++) {
        fprintf(d, "%.6f,%llu", tr.ops[p * step].t / 1e9, (unsigned long long)col[0][p]);
        for (size_t i = 0; i < n; i++)
            fprintf(d, ",%llu", (unsigned long long)col[i + 1][p]);
        fprintf(d, "\n");
    }
    if (fclose(d) != 0 || !write_script(gp, dat, out, names, n)) {
        fprintf(stderr, "reap-trace: cannot write %s or %s\n", dat, gp);
        return 1;
    }
    int rc = run_gnuplot(gp);
    if (rc == 127)
        printf("wrote %s and %s; gnuplot is not installed: run gnuplot %s\n", dat, gp, gp);
    else if (rc != 0)
        fprintf(stderr, "reap-trace: gnuplot %s failed\n", gp);
    else
        printf("wrote %s (data %s, script %s)\n", out, dat, gp);
    rt_free(&tr);
    return rc == 0 || rc == 127 ? 0 : 1;
}

/* ---- dump ------------------------------------------------------------------------ */

static int cmd_dump(const char *path)
{
    static const char *const kind[] = {"?", "create", "clear", "destroy", "alloc", "free", "realloc"};
    rt_trace_t tr;
    if (load_or_say(path, &tr))
        return 1;
    printf("time_ns,event,reap,object,other,size\n");
    for (size_t i = 0; i < tr.nops; i++) {
        const rt_op_t *op = &tr.ops[i];
        char other[16] = "";
        /* A create's parent is kept as its slot + 1, 0 for none: print the
         * slot, or nothing for a top-level reap. */
        if (op->kind == RT_CREATE ? op->other != 0 : op->kind == RT_REALLOC)
            snprintf(other, sizeof other, "%u", op->kind == RT_CREATE ? op->other - 1 : op->other);
        printf("%llu,%s,%u,%u,%s,%llu\n", (unsigned long long)op->t, kind[op->kind], op->reap, op->obj,
               other, (unsigned long long)op->size);
    }
    rt_free(&tr);
    return 0;
}

/* ---- top ------------------------------------------------------------------------- */

static int cmd_top(const char *path, size_t limit)
{
    rt_trace_t tr;
    if (load_or_say(path, &tr))
        return 1;
    rt_drag_row_t *rows;
    size_t n = rt_top(&tr, &rows);
    printf("%-32s %7s %20s %16s\n", "pool", "reaps", "dead_byte_seconds", "peak_dead_bytes");
    for (size_t i = 0; i < n && i < limit; i++) {
        char id[40];
        const char *name = rows[i].name;
        if (!name) {
            snprintf(id, sizeof id, "reap 0x%llx", (unsigned long long)tr.reap_id[rows[i].reap]);
            name = id;
        }
        printf("%-32.32s %7u %20.6f %16llu\n", name, rows[i].reaps, rows[i].byte_seconds,
               (unsigned long long)rows[i].peak_dead);
    }
    free(rows);
    rt_free(&tr);
    return 0;
}

/* jemalloc's library uses the initial-exec TLS model, which dlopen() can
 * give it only from the static TLS surplus reserved at start-up: run
 * again, once, with a bigger one (a glibc tunable). */
static void reexec_for_jemalloc(char **argv)
{
    if (getenv("REAP_TRACE_REEXEC"))
        return;
    const char *old = getenv("GLIBC_TUNABLES");
    char tun[1024];
    snprintf(tun, sizeof tun, "%s%sglibc.rtld.optional_static_tls=16384", old ? old : "", old ? ":" : "");
    setenv("GLIBC_TUNABLES", tun, 1);
    setenv("REAP_TRACE_REEXEC", "1", 1);
    execv("/proc/self/exe", argv);
}

int main(int argc, char **argv)
{
    unsetenv("REAP_TRACE"); /* the replays are not traced */
    reexec_for_jemalloc(argv);
    if (argc < 2)
        return usage(stderr, 2);
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0)
        return usage(stdout, 0);
    const char *file = NULL, *out = NULL;
    bool csv = false;
    size_t limit = 20;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = true;
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            limit = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--help") == 0)
            return usage(stdout, 0);
        else if (argv[i][0] == '-' || file)
            return usage(stderr, 2);
        else
            file = argv[i];
    }
    if (!file)
        return usage(stderr, 2);
    if (strcmp(cmd, "replay") == 0)
        return cmd_replay(file, csv);
    if (strcmp(cmd, "plot") == 0)
        return cmd_plot(file, out);
    if (strcmp(cmd, "top") == 0)
        return cmd_top(file, limit);
    if (strcmp(cmd, "dump") == 0)
        return cmd_dump(file);
    return usage(stderr, 2);
}
