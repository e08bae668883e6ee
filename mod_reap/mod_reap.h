/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mod_reap.h - ap_pfree() for httpd modules, through mod_reap.
 *
 * A module that includes this header can free single objects of a pool with
 * ap_pfree(pool, mem).  When httpd runs on the reap-backed APR (apr-patch/)
 * and mod_reap is loaded, the object goes back to the pool's reap and later
 * allocations from that pool reuse its space; on Debian's stock APR, or
 * without mod_reap, ap_pfree() does nothing and the object lives until the
 * pool is cleared, exactly as pool memory always has.  So one module binary
 * runs everywhere, and it needs neither libreap nor the patched APR at link
 * time: the call goes through an APR optional function that mod_reap
 * registers, looked up by name on first use.
 *
 * Rules for callers:
 * - Free only objects that came from apr_palloc()/apr_pcalloc() (or the
 *   string functions) of that same pool, once each, and never touch them
 *   again; on the reap-backed APR a wrong pointer or a double free is caught
 *   and logged with the pointer, the pool, the request and the calling
 *   module's file, and the child aborts (ReapMisuse abort, the default); on
 *   stock APR it goes unnoticed.
 * - ap_pfree(p, NULL) does nothing.
 * - Call it from request time on (post_config and later).  A module linked
 *   statically into httpd (not a DSO) should call ap_pfree_retrieve() from
 *   its optional_fn_retrieve hook so a restart that reloads mod_reap at
 *   another address refreshes the cached entry point; DSO modules are
 *   reloaded together with mod_reap and need not care.
 * - Thread-safe: the cached entry point is read and written atomically.
 */
#ifndef MOD_REAP_H
#define MOD_REAP_H

#include "apr_pools.h"
#include "apr_optional.h"

#ifdef __cplusplus
extern "C" {
#endif

/** mod_reap's entry point behind ap_pfree(). */
APR_DECLARE_OPTIONAL_FN(void, reap_ap_pfree, (apr_pool_t *p, void *mem));

/** mod_reap's answer to "does ap_pfree() really free?": 1 on the reap-backed
 *  APR, 0 on stock APR. */
APR_DECLARE_OPTIONAL_FN(int, reap_ap_pfree_works, (void));

/* Stands in for reap_ap_pfree when mod_reap is not loaded. */
static APR_INLINE void ap_pfree_noop_(apr_pool_t *p, void *mem)
{
    (void)p;
    (void)mem;
}

/* Per translation unit: NULL until the first lookup. */
static APR_OPTIONAL_FN_TYPE(reap_ap_pfree) *ap_pfree_fn_;

/**
 * Look mod_reap's entry point up again (see the rules above).
 * @return 1 when mod_reap is loaded, else 0 (ap_pfree() is then a no-op).
 */
static APR_INLINE int ap_pfree_retrieve(void)
{
    APR_OPTIONAL_FN_TYPE(reap_ap_pfree) *fn;

    fn = APR_RETRIEVE_OPTIONAL_FN(reap_ap_pfree);
    __atomic_store_n(&ap_pfree_fn_, fn ? fn : ap_pfree_noop_,
                     __ATOMIC_RELEASE);
    return fn != NULL;
}

/**
 * Free @p mem, an object of @p p, when the running APR is reap-backed;
 * otherwise do nothing.  @p mem NULL does nothing.
 */
static APR_INLINE void ap_pfree(apr_pool_t *p, void *mem)
{
    APR_OPTIONAL_FN_TYPE(reap_ap_pfree) *fn;

    fn = __atomic_load_n(&ap_pfree_fn_, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        ap_pfree_retrieve();
        fn = __atomic_load_n(&ap_pfree_fn_, __ATOMIC_ACQUIRE);
    }
    fn(p, mem);
}

/** @return 1 when ap_pfree() really frees (mod_reap loaded on the
 *          reap-backed APR), else 0. */
static APR_INLINE int ap_pfree_works(void)
{
    APR_OPTIONAL_FN_TYPE(reap_ap_pfree_works) *fn;

    fn = APR_RETRIEVE_OPTIONAL_FN(reap_ap_pfree_works);
    return fn ? fn() : 0;
}

#ifdef __cplusplus
}
#endif
#endif /* MOD_REAP_H */
