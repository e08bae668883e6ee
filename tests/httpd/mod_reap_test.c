/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mod_reap_test.c - a test module for mod_reap: allocates and frees known
 * amounts from the request pool, so the tests in tests/httpd/ can check
 * mod_reap's figures (JSON, ?auto, the reap-peak note) and its request limit
 * against what was really done.  It uses only mod_reap.h, as any module
 * would, and links neither libreap nor the patched APR.
 *
 *   SetHandler reap-test      ?n=<count>&size=<bytes>&free=<count>&mode=batch|loop
 *       batch: allocate n objects of size bytes, then ap_pfree the first
 *              `free` of them;
 *       loop:  allocate and, for the first `free` iterations, ap_pfree each
 *              object at once (so a reap reuses one block throughout).
 *   SetHandler reap-test-hog  ?total=<bytes>&size=<bytes>&flush=<bytes>&length=<bytes>&hold=<ms>
 *       allocate `total` bytes in pieces of `size` (default 64 KiB) and free
 *       nothing: the request that passes ReapRequestLimit; with hold, keep
 *       them that many milliseconds before answering.  With flush, it
 *       first sends that many bytes of body (a line "reap-test hog begins",
 *       then dots) and flushes them, so the response has begun; with
 *       length, it announces that Content-Length first (a test sets it
 *       above flush, for a response that is cut short).
 *   SetHandler reap-test-redirect  ?to=<local URI, query and all>
 *       ap_internal_redirect() to it.
 *   SetHandler reap-test-subreq    ?to=<local URI, query and all>
 *       run it as a subrequest, its output in this response.
 *   SetHandler reap-test-misuse  ?kind=double|double-sub|foreign|interior
 *       misuse ap_pfree on purpose, after a notice line naming the pointer
 *       and the pool: free an object of the request pool twice (double), the
 *       same in an untagged subpool of it (double-sub), free into the
 *       request pool an object of another pool (foreign), or a pointer 32
 *       bytes inside an object (interior).  If the process lives on
 *       (ReapMisuse leak, or stock APR) the answer is 200.
 * Every object is written to, so the memory is really used.  Bad arguments
 * get 400 and a log line saying which.  The body says what was done and
 * whether ap_pfree() really frees here.
 *
 * At child init it also makes a subpool of pchild tagged KEEP_TAG and
 * allocates KEEP_BYTES in it, kept until the child exits, with an untagged
 * subpool of its own holding KEEP_SUB_BYTES: mod_reap's top-pools list,
 * which walks every pool, must show them ("reap-test-keep" and
 * "reap-test-keep/sub") although no hook of httpd ever sees them.  With
 * "ReapTestChildInitMisuse On" it also frees one object of that untagged
 * subpool twice, at child init, where no request is current.
 */
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "apr_lib.h"
#include "apr_strings.h"

#include "mod_reap.h"

module AP_MODULE_DECLARE_DATA reap_test_module;

/* The long-lived pools (see above); the test script knows these figures. */
#define KEEP_TAG "reap-test-keep"
#define KEEP_BYTES (3 * 1024 * 1024)
#define KEEP_SUB_BYTES (2 * 1024 * 1024)
#define KEEP_PIECE (64 * 1024)

#define MAX_COUNT APR_INT64_C(10000000)
#define MAX_SIZE APR_INT64_C(67108864)
#define MAX_TOTAL APR_INT64_C(1073741824)
#define MAX_HOLD_MS APR_INT64_C(60000)

typedef struct test_args {
    apr_int64_t n, size, nfree, total, flush, length, hold;
    int loop;
} test_args;

/* @return 1 and set *out when @p val is a whole number in [0, max]. */
static int parse_num(const char *val, apr_int64_t max, apr_int64_t *out)
{
    char *end;
    apr_int64_t v;

    if (!apr_isdigit(*val))
        return 0;
    v = apr_strtoi64(val, &end, 10);
    if (*end != '\0' || v < 0 || v > max)
        return 0;
    *out = v;
    return 1;
}

/* One key=value pair of the query string into @p a.
 * @return NULL, or the pair that is not understood. */
static const char *parse_pair(char *pair, test_args *a)
{
    char *val = strchr(pair, '=');
    int ok;

    if (val == NULL)
        return pair;
    *val++ = '\0';
    if (strcmp(pair, "n") == 0)
        ok = parse_num(val, MAX_COUNT, &a->n);
    else if (strcmp(pair, "size") == 0)
        ok = parse_num(val, MAX_SIZE, &a->size) && a->size > 0;
    else if (strcmp(pair, "free") == 0)
        ok = parse_num(val, MAX_COUNT, &a->nfree);
    else if (strcmp(pair, "total") == 0)
        ok = parse_num(val, MAX_TOTAL, &a->total);
    else if (strcmp(pair, "flush") == 0)
        ok = parse_num(val, MAX_SIZE, &a->flush);
    else if (strcmp(pair, "hold") == 0)
        ok = parse_num(val, MAX_HOLD_MS, &a->hold);
    else if (strcmp(pair, "length") == 0)
        ok = parse_num(val, MAX_TOTAL, &a->length);
    else if (strcmp(pair, "mode") == 0)
        ok = (a->loop = strcmp(val, "loop") == 0) || strcmp(val, "batch") == 0;
    else
        ok = 0;
    return ok ? NULL : pair;
}

static const char *parse_args(request_rec *r, test_args *a)
{
    char *state, *pair, *args;

    a->n = 0;
    a->size = 64 * 1024;
    a->nfree = 0;
    a->total = 0;
    a->flush = 0;
    a->hold = 0;
    a->length = 0;
    a->loop = 0;
    if (r->args == NULL)
        return NULL;
    args = apr_pstrdup(r->pool, r->args);
    for (pair = apr_strtok(args, "&", &state); pair != NULL;
         pair = apr_strtok(NULL, "&", &state)) {
        const char *bad = parse_pair(pair, a);
        if (bad != NULL)
            return bad;
    }
    if (a->nfree > a->n)
        return "free (more than n)";
    return NULL;
}

static void *use(apr_pool_t *p, apr_int64_t size)
{
    void *mem = apr_palloc(p, (apr_size_t)size);

    memset(mem, 0xa5, (apr_size_t)size);
    return mem;
}

static void run_batch(request_rec *r, const test_args *a)
{
    void **objs = apr_palloc(r->pool, (apr_size_t)(a->n + 1) * sizeof *objs);

    for (apr_int64_t i = 0; i < a->n; i++)
        objs[i] = use(r->pool, a->size);
    for (apr_int64_t i = 0; i < a->nfree; i++)
        ap_pfree(r->pool, objs[i]);
    ap_pfree(r->pool, objs);
}

static void run_loop(request_rec *r, const test_args *a)
{
    for (apr_int64_t i = 0; i < a->n; i++) {
        void *obj = use(r->pool, a->size);
        if (i < a->nfree)
            ap_pfree(r->pool, obj);
    }
}

static int child_init_misuse;   /* ReapTestChildInitMisuse */

static const char *set_child_init_misuse(cmd_parms *cmd, void *dconf, int on)
{
    child_init_misuse = on;
    return NULL;
}

/* Free @p mem into @p p twice. */
static void free_twice(server_rec *s, apr_pool_t *p, void *mem,
                       const char *where)
{
    ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, "mod_reap_test: %s: freeing "
                 "0x%pp of pool 0x%pp twice", where, mem, (void *)p);
    ap_pfree(p, mem);
    ap_pfree(p, mem);
}

static int misuse_handler(request_rec *r)
{
    const char *kind = r->args ? r->args : "";
    apr_pool_t *other;
    char *mem;

    if (r->handler == NULL || strcmp(r->handler, "reap-test-misuse") != 0)
        return DECLINED;
    if (strcmp(kind, "kind=double") == 0) {
        free_twice(r->server, r->pool, use(r->pool, 64), "request");
    }
    else if (strcmp(kind, "kind=double-sub") == 0) {
        if (apr_pool_create(&other, r->pool) != APR_SUCCESS)
            return HTTP_INTERNAL_SERVER_ERROR;
        free_twice(r->server, other, use(other, 64), "request subpool");
    }
    else if (strcmp(kind, "kind=foreign") == 0) {
        if (apr_pool_create(&other, r->pool) != APR_SUCCESS)
            return HTTP_INTERNAL_SERVER_ERROR;
        apr_pool_tag(other, "reap-test-other");
        mem = use(other, 64);
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r, "mod_reap_test: "
                      "freeing 0x%pp of pool 0x%pp into pool 0x%pp", mem,
                      (void *)other, (void *)r->pool);
        ap_pfree(r->pool, mem);
    }
    else if (strcmp(kind, "kind=interior") == 0) {
        mem = (char *)use(r->pool, 256) + 32;
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r, "mod_reap_test: "
                      "freeing 0x%pp, inside an object, into pool 0x%pp", mem,
                      (void *)r->pool);
        ap_pfree(r->pool, mem);
    }
    else {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "mod_reap_test: bad argument '%s'", kind);
        return HTTP_BAD_REQUEST;
    }
    ap_set_content_type(r, "text/plain");
    ap_rprintf(r, "reap-test misuse %s: still here, pfree_works=%d\n",
               kind, ap_pfree_works());
    return OK;
}

/* reap-test-redirect and reap-test-subreq: ?to=<URI> */
static int pass_on_handler(request_rec *r)
{
    const char *to = r->args;
    request_rec *sub;
    int redirect, rv;

    if (r->handler == NULL)
        return DECLINED;
    redirect = strcmp(r->handler, "reap-test-redirect") == 0;
    if (!redirect && strcmp(r->handler, "reap-test-subreq") != 0)
        return DECLINED;
    if (to == NULL || strncmp(to, "to=/", 4) != 0) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "mod_reap_test: bad argument '%s'", to ? to : "");
        return HTTP_BAD_REQUEST;
    }
    to += 3;
    if (redirect) {
        ap_internal_redirect(to, r);
        return OK;
    }
    ap_set_content_type(r, "text/plain");
    sub = ap_sub_req_lookup_uri(to, r, r->output_filters);
    rv = sub->status == HTTP_OK ? ap_run_sub_req(sub) : sub->status;
    ap_destroy_sub_req(sub);
    ap_rprintf(r, "reap-test subrequest done: %d\n", rv);
    return OK;
}

static int test_handler(request_rec *r)
{
    test_args a;
    const char *bad;
    int hog;

    if (r->handler == NULL)
        return DECLINED;
    hog = strcmp(r->handler, "reap-test-hog") == 0;
    if (!hog && strcmp(r->handler, "reap-test") != 0)
        return DECLINED;
    if ((bad = parse_args(r, &a)) != NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "mod_reap_test: bad argument '%s'", bad);
        return HTTP_BAD_REQUEST;
    }
    if (hog && a.flush > 0) {
        static const char head[] = "reap-test hog begins\n";

        ap_set_content_type(r, "text/plain");
        if (a.length > 0)
            ap_set_content_length(r, (apr_off_t)a.length);
        ap_rputs(head, r);
        for (apr_int64_t i = (apr_int64_t)sizeof head - 1; i < a.flush; i++)
            ap_rputc('.', r);
        ap_rflush(r);
    }
    if (hog) {
        for (apr_int64_t done = 0; done < a.total; done += a.size)
            use(r->pool, a.size);
        if (a.hold > 0)
            apr_sleep(apr_time_from_msec(a.hold));
    }
    else if (a.loop) {
        run_loop(r, &a);
    }
    else {
        run_batch(r, &a);
        a.nfree += 1;           /* the pointer array */
    }
    ap_set_content_type(r, "text/plain");
    ap_rprintf(r, "reap-test %s n=%" APR_INT64_T_FMT " size=%" APR_INT64_T_FMT
               " freed=%" APR_INT64_T_FMT " total=%" APR_INT64_T_FMT
               " pfree_works=%d\n", hog ? "hog" : a.loop ? "loop" : "batch",
               a.n, a.size, hog ? 0 : a.nfree, a.total, ap_pfree_works());
    return OK;
}

/* Fill @p p with @p bytes in KEEP_PIECE pieces, each written to. */
static void keep(apr_pool_t *p, apr_size_t bytes)
{
    for (apr_size_t done = 0; done < bytes; done += KEEP_PIECE)
        use(p, KEEP_PIECE);
}

static void test_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_pool_t *kept, *sub;

    if (apr_pool_create(&kept, pchild) != APR_SUCCESS
        || apr_pool_create(&sub, kept) != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "mod_reap_test: no long-lived pools");
        return;
    }
    apr_pool_tag(kept, KEEP_TAG);
    keep(kept, KEEP_BYTES);
    keep(sub, KEEP_SUB_BYTES);
    if (child_init_misuse)
        free_twice(s, sub, use(sub, 64), "child init");
}

static const command_rec test_cmds[] = {
    AP_INIT_FLAG("ReapTestChildInitMisuse", set_child_init_misuse, NULL,
                 RSRC_CONF, "On to free an object twice at child init"),
    {NULL}
};

static void register_hooks(apr_pool_t *p)
{
    ap_hook_child_init(test_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(test_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(misuse_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(pass_on_handler, NULL, NULL, APR_HOOK_MIDDLE);
}

AP_DECLARE_MODULE(reap_test) = {
    STANDARD20_MODULE_STUFF,
    NULL, NULL, NULL, NULL,
    test_cmds,
    register_hooks,
    AP_MODULE_FLAG_NONE
};
