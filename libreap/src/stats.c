/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * stats.c - a reap's figures, for one reap or a subtree, as text or JSON.
 *
 * The fields are defined once, by REAP_STATS_FIELDS (and, for the base
 * allocator, REAP_BASE_STATS_FIELDS) in reap.h; the structs, the summing
 * over a subtree and the printers expand those lists.
 * Bumps are counted lazily (internal.h): a snapshot adds the bytes and the
 * blocks bumped since the reap last settled, the blocks read from the
 * start bits.  Peaks of live bytes are raised just before live bytes fall,
 * so a snapshot takes the larger of the stored peak and now.
 */
#include <inttypes.h>
#include <stdio.h>

#include "base/base.h"
#include "region.h"

/* The figures rp_settle() would make, without changing r.  Another thread
 * may be using r (reap_walk()'s figures): every field is
 * read once, and the bitmaps counted are those the address map finds for
 * `settled', up to its chunk's end at most, so that fields from two
 * moments (the frontier just moved to another chunk) give a figure off
 * by what the owner did meanwhile, never a read of memory that is not
 * the base allocator's. */
static void settled_view(const reap_t *r, uint64_t *live, uint64_t *allocs)
{
    char *bump = __atomic_load_n(&r->bump, __ATOMIC_RELAXED);
    char *mark = __atomic_load_n(&r->live_mark, __ATOMIC_RELAXED);
    char *settled = __atomic_load_n(&r->settled, __ATOMIC_RELAXED);
    uint64_t n = 0;
    uint8_t m = rp_base_map_get(settled);
    if (bump > settled && (m & RP_BASE_MAP_ALIGNED)) {
        uintptr_t start;
        rp_chunk_t *c = rp_chunk_block(settled, &start);
        char *end = (char *)start + ((size_t)1 << (m & 0x3f));
        if (c)
            n = rp_starts_between(rp_pair_bias(c, start), settled, bump < end ? bump : end);
    }
    *live = __atomic_load_n(&r->live_bytes, __ATOMIC_RELAXED) + (uint64_t)(bump > mark ? bump - mark : 0);
    *allocs = __atomic_load_n(&r->allocs, __ATOMIC_RELAXED) + n;
}

void reap_get_stats(const reap_t *r, reap_stats_t *out)
{
    if (RP_UNLIKELY(r == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap passed to reap_get_stats", NULL, NULL);
        *out = (reap_stats_t){0};
        return;
    }
    uint64_t live, allocs;
    settled_view(r, &live, &allocs);
    out->reaps = 1;
    out->live_bytes = live;
    out->live_objects = allocs - r->frees - r->cleared_objects;
    out->peak_live_bytes = r->peak_live_bytes > live ? r->peak_live_bytes : live;
    out->footprint = r->footprint;
    out->peak_footprint = r->peak_footprint;
    out->heap_free_bytes = r->free_bytes;
    out->allocs = allocs;
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
