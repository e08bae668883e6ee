/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mod_reap.c - brings reaps to Apache httpd modules: ap_pfree(), a memory
 * limit per request, and the request pool's peak footprint in a note.
 *
 * On the reap-backed APR (apr-patch/) every pool is a reap, and the APR
 * exports apr_pfree() and apr_pool_reap_get(), (since APR_POOL_HAS_WALK)
 * apr_pool_walk() and apr_pool_tag_get(), and (since
 * APR_ALLOCATOR_HAS_LISTS_GET) apr_allocator_lists_get().  This module is
 * built against
 * Debian's stock APR headers and finds those functions at run time
 * (dlsym at post_config), so the same mod_reap.so runs on both APRs: on the
 * stock one ap_pfree() does nothing, ReapRequestLimit cannot bite and the
 * module says so once in the error log.  Other modules reach ap_pfree()
 * through an optional function (mod_reap.h), so they link neither libreap
 * nor the patched APR.  libreap itself (reap_get_stats, reap_set_limit,
 * reap_version) is linked directly: the reap-backed APR links the same
 * libreap.so, and the dynamic loader shares one copy between them.
 * mod_reap_status.c keeps the per-child figures and the pages showing them.
 *
 * Configuration (reap.conf carries the same text):
 *
 *   ReapStatus On|Off           server config, default On.  Collects memory
 *                               figures of every child in shared memory and
 *                               shows them in mod_status's /server-status (a
 *                               section, and Reap* lines in ?auto) and in
 *                               the reap-status handler.  Off: no shared
 *                               memory, no per-request accounting.
 *   ReapPoolWalk On|Off         server config, default On.  Where the list
 *                               of each child's largest pools comes from.
 *                               On: every pool of the child, by walking the
 *                               pool tree from APR's global pool
 *                               (apr_pool_walk; at most MR_WALK_MAX pools
 *                               per snapshot), each named by its APR tag.
 *                               Off, or on an APR without apr_pool_walk:
 *                               only the pools httpd's hooks show (pglobal,
 *                               pconf, pchild, connections' and requests'
 *                               pools).  The JSON says which
 *                               ("pools_source": "walk" or "hooks").
 *   ReapRequestLimit <size>     server config, virtual host, <Directory>,
 *                               <Location>; default 0 (no limit).  Caps the
 *                               footprint of a request's pool (and its
 *                               subpools) while the content handler runs;
 *                               <size> is bytes with an optional k, M or G
 *                               suffix (powers of 1024).  A request that
 *                               passes it is stopped, answered 500 with a
 *                               short explanation (or the ErrorDocument
 *                               500), logged once at level error, and its
 *                               connection is closed; once its response
 *                               has begun, the connection is cut instead.
 *                               Other requests carry on.  Needs the
 *                               reap-backed APR.
 *   ReapMisuse abort|leak       server config, default abort (or what
 *                               REAP_MISUSE says).  A misused pool (double
 *                               free, foreign or interior pointer) is
 *                               logged in one line (mod_reap_misuse.c);
 *                               then abort the child, or leave the object
 *                               to its pool and go on (docs/misuse.md says
 *                               why abort is the default).
 *   ReapIdleRelease <time>|Off  server config, default libreap's (1 s, or
 *                               REAP_IDLE_MS).  On the reap-backed APR,
 *                               how long a child's allocator must see no
 *                               call before libreap's release thread gives
 *                               back all it can; a thin switch onto
 *                               reap_base_idle_release().
 *   SetHandler reap-status      JSON figures of all children, or a small HTML
 *                               page when the client accepts text/html.
 *   request note reap-peak      the request pool's peak footprint in bytes,
 *                               for LogFormat "... %{reap-peak}n".
 *
 * How a passed limit becomes an error response.  When the request's reap
 * refuses an allocation, the patched APR calls the pool's abort function
 * (stock httpd's aborts the whole child).  While the content handler runs,
 * mod_reap's own handler, hooked first, has the request pool's abort
 * function pointed at request_abort() and runs the real handlers inside a
 * setjmp(); request_abort() longjmps back there, the limit is lifted and the
 * request ends with 500.  The jump unwinds only handler and filter frames of
 * this one request, and only at an allocation from its own pool; what it
 * skips is what a handler would have done after that allocation (memory is
 * still the pool's and is released with it).  A handler that holds a lock
 * while allocating from the request pool must not run under a limit.
 * Outside the handler the limit is not set at all, because no frame there
 * can be unwound safely; there the pool keeps httpd's own abort function.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdlib.h>

#include "httpd.h"
#include "http_config.h"
#include "http_connection.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "ap_mpm.h"
#include "mod_core.h"
#include "mod_status.h"
#include "apr_lib.h"
#include "apr_strings.h"
#include "apr_optional.h"

#include "mod_reap.h"
#include "mod_reap_private.h"

module AP_MODULE_DECLARE_DATA reap_module;

/* ---- configuration ------------------------------------------------------------ */

typedef struct mr_dir_conf {
    apr_size_t limit;           /* ReapRequestLimit bytes; 0: none */
    int limit_set;              /* the directive appeared at this level */
} mr_dir_conf;

typedef struct mr_srv_conf {
    int status;                 /* ReapStatus: 1 On, 0 Off, -1 unset (On) */
    int walk;                   /* ReapPoolWalk: 1 On, 0 Off, -1 unset (On) */
    int misuse;                 /* ReapMisuse: MR_MISUSE_* */
    apr_interval_time_t idle_release; /* ReapIdleRelease; -1 unset (libreap's), 0 Off */
} mr_srv_conf;

mr_apr_t mr_apr;

/* Set at post_config from the main server, read-only in children. */
static int status_on = 1;
static int walk_on = 1;

/* Some ReapRequestLimit above 0 appeared; reset at pre_config. */
static int limit_configured;

/* The pools' abort function before mod_reap set its own (httpd's). */
static apr_abortfunc_t httpd_abort_fn;

static void *create_dir_conf(apr_pool_t *p, char *dir)
{
    return apr_pcalloc(p, sizeof(mr_dir_conf));
}

static void *merge_dir_conf(apr_pool_t *p, void *basev, void *addv)
{
    mr_dir_conf *base = basev, *add = addv;
    mr_dir_conf *conf = apr_palloc(p, sizeof *conf);

    *conf = add->limit_set ? *add : *base;
    return conf;
}

static void *create_srv_conf(apr_pool_t *p, server_rec *s)
{
    mr_srv_conf *conf = apr_pcalloc(p, sizeof *conf);

    conf->status = -1;
    conf->walk = -1;
    conf->misuse = MR_MISUSE_UNSET;
    conf->idle_release = -1;
    return conf;
}

/* Parse "<digits>[kKmMgG]" into bytes (powers of 1024).
 * @return NULL, or an error message for the directive. */
static const char *parse_size(apr_pool_t *p, const char *arg, apr_size_t *out)
{
    char *end;
    apr_int64_t n;
    apr_uint64_t unit = 1;

    if (!apr_isdigit(*arg))
        return apr_psprintf(p, "'%s' is not a size (digits, then optional "
                            "k, M or G)", arg);
    errno = 0;
    n = apr_strtoi64(arg, &end, 10);
    switch (*end) {
    case 'k': case 'K': unit = 1024; end++; break;
    case 'm': case 'M': unit = 1024 * 1024; end++; break;
    case 'g': case 'G': unit = 1024 * 1024 * 1024; end++; break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0')
        return apr_psprintf(p, "'%s' is not a size (digits, then optional "
                            "k, M or G)", arg);
    if (errno == ERANGE || n < 0 || (apr_uint64_t)n > APR_SIZE_MAX / unit)
        return apr_psprintf(p, "size '%s' is too large", arg);
    *out = (apr_size_t)((apr_uint64_t)n * unit);
    return NULL;
}

static const char *set_request_limit(cmd_parms *cmd, void *dconf,
                                     const char *arg)
{
    mr_dir_conf *conf = dconf;
    const char *err = parse_size(cmd->pool, arg, &conf->limit);

    if (err)
        return apr_pstrcat(cmd->pool, cmd->cmd->name, ": ", err, NULL);
    conf->limit_set = 1;
    if (conf->limit)
        limit_configured = 1;
    return NULL;
}

static const char *set_status(cmd_parms *cmd, void *dconf, int on)
{
    mr_srv_conf *conf;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    if (err)
        return err;
    conf = ap_get_module_config(cmd->server->module_config, &reap_module);
    conf->status = on;
    return NULL;
}

static const char *set_pool_walk(cmd_parms *cmd, void *dconf, int on)
{
    mr_srv_conf *conf;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    if (err)
        return err;
    conf = ap_get_module_config(cmd->server->module_config, &reap_module);
    conf->walk = on;
    return NULL;
}

static const char *set_misuse(cmd_parms *cmd, void *dconf, const char *arg)
{
    mr_srv_conf *conf;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    if (err)
        return err;
    conf = ap_get_module_config(cmd->server->module_config, &reap_module);
    if (ap_cstr_casecmp(arg, "abort") == 0)
        conf->misuse = MR_MISUSE_ABORT;
    else if (ap_cstr_casecmp(arg, "leak") == 0)
        conf->misuse = MR_MISUSE_LEAK;
    else
        return apr_psprintf(cmd->pool, "%s: '%s' is neither abort nor leak",
                            cmd->cmd->name, arg);
    return NULL;
}

static const char *set_idle_release(cmd_parms *cmd, void *dconf,
                                    const char *arg)
{
    mr_srv_conf *conf;
    apr_interval_time_t t;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    if (err)
        return err;
    conf = ap_get_module_config(cmd->server->module_config, &reap_module);
    if (ap_cstr_casecmp(arg, "off") == 0)
        t = 0;
    else if (ap_timeout_parameter_parse(arg, &t, "s") != APR_SUCCESS || t < 0)
        return apr_psprintf(cmd->pool, "%s: '%s' is neither Off nor a time "
                            "(seconds, or with ms, s, mi or h)",
                            cmd->cmd->name, arg);
    else if (t > 0 && t < apr_time_from_msec(10))
        return apr_psprintf(cmd->pool, "%s: '%s' is below 10 ms",
                            cmd->cmd->name, arg);
    conf->idle_release = t;
    return NULL;
}

static const command_rec reap_cmds[] = {
    AP_INIT_FLAG("ReapStatus", set_status, NULL, RSRC_CONF,
                 "On (default) to collect and show memory figures of every "
                 "child, Off to do neither"),
    AP_INIT_FLAG("ReapPoolWalk", set_pool_walk, NULL, RSRC_CONF,
                 "On (default) to find the largest pools by walking every "
                 "pool (needs apr_pool_walk), Off to list only the pools "
                 "httpd's hooks show"),
    AP_INIT_TAKE1("ReapRequestLimit", set_request_limit, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "largest footprint of one request's pool while its "
                  "handler runs, bytes with optional k/M/G; 0 for none"),
    AP_INIT_TAKE1("ReapMisuse", set_misuse, NULL, RSRC_CONF,
                  "after a misused pool is logged (double free, foreign "
                  "pointer): abort (default) the process, or leak the "
                  "object and go on"),
    AP_INIT_TAKE1("ReapIdleRelease", set_idle_release, NULL, RSRC_CONF,
                  "how long a child's allocator must be quiet before libreap "
                  "gives all its free memory back to the OS (default 1 s; Off)"),
    {NULL}
};

/* ---- ap_pfree for other modules --------------------------------------------------- */

/* Behind ap_pfree() (mod_reap.h); a no-op on a stock APR.  The caller's
 * address names the module in a misuse report.  noinline: the return
 * address must be the module's call site. */
static __attribute__((noinline)) void reap_ap_pfree(apr_pool_t *p, void *mem)
{
    if (mem != NULL && mr_apr.pfree != NULL)
        mr_misuse_pfree(p, mem, __builtin_return_address(0));
}

static int reap_ap_pfree_works(void)
{
    return mr_apr.pfree != NULL;
}

int mr_reap_backed(void)
{
    return mr_apr.pfree != NULL && mr_apr.reap_get != NULL;
}

int mr_pools_walked(void)
{
    return walk_on && mr_reap_backed() && mr_apr.pool_walk != NULL
           && mr_apr.tag_get != NULL;
}

int mr_status_enabled(server_rec *s)
{
    return status_on;
}

/* ---- per-request state ---------------------------------------------------------- */

/* One per request_rec that mod_reap looked at, in r->request_config. */
typedef struct mr_req {
    reap_t *reap;               /* r->pool's reap; NULL on a stock APR */
    int guarded;                /* the limit guard is running for this r */
    int limited;                /* the limit stopped this request */
    int counted;                /* mr_request_done() has seen it */
    void *misuse_token;         /* from mr_misuse_request_begin() */
} mr_req;

static mr_req *req_state(request_rec *r)
{
    mr_req *st = ap_get_module_config(r->request_config, &reap_module);

    if (st == NULL) {
        st = apr_pcalloc(r->pool, sizeof *st);
        st->reap = mr_reap_of(r->pool);
        ap_set_module_config(r->request_config, &reap_module, st);
    }
    return st;
}

/* Put the peak in the reap-peak note and add the request to this child's
 * figures, once per request pool.  Runs from log_transaction (first, so the
 * log sees the note) or, for a request never logged, from the pool's
 * pre-cleanup. */
static void finish_request(request_rec *r)
{
    mr_req *st = req_state(r);
    mr_request_figures_t f = {0};
    reap_stats_t own;

    if (st->counted)
        return;
    st->counted = 1;
    if (st->reap != NULL) {
        const char *peak;

        /* Neither walks the pool's subtree: this runs for every request.
         * The peak is the subtree's (post_read_request made the pool
         * account it); the counts are the request pool's own. */
        reap_get_stats(st->reap, &own);
        f.allocs = own.allocs;
        f.frees = own.frees;
        reap_tree_footprint(st->reap, &f.peak_footprint);
        /* apr_off_t_toa, not apr_psprintf: the formatter cost a static
         * request ~300 instructions */
        peak = apr_off_t_toa(r->pool, (apr_off_t)f.peak_footprint);
        /* every request of an internal-redirect chain: mod_log_config
         * reads the notes of the last */
        for (request_rec *q = r; q != NULL; q = q->next)
            apr_table_setn(q->notes, "reap-peak", peak);
    }
    f.limited = st->limited;
    if (status_on)
        mr_request_done(&f);
}

static apr_status_t request_pool_end(void *data)
{
    request_rec *r = data;

    finish_request(r);
    mr_misuse_request_end(req_state(r)->misuse_token, r);
    return APR_SUCCESS;
}

/* The initial request of an internal-redirect chain owns the pool. */
static request_rec *first_request(request_rec *r)
{
    while (r->prev != NULL)
        r = r->prev;
    return r;
}

static int reap_post_read_request(request_rec *r)
{
    mr_req *st;

    /* httpd runs this hook again for an internal redirect (r->prev set),
     * on the same pool: the first request has set the pool up, and
     * starting over would lift the limit a handler runs under. */
    if (r->main != NULL || r->prev != NULL)
        return DECLINED;
    st = req_state(r);
    if (st->reap != NULL) {
        st->misuse_token = mr_misuse_request_begin(r);
        /* Make the request pool account its whole subtree, so its peak
         * footprint (the reap-peak note) is exact, not a sum of peaks. */
        reap_set_limit(st->reap, 0);
        if (status_on)
            mr_track_pool(r->pool, "request");
    }
    apr_pool_pre_cleanup_register(r->pool, r, request_pool_end);
    return DECLINED;
}

/* Every logged request is counted, also those refused before
 * post_read_request (a malformed request line, say). */
static int reap_log_transaction(request_rec *r)
{
    finish_request(first_request(r));
    return DECLINED;
}

static int reap_pre_connection(conn_rec *c, void *csd)
{
    if (status_on && mr_reap_backed())
        mr_track_pool(c->pool, "transaction");
    return OK;
}

/* ---- ReapRequestLimit: the handler guard ------------------------------------------ */

/* One per running guarded handler on this thread, innermost first. */
typedef struct mr_guard {
    jmp_buf env;
    struct mr_guard *prev;
} mr_guard;

static _Thread_local mr_guard *current_guard;

/* The request pool's abort function while its handler runs under a limit:
 * back to the guard.  Anywhere else (no guard on this thread) it behaves as
 * httpd's own, which is also what real out-of-memory gets. */
static int request_abort(int retcode)
{
    mr_guard *g = current_guard;

    if (g != NULL)
        longjmp(g->env, 1);
    if (httpd_abort_fn != NULL)
        return httpd_abort_fn(retcode);
    return retcode;
}

/* After the jump: lift the limit (answering needs memory), log one line
 * and end the response: a 500 while nothing of it has been sent, else an
 * aborted connection, so that the client sees neither the terminating
 * chunk nor the full length and cannot take the response for complete.
 * When the handler had redirected internally (r->next), the answer is the
 * last request's, as ap_internal_redirect() gives it for its own errors. */
static int limit_passed(request_rec *r, mr_req *st, apr_size_t limit)
{
    request_rec *last = r;
    reap_stats_t ts;

    reap_set_limit(st->reap, 0);
    reap_get_tree_stats(st->reap, &ts);
    st->limited = 1;
    req_state(first_request(r))->limited = 1;   /* it owns the counters */
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                  "mod_reap: request stopped: its pool passed "
                  "ReapRequestLimit %" APR_SIZE_T_FMT " bytes (footprint %"
                  PRIu64 " bytes, %" PRIu64 " allocations refused)",
                  limit, ts.footprint, ts.limit_failures);
    r->connection->keepalive = AP_CONN_CLOSE;
    while (last->next != NULL)
        last = last->next;
    if (last->sent_bodyct) {
        r->connection->aborted = 1;
        return DONE;
    }
    /* An ErrorDocument 500 the administrator configured wins. */
    if (ap_response_code_string(last, ap_index_of_response(
            HTTP_INTERNAL_SERVER_ERROR)) == NULL)
        ap_custom_response(last, HTTP_INTERNAL_SERVER_ERROR, apr_psprintf(
            r->pool, "This request needed more memory than ReapRequestLimit "
            "allows (%" APR_SIZE_T_FMT " bytes) and was stopped.\n", limit));
    if (last != r) {
        ap_die(HTTP_INTERNAL_SERVER_ERROR, last);
        return OK;
    }
    return HTTP_INTERNAL_SERVER_ERROR;
}

/* Run the remaining handlers of @p r with its pool limited to @p limit. */
static int run_guarded(request_rec *r, mr_req *st, apr_size_t limit)
{
    mr_guard g;
    volatile apr_abortfunc_t saved_abort = apr_pool_abort_get(r->pool);
    volatile size_t saved_limit = reap_get_limit(st->reap);
    volatile int rv;

    if (saved_abort != request_abort)
        httpd_abort_fn = saved_abort;
    st->guarded = 1;
    reap_set_limit(st->reap, limit);
    apr_pool_abort_set(request_abort, r->pool);
    g.prev = current_guard;
    if (setjmp(g.env) == 0) {
        current_guard = &g;
        rv = ap_run_handler(r);
        current_guard = g.prev;
    }
    else {
        current_guard = g.prev;
        rv = limit_passed(r, st, limit);
    }
    /* An outer guard (internal redirect from inside a handler) gets its
     * limit back, unless this pool has passed it already: one stop and one
     * log line per request. */
    reap_set_limit(st->reap, req_state(first_request(r))->limited
                   ? 0 : saved_limit);
    apr_pool_abort_set(saved_abort, r->pool);
    st->guarded = 0;
    return rv;
}

/* Hooked really first: for a request under ReapRequestLimit, run the other
 * handlers (this one declines when met again inside) under the guard and
 * return what they returned. */
static int reap_guard_handler(request_rec *r)
{
    mr_dir_conf *conf;
    mr_req *st;

    if (r->main != NULL || !mr_reap_backed())
        return DECLINED;
    conf = ap_get_module_config(r->per_dir_config, &reap_module);
    if (conf == NULL || conf->limit == 0)
        return DECLINED;
    st = req_state(r);
    if (st->guarded || st->reap == NULL)
        return DECLINED;
    /* An ErrorDocument for the 500 of a stopped request runs unlimited:
     * the pool is over the limit already. */
    if (req_state(first_request(r))->limited)
        return DECLINED;
    return run_guarded(r, st, conf->limit);
}

/* ---- start-up ---------------------------------------------------------------------- */

static void find_apr_entry_points(void)
{
    mr_apr.pfree = (void (*)(apr_pool_t *, void *))
        dlsym(RTLD_DEFAULT, "apr_pfree");
    mr_apr.reap_get = (struct reap *(*)(apr_pool_t *))
        dlsym(RTLD_DEFAULT, "apr_pool_reap_get");
    mr_apr.pool_walk = (int (*)(apr_pool_t *, int (*)(apr_pool_t *,
                                unsigned int, void *), void *))
        dlsym(RTLD_DEFAULT, "apr_pool_walk");
    mr_apr.tag_get = (const char *(*)(apr_pool_t *))
        dlsym(RTLD_DEFAULT, "apr_pool_tag_get");
    mr_apr.lists_get = (void (*)(apr_size_t *, apr_size_t *))
        dlsym(RTLD_DEFAULT, "apr_allocator_lists_get");
}

/* Once per httpd process (not per restart): what we run on. */
static void log_startup(apr_pool_t *pconf, server_rec *s)
{
    void *done = NULL;
    const char *key = "mod_reap-startup-logged";

    apr_pool_userdata_get(&done, key, s->process->pool);
    if (done != NULL)
        return;
    apr_pool_userdata_set((void *)1, key, apr_pool_cleanup_null,
                          s->process->pool);
    if (mr_reap_backed()) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s,
                     "mod_reap: libreap %s; APR %s is reap-backed: ap_pfree() "
                     "frees, ReapRequestLimit is enforced; largest pools "
                     "found by %s", reap_version(), apr_version_string(),
                     mr_apr.pool_walk != NULL && mr_apr.tag_get != NULL
                     ? "walking every pool (apr_pool_walk)"
                     : "tracking the pools httpd's hooks show (this APR has "
                       "no apr_pool_walk)");
        return;
    }
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                 "mod_reap: libreap %s; APR %s is NOT reap-backed (no "
                 "apr_pfree/apr_pool_reap_get in the running libapr-1): "
                 "ap_pfree() does nothing%s", reap_version(),
                 apr_version_string(), limit_configured
                 ? " and ReapRequestLimit has no effect" : "");
}

static int reap_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp)
{
    limit_configured = 0;
    return OK;
}

static int reap_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                            apr_pool_t *ptemp, server_rec *s)
{
    mr_srv_conf *conf = ap_get_module_config(s->module_config, &reap_module);

    find_apr_entry_points();
    status_on = conf->status != 0;
    walk_on = conf->walk != 0;
    if (mr_reap_backed())
        mr_misuse_install(pconf, s, conf->misuse);
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    log_startup(pconf, s);
    if (status_on)
        mr_slots_create(pconf, s);
    return OK;
}

static void reap_child_init(apr_pool_t *pchild, server_rec *s)
{
    mr_srv_conf *conf = ap_get_module_config(s->module_config, &reap_module);

    /* The child inherited the handler from the parent; this one lasts as
     * long as the child's own pools, whatever the parent does with pconf. */
    if (mr_reap_backed())
        mr_misuse_install(pchild, s, conf->misuse);
    /* libreap's release thread gives memory back by itself; the
     * directive only sets its quiet interval (0: never a whole trim). */
    if (mr_reap_backed() && conf->idle_release >= 0)
        reap_base_idle_release((unsigned long)apr_time_as_msec(conf->idle_release));
    if (status_on)
        mr_child_attach(pchild, s);
}

static void register_hooks(apr_pool_t *p)
{
    APR_REGISTER_OPTIONAL_FN(reap_ap_pfree);
    APR_REGISTER_OPTIONAL_FN(reap_ap_pfree_works);
    ap_hook_pre_config(reap_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(reap_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(reap_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_pre_connection(reap_pre_connection, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_read_request(reap_post_read_request, NULL, NULL,
                              APR_HOOK_REALLY_FIRST);
    ap_hook_handler(reap_guard_handler, NULL, NULL, APR_HOOK_REALLY_FIRST);
    ap_hook_handler(mr_status_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_log_transaction(reap_log_transaction, NULL, NULL,
                            APR_HOOK_REALLY_FIRST);
    APR_OPTIONAL_HOOK(ap, status_hook, mr_status_hook, NULL, NULL,
                      APR_HOOK_MIDDLE);
}

AP_DECLARE_MODULE(reap) = {
    STANDARD20_MODULE_STUFF,
    create_dir_conf,            /* per-directory config */
    merge_dir_conf,             /* merge per-directory config */
    create_srv_conf,            /* per-server config */
    NULL,                       /* merge per-server config: ReapStatus is global */
    reap_cmds,                  /* directives */
    register_hooks,             /* hooks */
    AP_MODULE_FLAG_NONE         /* flags */
};
