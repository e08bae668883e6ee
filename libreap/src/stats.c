/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * stats.c - a reap's figures, for one reap or a subtree, as text or JSON.
 *
 * The fields are defined once, by REAP_STATS_FIELDS (and, for the base
 * allocator, REAP_BASE_STATS_FIELDS) in reap.h; the structs, the summing
 * over a subtree and the printers expand those lists.
 * Peaks of live bytes are kept lazily (reap.c raises them just before live
 * bytes fall), so a snapshot takes the larger of the stored peak and now.
 */
#include <inttypes.h>
#include <stdio.h>

#include "base/base.h"
#include "internal.h"

void reap_get_stats(const reap_t *r, reap_stats_t *out)
{
    if (RP_UNLIKELY(r == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap passed to reap_get_stats", NULL, NULL);
        *out = (reap_stats_t){0};
        return;
    }
    out->reaps = 1;
    out->live_bytes = r->live_bytes;
    out->live_objects = r->allocs - r->frees - r->cleared_objects;
    out->peak_live_bytes = r->peak_live_bytes > r->live_bytes ? r->peak_live_bytes : r->live_bytes;
    out->footprint = r->footprint;
    out->peak_footprint = r->peak_footprint;
    out->heap_free_bytes = r->heap_free_bytes + r->quick_bytes + r->lost_bytes;
    out->allocs = r->allocs;
    out->frees = r->frees;
    out->clears = r->clears;
    out->limit_failures = r->limit_failures;
}

/* reap_walk callback: adds r's figures to the sum in arg. */
static int add_one(reap_t *r, unsigned depth, void *arg)
{
    reap_stats_t one, *sum = arg;
    (void)depth;
    reap_get_stats(r, &one);
#define ADD_(name, doc) sum->name += one.name;
    REAP_STATS_FIELDS(ADD_)
#undef ADD_
    return 0;
}

/* The subtree figures an accounting reap (r->acct == r) keeps: its
 * footprint, returned, and its peak.  A charge raises the peak just after
 * the footprint, so a reader may see the footprint first: the peak is
 * never reported below it. */
static uint64_t account_read(const reap_t *r, uint64_t *peak)
{
    uint64_t fp = atomic_load_explicit(&r->tree_footprint, memory_order_relaxed);
    uint64_t p = atomic_load_explicit(&r->tree_peak, memory_order_relaxed);
    *peak = p > fp ? p : fp;
    return fp;
}

void reap_get_tree_stats(reap_t *r, reap_stats_t *out)
{
    if (RP_UNLIKELY(r == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap passed to reap_get_tree_stats", r, NULL);
        *out = (reap_stats_t){0};
        return;
    }
    *out = (reap_stats_t){0};
    reap_walk(r, add_one, out);
    if (r->acct == r)
        account_read(r, &out->peak_footprint);
}

uint64_t reap_tree_footprint(reap_t *r, uint64_t *peak)
{
    uint64_t unused;
    if (RP_UNLIKELY(r == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap passed to reap_tree_footprint", r, NULL);
        if (peak)
            *peak = 0;
        return 0;
    }
    if (r->acct == r)
        return account_read(r, peak ? peak : &unused);
    reap_stats_t s;
    reap_get_tree_stats(r, &s);
    if (peak)
        *peak = s.peak_footprint;
    return s.footprint;
}

void reap_get_base_stats(reap_base_stats_t *out) { rp_base_get_stats(out); }

void reap_base_on_trim(void (*fn)(void *arg), void *arg) { rp_base_on_trim(fn, arg); }

void reap_base_trim(void) { rp_base_trim(); }

void reap_base_idle_release(unsigned long ms) { rp_base_idle_release(ms); }

void reap_base_wait_begin(void) { rp_base_wait_begin(); }

void reap_base_wait_end(void) { rp_base_wait_end(); }

void *reap_base_alloc(size_t size) { return rp_base_alloc(size); }

void reap_base_free(void *p, size_t size)
{
    if (p)
        rp_base_free(p, size);
}

static void write_stderr(void *arg, const char *text)
{
    (void)arg;
    fputs(text, stderr);
}

/* Both printers: n named values as "name: value" lines or one JSON object. */
static void print_fields(const char *const names[], const uint64_t values[], size_t n, int json,
                         reap_write_fn write, void *arg)
{
    char line[128];
    if (!write)
        write = write_stderr;
    for (size_t i = 0; i < n; i++) {
        if (json)
            snprintf(line, sizeof line, "%s\"%s\": %" PRIu64, i ? ", " : "{", names[i], values[i]);
        else
            snprintf(line, sizeof line, "%s: %" PRIu64 "\n", names[i], values[i]);
        write(arg, line);
    }
    if (json)
        write(arg, "}\n");
}

#define NAME_(name, doc) #name,
#define VALUE_(name, doc) s->name,

void reap_stats_print(const reap_stats_t *s, int json, reap_write_fn write, void *arg)
{
    static const char *const names[] = {REAP_STATS_FIELDS(NAME_)};
    const uint64_t values[] = {REAP_STATS_FIELDS(VALUE_)};
    print_fields(names, values, sizeof values / sizeof values[0], json, write, arg);
}

void reap_base_stats_print(const reap_base_stats_t *s, int json, reap_write_fn write, void *arg)
{
    static const char *const names[] = {REAP_BASE_STATS_FIELDS(NAME_)};
    const uint64_t values[] = {REAP_BASE_STATS_FIELDS(VALUE_)};
    print_fields(names, values, sizeof values / sizeof values[0], json, write, arg);
}
