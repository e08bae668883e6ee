/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mod_reap_private.h - what mod_reap.c (the module: directives, ap_pfree,
 * request limits), mod_reap_status.c (per-child figures in shared memory
 * and the pages that show them) and mod_reap_misuse.c (misuse reports in
 * the error log) share.  Nothing here is for other modules;
 * they use mod_reap.h.
 *
 * Names: mr_ for what crosses the two files (hidden from the dynamic symbol
 * table), static for the rest.  Error convention: functions called from
 * httpd hooks return apr_status_t or an HTTP status; the others cannot fail.
 */
#ifndef MOD_REAP_PRIVATE_H
#define MOD_REAP_PRIVATE_H

#include <stdint.h>

#include "httpd.h"
#include "http_config.h"
#include "apr_pools.h"

#include "reap.h"

#define MR_HIDDEN __attribute__((visibility("hidden")))

/* ---- tunables (the one place for them) -------------------------------------- */

/** A child rewrites its snapshot (process tree and top pools) at most this
 *  often from request ends; the child answering a status request always
 *  refreshes its own first. */
#define MR_REFRESH_INTERVAL apr_time_from_msec(500)

/** Pools listed per child, largest footprint first. */
#define MR_TOP_POOLS 12

/** Most pools one snapshot visits when it walks the pool tree
 *  (apr_pool_walk); the walk stops there and the snapshot says so.  The
 *  walk briefly holds the pool tree's locks, so this bounds the time other
 *  threads of the child may wait to create or destroy a pool. */
#define MR_WALK_MAX 10000

/** Depth of the pool tree down to which an untagged pool is named after
 *  its nearest tagged ancestor exactly; deeper ones use an ancestor at most
 *  this deep. */
#define MR_WALK_DEPTH 32

/** Live pools a child tracks for the top list: per worker thread one
 *  connection and one request pool, plus this many spare. */
#define MR_TRACK_SPARE 16

/** Longest pool tag kept in shared memory (longer ones are cut). */
#define MR_TAG_MAX 32

/* ---- the reap-backed APR, found at run time ------------------------------------- */

/** Entry points of the reap-backed APR, looked up with dlsym at post_config;
 *  all NULL on a stock APR (pool_walk and tag_get also on a reap-backed APR
 *  older than APR_POOL_HAS_WALK, lists_get older than
 *  APR_ALLOCATOR_HAS_LISTS_GET).  Written once before any child starts. */
typedef struct mr_apr {
    void (*pfree)(apr_pool_t *pool, void *mem);
    struct reap *(*reap_get)(apr_pool_t *pool);
    int (*pool_walk)(apr_pool_t *root,
                     int (*fn)(apr_pool_t *pool, unsigned int depth,
                               void *data),
                     void *data);
    const char *(*tag_get)(apr_pool_t *pool);
    void (*lists_get)(apr_size_t *bytes, apr_size_t *parked);
} mr_apr_t;

extern mr_apr_t mr_apr MR_HIDDEN;

/** @return the reap behind @p p, or NULL on a stock APR. */
static inline reap_t *mr_reap_of(apr_pool_t *p)
{
    return mr_apr.reap_get ? mr_apr.reap_get(p) : NULL;
}

/* ---- per-child figures ---------------------------------------------------------------- */

/* Counters a child adds to as requests finish; each field is updated with
 * atomic adds by the child's threads and read atomically by any process. */
#define MR_REQ_FIELDS(X)                                                      \
    X(count, "requests finished")                                          \
    X(limited, "requests stopped by ReapRequestLimit")                        \
    X(allocs, "allocations from request pools (not their subpools)")          \
    X(frees, "single-object frees in request pools (ap_pfree; not subpools)") \
    X(peak_sum, "sum of the request pools' peak footprints, bytes")           \
    X(peak_max, "largest request pool peak footprint, bytes")

typedef struct mr_req_counters {
#define MR_DECLARE_(name, doc) uint64_t name;
    MR_REQ_FIELDS(MR_DECLARE_)
#undef MR_DECLARE_
} mr_req_counters_t;

/** What one request pool did, handed to mr_request_done(). */
typedef struct mr_request_figures {
    uint64_t allocs, frees, peak_footprint;
    int limited;                /* stopped by ReapRequestLimit */
} mr_request_figures_t;

/** Create the shared slots (one per possible child) in the parent at
 *  post_config; they live as long as @p pconf.  @return APR_SUCCESS or the
 *  shared memory error (then figures are shown for no child). */
MR_HIDDEN apr_status_t mr_slots_create(apr_pool_t *pconf, server_rec *s);

/** Claim this child's slot and set up pool tracking; call at child_init. */
MR_HIDDEN void mr_child_attach(apr_pool_t *pchild, server_rec *s);

/** Track @p p (tagged @p tag, a string that outlives it) for the top-pools
 *  list until its pre-cleanups run.  No-op when not reap-backed, and when
 *  the top list comes from walking the pool tree (mr_pools_walked()). */
MR_HIDDEN void mr_track_pool(apr_pool_t *p, const char *tag);

/** Add one finished request to this child's counters. */
MR_HIDDEN void mr_request_done(const mr_request_figures_t *f);

/** mod_status hook: a section in /server-status, Key: value lines in ?auto. */
MR_HIDDEN int mr_status_hook(request_rec *r, int flags);

/** Handler for "reap-status": JSON, or HTML when the client accepts it. */
MR_HIDDEN int mr_status_handler(request_rec *r);

/* ---- misuse reports (mod_reap_misuse.c) ----------------------------------------- */

/** ReapMisuse: what follows a reported misuse. */
enum { MR_MISUSE_UNSET = -1, MR_MISUSE_ABORT = 0, MR_MISUSE_LEAK = 1 };

/** Report misuses of pools in the error log through @p s until @p p is
 *  cleared; @p action is ReapMisuse (MR_MISUSE_UNSET: as REAP_MISUSE says). */
MR_HIDDEN void mr_misuse_install(apr_pool_t *p, server_rec *s, int action);

/** This thread now serves @p r (a main request).  @return the token for
 *  mr_misuse_request_end(), or NULL. */
MR_HIDDEN void *mr_misuse_request_begin(request_rec *r);

/** @p r has ended (its pool's pre-cleanup, on any thread). */
MR_HIDDEN void mr_misuse_request_end(void *token, request_rec *r);

/** apr_pfree(@p p, @p mem) on behalf of code at @p caller (named in a
 *  misuse report). */
MR_HIDDEN void mr_misuse_pfree(apr_pool_t *p, void *mem, const void *caller);

/** The module's own state for both files (see mod_reap.c). */
MR_HIDDEN int mr_reap_backed(void);

/** The top-pools list walks every pool (the APR has apr_pool_walk and
 *  ReapPoolWalk is On); otherwise it shows the pools tracked through hooks. */
MR_HIDDEN int mr_pools_walked(void);
MR_HIDDEN int mr_status_enabled(server_rec *s);

#endif /* MOD_REAP_PRIVATE_H */
