/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * options.c - libreap's process-wide settings: its tunables, in one table,
 * and the misuse handler with the reports it gets.
 *
 * Every number a reap's behaviour depends on lives here with its default,
 * and each can be overridden from the environment (REAP_FIRST_CHUNK=16384;
 * sizes accept k, m and g suffixes).  rp_options_init() reads them once,
 * on the first reap_create(); malformed or out-of-range values keep the
 * default and are reported on stderr.
 */
#include <stdlib.h>

#include "base/base.h"
#include "internal.h"
#include "util/env.h"
#include "util/misuse.h"
#include "util/trace.h"

rp_options_t rp_opt = {
    .first_chunk = 1024,          /* the reap, its user area and a first few objects */
    .max_chunk = 32u << 10,       /* chunks grow up to 32 KiB, the largest of the base
                                   * allocator's superblock classes */
    .large_threshold = 16u << 10, /* larger objects get a solo chunk */
    .sweep_share = 8,             /* sweep once 8/64 of the footprint was freed since */
};

static const rp_env_option_t options[] = {
    {"REAP_FIRST_CHUNK", &rp_opt.first_chunk, 1024, 1u << 20, false, NULL},
    {"REAP_MAX_CHUNK", &rp_opt.max_chunk, 4096, 1u << 28, false, NULL},
    {"REAP_LARGE_THRESHOLD", &rp_opt.large_threshold, 256, 1u << 24, false, NULL},
    {"REAP_SWEEP_SHARE", &rp_opt.sweep_share, 0, 64, false, NULL},
};

static void options_read(void)
{
    rp_base_init(); /* REAP_MISUSE is the base allocator's, and read with it */
    rp_env_read(options, sizeof options / sizeof options[0]);
    /* chunks are aligned blocks of the base allocator: powers of two, up
     * to half a superblock (addrmap.h) */
    size_t max = (size_t)1 << (rp_base_map_shift - 1), p = 1024;
    while (p * 2 <= rp_opt.first_chunk && p * 2 <= max)
        p *= 2;
    rp_opt.first_chunk = p;
    for (p = rp_opt.first_chunk; p * 2 <= rp_opt.max_chunk && p * 2 <= max;)
        p *= 2;
    rp_opt.max_chunk = p;
    if (rp_opt.large_threshold > rp_opt.max_chunk / 2) /* a block fits a chunk */
        rp_opt.large_threshold = rp_opt.max_chunk / 2;
    rp_trace_init(RP_TRACE_REAPS); /* REAP_TRACE, before the first reap */
}

void rp_options_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, options_read);
}

/* ---- misuse ------------------------------------------------------------------- */

/* Set at start-up (reap.h), read on a misuse only. */
static reap_misuse_fn misuse_fn;
static void *misuse_arg;

void reap_set_misuse_handler(reap_misuse_fn fn, void *arg)
{
    misuse_arg = arg;
    misuse_fn = fn;
}

/* "libreap: double free of 0x... (reap 0x...)"; a NULL reap's misuse
 * "libreap: NULL reap passed to reap_free (pointer 0x...)". */
static void misuse_line(rp_line_t *l, reap_misuse_kind_t kind, const char *what, const reap_t *r,
                        const void *p)
{
    rp_line_str(l, "libreap: ");
    rp_line_str(l, what);
    if (kind == REAP_MISUSE_NULL_REAP) {
        if (p) {
            rp_line_str(l, " (pointer ");
            rp_line_ptr(l, p);
            rp_line_str(l, ")");
        }
        return;
    }
    rp_line_str(l, " ");
    rp_line_ptr(l, p);
    rp_line_str(l, " (reap ");
    rp_line_ptr(l, r);
    rp_line_str(l, ")");
}

void rp_misuse(reap_misuse_kind_t kind, const char *what, reap_t *r, const void *p)
{
    rp_options_init(); /* REAP_MISUSE, read with the base allocator's options */
    rp_line_t l = {.len = 0};
    misuse_line(&l, kind, what, r, p);
    reap_misuse_t m = {kind, what, l.text, p, r,
                       rp_misuse_mode == RP_MISUSE_REPORT ? REAP_MISUSE_LEAK : REAP_MISUSE_ABORT};
    reap_misuse_fn fn = misuse_fn;
    int action = m.action;
    if (fn)
        action = fn(&m, misuse_arg);
    else
        rp_line_write(&l);
    if (action != REAP_MISUSE_LEAK || kind == REAP_MISUSE_CORRUPTION)
        abort();
}
