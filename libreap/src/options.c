/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * options.c - libreap's tunables, in one table.
 *
 * Every number a reap's behaviour depends on lives here with its default,
 * and each can be overridden from the environment (REAP_FIRST_CHUNK=16384;
 * sizes accept k, m and g suffixes).  rp_options_init() reads them once,
 * on the first reap_create(); malformed or out-of-range values keep the
 * default and are reported on stderr.
 */
#include "base/base.h"
#include "internal.h"
#include "util/env.h"
#include "util/trace.h"

rp_options_t rp_opt = {
    .first_chunk = 8192,          /* the 2002 reaps' first chunk */
    .max_chunk = 64u << 10,       /* chunks double from 8 KiB up to 64 KiB: a big
                                   * reap's last chunk is half used on average */
    .large_threshold = 64u << 10, /* larger objects get their own base block */
    .tail_keep = 256,             /* smaller tails of retired chunks are left */
    .quick_limit = RP_SMALL_LIMIT, /* every exact-bin size waits on quick lists */
};

static const rp_env_option_t options[] = {
    {"REAP_FIRST_CHUNK", &rp_opt.first_chunk, 4096, 1u << 20, false, NULL},
    {"REAP_MAX_CHUNK", &rp_opt.max_chunk, 8192, 1u << 28, false, NULL},
    {"REAP_LARGE_THRESHOLD", &rp_opt.large_threshold, 1024, 1u << 24, false, NULL},
    {"REAP_TAIL_KEEP", &rp_opt.tail_keep, RP_MIN_BLOCK, 1u << 20, false, NULL},
    {"REAP_QUICK_LIMIT", &rp_opt.quick_limit, 0, RP_SMALL_LIMIT, false, NULL},
};

static void options_read(void)
{
    rp_base_init(); /* REAP_MISUSE is the base allocator's, and read with it */
    rp_env_read(options, sizeof options / sizeof options[0]);
    /* The first chunk must hold a reap and leave room to bump. */
    if (rp_opt.max_chunk < rp_opt.first_chunk)
        rp_opt.max_chunk = rp_opt.first_chunk;
    if (rp_opt.large_threshold > rp_opt.max_chunk)
        rp_opt.large_threshold = rp_opt.max_chunk;
    rp_trace_init(RP_TRACE_REAPS); /* REAP_TRACE, before the first reap */
}

void rp_options_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, options_read);
}
