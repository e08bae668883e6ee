/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * base.h - the base allocator interface: where reaps get their memory.
 *
 * Reaps never call mmap or malloc themselves: every chunk and every large
 * object comes from rp_base_alloc() and goes back through rp_base_free().
 * The Hoard-style allocator of this folder implements it (hoard.c and
 * hoard_stats.c, chosen by RP_BASE_SOURCES in local.mk), so another
 * backing would be a change of that one list.
 *
 * Contract:
 *   - rp_base_alloc(size) returns size bytes aligned to RP_BASE_ALIGN, or
 *     NULL (errno ENOMEM).  It is thread-safe.  The memory is not zeroed.
 *   - rp_base_free(p, size) takes back a block from rp_base_alloc with the
 *     same size; any thread may free any block.
 *   - rp_base_usable(size) is the size rp_base_alloc really reserves for a
 *     request of size (>= size); callers may use all of it and must pass the
 *     same size they asked for to rp_base_free().
 *   - rp_base_trim() calls the hook set with rp_base_on_trim() (a cache in
 *     front of the allocator hands back what nobody uses), then gives back
 *     what the calling thread caches and what the allocator holds empty;
 *     after it, in_use counts only blocks handed out.  The allocator's
 *     release thread calls it by itself once the process falls quiet for
 *     rp_base_idle_release() ms (release.c).
 *   - rp_base_wait_begin()/_end() bracket a wait for work, during which
 *     rp_base_trim() in another thread may flush the caller's cache.
 *   - rp_base_block_of(p, &size) returns the start of the block holding p
 *     (any byte of it) and its usable size, or NULL when p is in no
 *     block the allocator keeps; any pointer may be asked, it reads no
 *     memory the allocator does not own.  A free block is found too: the
 *     caller tells its own blocks by their contents.
 *   - rp_base_get_stats() fills a snapshot of the figures below
 *     (reap_get_base_stats() hands them to the program).
 */
#ifndef RP_BASE_H
#define RP_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "reap.h"

#define RP_BASE_ALIGN 64

/* The public figures (REAP_BASE_STATS_FIELDS in reap.h); a backing leaves
 * at zero what it does not have. */
typedef reap_base_stats_t rp_base_stats_t;

/* Read the base allocator's tunables (REAP_MISUSE among them) and set it
 * up, once; every other call does this too. */
void rp_base_init(void);
void *rp_base_alloc(size_t size);
void rp_base_free(void *p, size_t size);
size_t rp_base_usable(size_t size);
void *rp_base_block_of(const void *p, size_t *size);
void rp_base_get_stats(rp_base_stats_t *out);
void rp_base_trim(void);
void rp_base_on_trim(void (*fn)(void *arg), void *arg);
void rp_base_idle_release(size_t ms);
void rp_base_wait_begin(void);
void rp_base_wait_end(void);

#endif /* RP_BASE_H */
