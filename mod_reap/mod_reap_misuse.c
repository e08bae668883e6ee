/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mod_reap_misuse.c - a misused pool reported in httpd's error log.
 *
 * libreap finds a double free, a pointer the pool did not hand out (another
 * pool's, malloc's, one inside an object), and a corrupted block, before
 * it changes anything.  Without a handler it writes one line to stderr and
 * aborts; under a daemonized httpd that line lands in the error log without
 * httpd's time stamp and names nothing an operator knows.  mod_reap
 * installs a misuse handler (reap_set_misuse_handler) in the parent at
 * post_config, which the children inherit and child_init confirms, and it
 * writes one line through ap_log_error:
 *
 *   [reap:crit] ... mod_reap: double free of 0x7f3a2c01c0f0 in pool
 *   "request" (0x7f3a2c01b028) by .../mod_foo.so+0x1a2c (ap_pfree) during
 *   "GET /foo?x=1" (handler foo); aborting the child (ReapMisuse abort)
 *
 * The pool is named by its tag, or an untagged one by its nearest tagged
 * ancestor ("untagged pool 0x... under \"request\"").  The request is the
 * one this thread is serving, named when the misused pool belongs to its
 * connection (the request pool, its subpools, the connection's pool); the
 * caller is the address ap_pfree() was called from, as a file and offset
 * for addr2line, when the misuse came through ap_pfree().
 *
 * What follows is ReapMisuse: abort (the default) or leak.  See the
 * directive in mod_reap.c for why abort is the default.
 *
 * What the handler may do is narrow (reap.h): it runs inside the reap call
 * that found the misuse, so it allocates from no pool; the line is built
 * in a buffer on the stack and logged without a request_rec, so that no
 * ErrorLogFormat item allocates from the request's pool.
 *
 * Which request a thread serves.  post_read_request records the request in
 * a slot of its thread, together with its connection's pool; the request
 * pool's pre-cleanup empties the slot, from whatever thread destroys the
 * pool (the event MPM may finish a request on another thread).  Slots are
 * malloc'ed once per thread and never freed, so a late cleanup never
 * writes into a thread's freed TLS.  The handler reads the request only
 * after it has found the slot's connection pool among the misused pool's
 * ancestors: this thread is then inside that connection, which no other
 * thread can be finishing, so the request is alive.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <stdlib.h>

#include "httpd.h"
#include "http_log.h"
#include "apr_strings.h"

#include "mod_reap_private.h"

APLOG_USE_MODULE(reap);

/* One per thread that served a request; see above. */
typedef struct mr_slot {
    request_rec *r;             /* atomic: the request, NULL between them */
    apr_pool_t *conn_pool;      /* its connection's pool, read only after r */
} mr_slot;

static _Thread_local mr_slot *thread_slot;

/* Where ap_pfree() was called from, while mod_reap's entry point runs. */
static _Thread_local const void *pfree_caller;

/* Set while the handler is installed; read by the handler only. */
static server_rec *log_server;
static int misuse_action = MR_MISUSE_UNSET;

/* ---- the thread's request ------------------------------------------------------- */

void *mr_misuse_request_begin(request_rec *r)
{
    mr_slot *slot = thread_slot;

    if (slot == NULL) {
        /* never freed: see above (one per thread, ThreadLimit in all) */
        slot = calloc(1, sizeof *slot);
        if (slot == NULL)
            return NULL;
        thread_slot = slot;
    }
    slot->conn_pool = r->connection->pool;
    __atomic_store_n(&slot->r, r, __ATOMIC_RELEASE);
    return slot;
}

void mr_misuse_request_end(void *slotv, request_rec *r)
{
    mr_slot *slot = slotv;
    request_rec *expected = r;

    if (slot != NULL)
        __atomic_compare_exchange_n(&slot->r, &expected, NULL, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void mr_misuse_pfree(apr_pool_t *p, void *mem, const void *caller)
{
    pfree_caller = caller;
    mr_apr.pfree(p, mem);
    pfree_caller = NULL;
}

/* ---- the report ------------------------------------------------------------------ */

/* The APR pool in @p reap's user area, or NULL when @p reap is no pool's
 * (a reap a module made with libreap itself). */
static apr_pool_t *pool_of(reap_t *reap)
{
    apr_pool_t *pool;

    if (reap == NULL || mr_apr.reap_get == NULL)
        return NULL;
    pool = reap_user_area(reap);
    return pool != NULL && mr_apr.reap_get(pool) == reap ? pool : NULL;
}

static const char *tag_of(apr_pool_t *pool)
{
    return mr_apr.tag_get != NULL ? mr_apr.tag_get(pool) : NULL;
}

/* @p pool is @p ancestor or below it. */
static int pool_under(apr_pool_t *pool, const apr_pool_t *ancestor)
{
    for (; pool != NULL; pool = apr_pool_parent_get(pool))
        if (pool == ancestor)
            return 1;
    return 0;
}

/* "pool \"tag\" (0x...)", "untagged pool 0x... under \"tag\"", and so on. */
static void describe_pool(char *buf, apr_size_t len, reap_t *reap,
                          apr_pool_t *pool)
{
    const char *tag;
    apr_pool_t *up;

    if (pool == NULL) {
        apr_snprintf(buf, len, "reap 0x%pp (not an APR pool's)", (void *)reap);
        return;
    }
    if ((tag = tag_of(pool)) != NULL) {
        apr_snprintf(buf, len, "pool \"%.64s\" (0x%pp)", tag, (void *)pool);
        return;
    }
    for (up = apr_pool_parent_get(pool); up != NULL;
         up = apr_pool_parent_get(up))
        if ((tag = tag_of(up)) != NULL)
            break;
    apr_snprintf(buf, len, "untagged pool 0x%pp under \"%.64s\"", (void *)pool,
                 tag != NULL ? tag : "(no tagged ancestor)");
}

/* " during \"GET /uri\" (handler h)" when this thread serves a request of
 * @p pool's connection, else "". */
static void describe_request(char *buf, apr_size_t len, apr_pool_t *pool)
{
    mr_slot *slot = thread_slot;
    request_rec *r;

    buf[0] = '\0';
    if (slot == NULL || pool == NULL)
        return;
    r = __atomic_load_n(&slot->r, __ATOMIC_ACQUIRE);
    if (r == NULL || !pool_under(pool, slot->conn_pool))
        return;
    apr_snprintf(buf, len, " during \"%.16s %.200s\" (handler %.64s)",
                 r->method ? r->method : "-",
                 r->unparsed_uri ? r->unparsed_uri : "-",
                 r->handler ? r->handler : "none");
}

/* " by /path/mod_x.so+0x1234 (ap_pfree)" for a misuse through ap_pfree(). */
static void describe_caller(char *buf, apr_size_t len)
{
    const void *caller = pfree_caller;
    Dl_info info;

    buf[0] = '\0';
    if (caller == NULL)
        return;
    if (dladdr(caller, &info) && info.dli_fname != NULL)
        apr_snprintf(buf, len, " by %.200s+0x%lx (ap_pfree)", info.dli_fname,
                     (unsigned long)((const char *)caller
                                     - (const char *)info.dli_fbase));
    else
        apr_snprintf(buf, len, " by code at 0x%pp (ap_pfree)", caller);
}

static int report(const reap_misuse_t *m, void *arg)
{
    char pool_text[160], req_text[320], caller_text[260];
    apr_pool_t *pool = pool_of(m->reap);
    int leak = misuse_action == MR_MISUSE_UNSET
               ? m->action == REAP_MISUSE_LEAK : misuse_action == MR_MISUSE_LEAK;

    if (m->kind == REAP_MISUSE_CORRUPTION)
        leak = 0;               /* libreap aborts whatever we say */
    if (m->kind == REAP_MISUSE_NULL_REAP)
        apr_snprintf(pool_text, sizeof pool_text, "no pool");
    else
        describe_pool(pool_text, sizeof pool_text, m->reap, pool);
    describe_request(req_text, sizeof req_text, pool);
    describe_caller(caller_text, sizeof caller_text);
    ap_log_error(APLOG_MARK, leak ? APLOG_ERR : APLOG_CRIT, 0, log_server,
                 "mod_reap: %s 0x%pp in %s%s%s; %s", m->what, m->ptr,
                 pool_text, caller_text, req_text,
                 leak ? "the object is left to its pool (ReapMisuse leak)"
                      : m->kind == REAP_MISUSE_CORRUPTION
                      ? "aborting the process (heap corruption)"
                      : "aborting the process (ReapMisuse abort)");
    return leak ? REAP_MISUSE_LEAK : REAP_MISUSE_ABORT;
}

/* ---- installing it ----------------------------------------------------------------- */

static apr_status_t uninstall(void *data)
{
    reap_set_misuse_handler(NULL, NULL);
    log_server = NULL;
    return APR_SUCCESS;
}

void mr_misuse_install(apr_pool_t *p, server_rec *s, int action)
{
    log_server = s;
    misuse_action = action;
    reap_set_misuse_handler(report, NULL);
    /* mod_reap.so may be unloaded with @p p (a restart): libreap, which
     * stays, must not call into it then */
    apr_pool_cleanup_register(p, NULL, uninstall, apr_pool_cleanup_null);
}
