/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mod_reap_idle.c - gives an idle child's free memory back to the OS
 * (ReapIdleRelease).
 *
 * libreap's base allocator returns what pools and memnodes gave back once
 * it has stayed free through a short decay, but it runs that clock only
 * when some thread allocates or frees.  A child whose threads all wait for
 * work after a burst runs no clock, so it keeps the burst's empty
 * superblocks and cached large chunks: tens of megabytes per child under
 * HTTP/2 (docs/measurements.md).  So on the reap-backed APR each child runs
 * one more thread, which wakes every ReapIdleRelease interval; when no
 * request ended in the child during a whole interval, and some did since
 * its last release, it calls reap_base_trim() once: the free lists of the
 * allocators of the connection pools the MPM recycled (the reap-backed
 * APR's hook, reap_base_on_trim()), the heaps' and the global heap's empty
 * superblocks and the large-object cache go back to the OS (their pages,
 * with madvise), and so do the caches of the threads waiting for work
 * (parked in apr_thread_cond_wait): their blocks, and the caches
 * themselves, which a thread makes again once it allocates again.  A busy
 * child is never touched, and an idle one pays one trim per burst.
 *
 * What it cannot reach: the cache of a thread that is not waiting (one
 * busy with a long request) and free blocks inside superblocks that still
 * hold live ones, beyond their pages with nothing in them.
 */
#include "httpd.h"
#include "http_log.h"

#include "apr_atomic.h"
#include "apr_thread_cond.h"
#include "apr_thread_mutex.h"
#include "apr_thread_proc.h"

#include <reap.h>

#include "mod_reap_private.h"

APLOG_USE_MODULE(reap);

/* Requests that ended in this child; only compared, so wrapping is fine. */
static apr_uint32_t requests_ended;

typedef struct mr_idle {
    apr_thread_t *thread;
    apr_thread_mutex_t *mutex;
    apr_thread_cond_t *cond;
    apr_interval_time_t interval;
    int stop;                   /* under mutex */
    apr_uint32_t releases;      /* trims done, for the debug log */
} mr_idle_t;

void mr_idle_request_ended(void)
{
    apr_atomic_inc32(&requests_ended);
}

static void *APR_THREAD_FUNC idle_main(apr_thread_t *thread, void *arg)
{
    mr_idle_t *idle = arg;
    apr_uint32_t seen = apr_atomic_read32(&requests_ended);
    apr_uint32_t released_at = seen;

    apr_thread_mutex_lock(idle->mutex);
    while (!idle->stop) {
        apr_thread_cond_timedwait(idle->cond, idle->mutex, idle->interval);
        if (idle->stop)
            break;
        apr_uint32_t now = apr_atomic_read32(&requests_ended);
        if (now == seen && now != released_at) {
            reap_base_trim();
            mr_status_snapshot_now(); /* /reap-status: what stays */
            released_at = now;
            idle->releases++;
        }
        seen = now;
    }
    apr_thread_mutex_unlock(idle->mutex);
    apr_thread_exit(thread, APR_SUCCESS);
    return NULL;
}

static apr_status_t idle_stop(void *arg)
{
    mr_idle_t *idle = arg;
    apr_status_t rv;

    apr_thread_mutex_lock(idle->mutex);
    idle->stop = 1;
    apr_thread_cond_signal(idle->cond);
    apr_thread_mutex_unlock(idle->mutex);
    apr_thread_join(&rv, idle->thread);
    return APR_SUCCESS;
}

void mr_idle_start(apr_pool_t *pchild, server_rec *s, apr_interval_time_t interval)
{
    mr_idle_t *idle = apr_pcalloc(pchild, sizeof *idle);
    apr_status_t rv;

    idle->interval = interval;
    if ((rv = apr_thread_mutex_create(&idle->mutex, APR_THREAD_MUTEX_DEFAULT,
                                      pchild)) != APR_SUCCESS
        || (rv = apr_thread_cond_create(&idle->cond, pchild)) != APR_SUCCESS
        || (rv = apr_thread_create(&idle->thread, NULL, idle_main, idle,
                                   pchild)) != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s,
                     "mod_reap: cannot start the ReapIdleRelease thread; "
                     "idle memory goes back to the OS only when threads "
                     "allocate again");
        return;
    }
    /* A pre-cleanup: it runs before pchild destroys its subpools, the
     * thread's own among them, and before the mutex and cond go. */
    apr_pool_pre_cleanup_register(pchild, idle, idle_stop);
}
