/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * hoard_options.c - the base allocator's tunables, in one table.
 *
 * Every number the Hoard-style allocator's behaviour depends on lives here
 * with its default, overridable from the environment (REAP_SUPERBLOCK=256k,
 * sizes accept k, m and g suffixes).  rp_hd_options_init() reads them once,
 * from rp_hd_init(), before any superblock exists; it must not allocate,
 * since it may run inside the first malloc of a program.  Malformed or
 * out-of-range values keep the default and are reported on stderr.
 */
#include "../util/env.h"
#include "../util/misuse.h"
#include "hoard.h"

rp_hd_options_t rp_hd_opt = {
    .sb_size = 64u << 10,       /* measured against 256 KiB: see README */
    .empty_pct = 25,            /* f = 1/4, the paper's value */
    .k_slack = 1,               /* K: the paper had 4 superblocks of 8 KiB, S is 64 KiB */
    .heap_slack = 4u << 20,     /* per heap: see heap.c, rp_hd_heap_balance */
    .heaps = 0,                 /* 2 * CPUs, at least 4 */
    .retain_bytes = 4u << 20,   /* empty superblocks kept before munmap */
    .retain_max = 64u << 20,    /* beyond this, empties go back at once */
    .decay_ms = 50,             /* other empties go back after 50-100 ms */
    .tcache_bytes = 8u << 10,   /* per thread and class */
    .tcache_after = RP_HD_TCACHE_AFTER, /* calls before a thread gets a cache */
    .outbox_bytes = 16u << 10,  /* remote frees batched per thread */
    .tcache_grow = 2u << 20,    /* per thread: see README, "Bins that grow" */
    .tcache_grow_total = 2u << 20, /* per process: see README, "Bins that grow" */
    .large_cache = 32u << 20,   /* freed large mappings kept (at most 128) */
    .batch = 8,                 /* superblocks carved at once (space.c) */
    .release = 1,               /* the release thread (release.c) */
    .idle_ms = 1000,            /* quiet before it trims all */
};

static const char *const release_words[] = {"off", "on", NULL};

static const rp_env_option_t options[] = {
    {"REAP_SUPERBLOCK", &rp_hd_opt.sb_size, 16u << 10, RP_HD_MAX_SB, true, NULL}, /* found by masking */
    {"REAP_EMPTY_PCT", &rp_hd_opt.empty_pct, 1, 99, false, NULL},
    {"REAP_K", &rp_hd_opt.k_slack, 0, 1024, false, NULL},
    {"REAP_HEAP_SLACK", &rp_hd_opt.heap_slack, 0, (size_t)1 << 40, false, NULL},
    {"REAP_HEAPS", &rp_hd_opt.heaps, 0, RP_HD_MAX_HEAPS, false, NULL},
    {"REAP_RETAIN", &rp_hd_opt.retain_bytes, 0, (size_t)1 << 40, false, NULL},
    {"REAP_RETAIN_MAX", &rp_hd_opt.retain_max, 0, (size_t)1 << 40, false, NULL},
    {"REAP_DECAY_MS", &rp_hd_opt.decay_ms, 0, 3600000, false, NULL},
    {"REAP_TCACHE", &rp_hd_opt.tcache_bytes, 0, 1u << 20, false, NULL},
    {"REAP_TCACHE_AFTER", &rp_hd_opt.tcache_after, 0, 1u << 30, false, NULL},
    {"REAP_OUTBOX", &rp_hd_opt.outbox_bytes, 0, 1u << 20, false, NULL},
    {"REAP_TCACHE_GROW", &rp_hd_opt.tcache_grow, 0, 1u << 30, false, NULL},
    {"REAP_TCACHE_GROW_TOTAL", &rp_hd_opt.tcache_grow_total, 0, (size_t)1 << 40, false, NULL},
    {"REAP_LARGE_CACHE", &rp_hd_opt.large_cache, 0, (size_t)1 << 40, false, NULL},
    {"REAP_SB_BATCH", &rp_hd_opt.batch, 1, 256, false, NULL},
    {"REAP_RELEASE", &rp_hd_opt.release, 0, 1, false, release_words},
    {"REAP_IDLE_MS", &rp_hd_opt.idle_ms, 0, 3600000, false, NULL},
    /* both layers' reports (util/misuse.h): here, as every misuse is of
     * memory the base allocator handed out */
    {"REAP_MISUSE", &rp_misuse_mode, 0, 1, false, rp_misuse_words},
};

void rp_hd_options_init(void)
{
    rp_env_read(options, sizeof options / sizeof options[0]);
    if (rp_hd_opt.retain_max < rp_hd_opt.retain_bytes)
        rp_hd_opt.retain_max = rp_hd_opt.retain_bytes;
}
