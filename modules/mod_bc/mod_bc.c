/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mod_bc.c - the bc calculator language as an httpd handler.
 *
 *   LoadModule reap_module modules/mod_reap.so      (for ap_pfree)
 *   LoadModule bc_module   modules/mod_bc.so
 *   <Location /bc>
 *       SetHandler bc
 *   </Location>
 *
 * A program comes as the body of a POST or as ?e=<expr> on a GET; "l=1"
 * in the query string loads the math library for that request (as bc -l).
 * A body is the program text, whatever its Content-Type, with one
 * exception: an application/x-www-form-urlencoded body that is a form
 * (name=value pairs, encoded) gives its field "program", and a form
 * without that field is a 400 that says what to send.  So curl's
 * --data-binary @prog.bc (which labels the body as a form) and
 * --data-urlencode program@prog.bc both work.  The answer is text/plain:
 * the program's output, 200.
 *
 * Every number the interpreter makes is apr_palloc'ed from a subpool of the
 * request pool, and every number it drops goes back through ap_pfree
 * (mod_reap.h), so on the reap-backed APR a program's memory stays near
 * what is live; "BcPfree Off" turns the free hook into a no-op, which is
 * pure pool behaviour, for comparison.  The subpool's peak footprint comes
 * back in the header X-Bc-Peak-Memory and the request note bc-peak.
 *
 * Bad input costs the server nothing: the program runs under limits, each
 * with its own status, a one-line body naming the limit, and the header
 * X-Bc-Limit:
 *   400  a syntax or runtime error (the body has bc's messages, which name
 *        the line); no X-Bc-Limit
 *   413  program-size  the program is larger than BcMaxProgramSize
 *   422  output        the output would pass BcMaxOutput
 *   503  time          the program ran longer than BcTimeLimit
 *   507  memory        the subpool passed BcMemoryLimit (its reap's limit),
 *                      or the request passed mod_reap's ReapRequestLimit
 *   508  depth         function calls nested deeper than BcMaxDepth, or
 *                      deeper than the worker thread's stack allows
 * The interpreter checks its clock, depth and stack as it runs, and the
 * subpool has its own abort function, so an allocation refused by a limit
 * ends the program cleanly instead of aborting the child (httpd's own abort
 * function would).  The subpool is destroyed before the handler returns:
 * nothing of a program outlives its request.
 *
 * On Debian's stock APR there is no reap: ap_pfree does nothing, and
 * BcMemoryLimit is enforced by counting the bytes allocated (which, with no
 * frees, is what the pool holds).
 *
 * Directives (server config, virtual host, directory):
 *   BcPfree On|Off            free numbers with ap_pfree [On]
 *   BcMathLib On|Off          load the -l library for every request [Off]
 *   BcTimeLimit <seconds>     wall-clock time per program [5]
 *   BcMaxOutput <size>        bytes of output [1M]
 *   BcMaxDepth <n>            nested function calls [5000]
 *   BcMaxProgramSize <size>   bytes of program [256K]
 *   BcMemoryLimit <size>      the subpool's footprint [64M]; 0: none
 * Sizes take an optional k, M or G suffix.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "apr_lib.h"
#include "apr_strings.h"

#include "mod_reap.h"
#include "reap.h"
#include "bc.h"

module AP_MODULE_DECLARE_DATA bc_module;

/* Unset values of the per-directory configuration, so merging can tell a
 * directive that appeared from one that did not. */
#define UNSET_INT (-1)
#define UNSET_SIZE ((apr_size_t)-1)

typedef struct bc_dir_conf {
    int pfree;                  /* 1: free hook is ap_pfree; 0: no-op */
    int mathlib;
    double time_limit;          /* seconds; < 0: unset */
    apr_size_t max_output, max_program, memory_limit;
    int max_depth;
} bc_dir_conf;

/* Running without the reap-backed APR, apr_pool_reap_get is absent. */
typedef struct reap *(*pool_reap_get_fn)(apr_pool_t *p);
static pool_reap_get_fn pool_reap_get;

/* One program run: what the hooks need. */
typedef struct bc_run_state {
    request_rec *r;
    apr_pool_t *pool;           /* the subpool every number comes from */
    reap_t *reap;               /* its reap, or NULL on stock APR */
    apr_size_t counted;         /* stock APR: bytes allocated so far */
    apr_size_t count_limit;     /* stock APR: BcMemoryLimit, 0: none */
    char *out;                  /* output so far, out_len of out_cap bytes */
    apr_size_t out_len, out_cap;
    char *err;                  /* error messages, up to ERR_MAX bytes */
    apr_size_t err_len;
} bc_run_state;

#define ERR_MAX 4096

/* ---- configuration ---------------------------------------------------------------- */

static void *create_dir_conf(apr_pool_t *p, char *dir)
{
    bc_dir_conf *c = apr_palloc(p, sizeof *c);

    c->pfree = UNSET_INT;
    c->mathlib = UNSET_INT;
    c->time_limit = -1;
    c->max_output = c->max_program = c->memory_limit = UNSET_SIZE;
    c->max_depth = UNSET_INT;
    return c;
}

static void *merge_dir_conf(apr_pool_t *p, void *basev, void *addv)
{
    const bc_dir_conf *base = basev, *add = addv;
    bc_dir_conf *c = apr_palloc(p, sizeof *c);

#define MERGE(field, unset) c->field = add->field != (unset) ? add->field : base->field
    MERGE(pfree, UNSET_INT);
    MERGE(mathlib, UNSET_INT);
    MERGE(max_output, UNSET_SIZE);
    MERGE(max_program, UNSET_SIZE);
    MERGE(memory_limit, UNSET_SIZE);
    MERGE(max_depth, UNSET_INT);
#undef MERGE
    c->time_limit = add->time_limit >= 0 ? add->time_limit : base->time_limit;
    return c;
}

/* The effective value of each setting: the directive's, or the default. */
static int conf_pfree(const bc_dir_conf *c) { return c->pfree != UNSET_INT ? c->pfree : 1; }
static int conf_mathlib(const bc_dir_conf *c) { return c->mathlib == 1; }
static double conf_time(const bc_dir_conf *c) { return c->time_limit >= 0 ? c->time_limit : 5.0; }
static int conf_depth(const bc_dir_conf *c) { return c->max_depth != UNSET_INT ? c->max_depth : 5000; }

static apr_size_t size_or(apr_size_t v, apr_size_t dflt)
{
    return v != UNSET_SIZE ? v : dflt;
}
static apr_size_t conf_output(const bc_dir_conf *c) { return size_or(c->max_output, 1 << 20); }
static apr_size_t conf_program(const bc_dir_conf *c) { return size_or(c->max_program, 256 * 1024); }
static apr_size_t conf_memory(const bc_dir_conf *c) { return size_or(c->memory_limit, 64 << 20); }

/* A size: digits with an optional k, M or G suffix (binary units). */
static const char *set_size(cmd_parms *cmd, void *dconf, const char *arg)
{
    static const char units[] = "kmg";
    apr_size_t *field = (apr_size_t *)((char *)dconf + (size_t)cmd->info);
    const char *u;
    char *end;
    apr_int64_t n;
    unsigned shift = 0;

    n = apr_strtoi64(arg, &end, 10);
    if (end != arg && *end && (u = strchr(units, apr_tolower(*end))) != NULL) {
        shift = 10 * (unsigned)(u - units + 1);
        end++;
    }
    if (end == arg || *end || n < 0)
        return apr_psprintf(cmd->pool, "%s: '%s' is not a size (digits, then "
                            "optional k, M or G)", cmd->cmd->name, arg);
    if ((apr_uint64_t)n > (APR_SIZE_MAX >> shift))
        return apr_psprintf(cmd->pool, "%s: size '%s' is too large",
                            cmd->cmd->name, arg);
    *field = (apr_size_t)n << shift;
    return NULL;
}

static const char *set_time(cmd_parms *cmd, void *dconf, const char *arg)
{
    bc_dir_conf *c = dconf;
    char *end;
    double t = strtod(arg, &end);

    if (end == arg || *end || !(t >= 0) || t > 86400)
        return apr_psprintf(cmd->pool, "BcTimeLimit: '%s' is not a number of "
                            "seconds from 0 (none) to 86400", arg);
    c->time_limit = t;
    return NULL;
}

static const char *set_depth(cmd_parms *cmd, void *dconf, const char *arg)
{
    bc_dir_conf *c = dconf;
    char *end;
    long n = strtol(arg, &end, 10);

    if (end == arg || *end || n < 1 || n > 10000000)
        return apr_psprintf(cmd->pool, "BcMaxDepth: '%s' is not a depth from "
                            "1 to 10000000", arg);
    c->max_depth = (int)n;
    return NULL;
}

static const char *set_pfree(cmd_parms *cmd, void *dconf, int on)
{
    ((bc_dir_conf *)dconf)->pfree = on;
    return NULL;
}

static const char *set_mathlib(cmd_parms *cmd, void *dconf, int on)
{
    ((bc_dir_conf *)dconf)->mathlib = on;
    return NULL;
}

static const command_rec bc_cmds[] = {
    AP_INIT_FLAG("BcPfree", set_pfree, NULL, RSRC_CONF | ACCESS_CONF,
                 "On: free numbers with ap_pfree as the program drops them; "
                 "Off: keep them until the request ends (pool behaviour)"),
    AP_INIT_FLAG("BcMathLib", set_mathlib, NULL, RSRC_CONF | ACCESS_CONF,
                 "On: load the math library (bc -l) for every program"),
    AP_INIT_TAKE1("BcTimeLimit", set_time, NULL, RSRC_CONF | ACCESS_CONF,
                  "seconds a program may run (0: no limit)"),
    AP_INIT_TAKE1("BcMaxOutput", set_size,
                  (void *)APR_OFFSETOF(bc_dir_conf, max_output),
                  RSRC_CONF | ACCESS_CONF, "bytes of output a program may write"),
    AP_INIT_TAKE1("BcMaxProgramSize", set_size,
                  (void *)APR_OFFSETOF(bc_dir_conf, max_program),
                  RSRC_CONF | ACCESS_CONF, "bytes of program text accepted"),
    AP_INIT_TAKE1("BcMemoryLimit", set_size,
                  (void *)APR_OFFSETOF(bc_dir_conf, memory_limit),
                  RSRC_CONF | ACCESS_CONF,
                  "bytes of memory a program may hold (0: no limit)"),
    AP_INIT_TAKE1("BcMaxDepth", set_depth, NULL, RSRC_CONF | ACCESS_CONF,
                  "how deep function calls may nest"),
    {NULL}
};

/* ---- the interpreter's hooks ------------------------------------------------------ */

static void *hook_alloc(void *ud, size_t size)
{
    bc_run_state *st = ud;

    if (st->count_limit) {
        if (size > st->count_limit - st->counted)
            return NULL;
        st->counted += size;
    }
    return apr_palloc(st->pool, size);
}

static void hook_pfree(void *ud, void *mem)
{
    ap_pfree(((bc_run_state *)ud)->pool, mem);
}

static void hook_keep(void *ud, void *mem)
{
}

/* Make room for @p need more bytes after the @p len bytes of *@p buf
 * (capacity *@p cap): the buffer doubles, and the old one goes back to the
 * pool.  @return 0, or -1 when the pool has no memory. */
static int buf_reserve(apr_pool_t *p, char **buf, apr_size_t len,
                       apr_size_t *cap, apr_size_t need)
{
    apr_size_t want = *cap ? *cap : 4096;
    char *grown;

    if (need <= *cap - len)
        return 0;
    while (need > want - len)
        want *= 2;
    grown = apr_palloc(p, want);
    if (grown == NULL)
        return -1;
    if (len)
        memcpy(grown, *buf, len);
    ap_pfree(p, *buf);
    *buf = grown;
    *cap = want;
    return 0;
}

/* Output is kept until the program ends, because its status (200 or a
 * limit's) must go out before the body. */
static void write_out(void *ud, const char *buf, size_t n)
{
    bc_run_state *st = ud;

    if (buf_reserve(st->r->pool, &st->out, st->out_len, &st->out_cap, n) != 0)
        return;
    memcpy(st->out + st->out_len, buf, n);
    st->out_len += n;
}

static void write_err(void *ud, const char *buf, size_t n)
{
    bc_run_state *st = ud;

    if (st->err == NULL)
        st->err = apr_palloc(st->r->pool, ERR_MAX);
    if (n > ERR_MAX - st->err_len)
        n = ERR_MAX - st->err_len;
    memcpy(st->err + st->err_len, buf, n);
    st->err_len += n;
}

/* The subpool's abort function: return, so apr_palloc returns NULL and the
 * interpreter stops with BC_ERR_NOMEM (httpd's would abort the child). */
static int subpool_abort(int retcode)
{
    return retcode;
}

/* ---- reading the program ---------------------------------------------------------- */

/* The value of field @p name in an &-separated, URL-encoded list, decoded;
 * NULL when absent or badly encoded. */
static char *form_field(apr_pool_t *p, const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *s = list;

    while (s && *s) {
        const char *amp = strchr(s, '&');
        size_t len = amp ? (size_t)(amp - s) : strlen(s);

        if (len > n && strncmp(s, name, n) == 0 && s[n] == '=') {
            char *v = apr_pstrmemdup(p, s + n + 1, len - n - 1);
            return ap_unescape_urlencoded(v) == OK ? v : NULL;
        }
        s = amp ? amp + 1 : NULL;
    }
    return NULL;
}

/* Whether a byte may stand unescaped in a form's name or value: what
 * encoders leave as it is (RFC 3986's unreserved set, '+' for a space, and
 * the "!'()*" that JavaScript's encodeURIComponent keeps). */
static int form_byte(unsigned char c)
{
    return apr_isalnum(c) || (c != '\0' && strchr("-._~+!'()*", c) != NULL);
}

/* Whether @p body (@p len bytes) is a URL-encoded form: one or more
 * name=value pairs joined by '&', every other byte a form byte or a %XX
 * escape.  A bc program stops being one at its first space, newline or
 * ';', or at an operator such as '^', '/' or '<'. */
static int is_form(const char *body, apr_size_t len)
{
    apr_size_t i;
    int has_eq = 0;

    if (len == 0)
        return 0;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)body[i];

        if (c == '&') {
            if (!has_eq)
                return 0;
            has_eq = 0;
        }
        else if (c == '=')
            has_eq = 1;
        else if (c == '%') {
            if (i + 2 >= len || !apr_isxdigit(body[i + 1]) ||
                !apr_isxdigit(body[i + 2]))
                return 0;
            i += 2;
        }
        else if (!form_byte(c))
            return 0;
    }
    return has_eq;
}

/* Read the request body into *@p body, up to @p max bytes.
 * @return OK, HTTP_REQUEST_ENTITY_TOO_LARGE, or another error status. */
static int read_body(request_rec *r, apr_size_t max, char **body,
                     apr_size_t *len)
{
    apr_size_t cap = 0, got = 0;
    char *buf = NULL;
    int rc;

    if ((rc = ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK)) != OK)
        return rc;
    if (r->remaining > (apr_off_t)max)
        return HTTP_REQUEST_ENTITY_TOO_LARGE;
    if (!ap_should_client_block(r)) {
        *body = apr_pstrdup(r->pool, "");
        *len = 0;
        return OK;
    }
    for (;;) {
        long n;

        /* room for a read of 8 KiB and the NUL */
        if (buf_reserve(r->pool, &buf, got, &cap, 8192 + 1) != 0)
            return HTTP_INTERNAL_SERVER_ERROR;
        n = ap_get_client_block(r, buf + got, cap - got - 1);
        if (n == 0)
            break;
        if (n < 0)
            return HTTP_BAD_REQUEST;
        got += (apr_size_t)n;
        if (got > max)
            return HTTP_REQUEST_ENTITY_TOO_LARGE;
    }
    buf[got] = '\0';
    *body = buf;
    *len = got;
    return OK;
}

/* A one-line plain-text answer with @p status. */
static int answer(request_rec *r, int status, const char *limit,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int answer(request_rec *r, int status, const char *limit,
                  const char *fmt, ...)
{
    va_list ap;

    r->status = status;
    ap_set_content_type(r, "text/plain; charset=us-ascii");
    if (limit)
        apr_table_setn(r->headers_out, "X-Bc-Limit", limit);
    va_start(ap, fmt);
    ap_rvputs(r, apr_pvsprintf(r->pool, fmt, ap), NULL);
    va_end(ap);
    return OK;
}

static int too_large(request_rec *r, apr_size_t max)
{
    return answer(r, HTTP_REQUEST_ENTITY_TOO_LARGE, "program-size",
                  "the program is larger than BcMaxProgramSize (%"
                  APR_SIZE_T_FMT " bytes)\n", max);
}

/* Find the program: the body of a POST, or ?e= of a GET. */
static int get_program(request_rec *r, const bc_dir_conf *conf, char **prog,
                       apr_size_t *len)
{
    apr_size_t max = conf_program(conf);
    int rc;

    if (r->method_number == M_GET) {
        char *e = r->args ? form_field(r->pool, r->args, "e") : NULL;

        if (e == NULL)
            return answer(r, HTTP_BAD_REQUEST, NULL, "no program: send it as "
                          "the body of a POST, or as ?e=<expression>\n");
        *len = strlen(e);
        *prog = apr_pstrcat(r->pool, e, "\n", NULL);
        (*len)++;
    }
    else {
        const char *ctype = apr_table_get(r->headers_in, "Content-Type");

        rc = read_body(r, max, prog, len);
        if (rc == HTTP_REQUEST_ENTITY_TOO_LARGE)
            return too_large(r, max);
        if (rc != OK)
            return rc;
        if (ctype && strncasecmp(ctype, "application/x-www-form-urlencoded",
                                 33) == 0 && is_form(*prog, *len)) {
            char *p = form_field(r->pool, *prog, "program");

            if (p == NULL)
                return answer(r, HTTP_BAD_REQUEST, NULL,
                              "the body is a form without a field 'program'; "
                              "send the program as the body with "
                              "-H 'Content-Type: text/plain' --data-binary "
                              "@prog.bc, or as the field with "
                              "--data-urlencode program@prog.bc\n");
            *prog = p;
            *len = strlen(p);
        }
    }
    if (*len > max)
        return too_large(r, max);
    return DECLINED; /* go on: a program was found */
}

/* Bytes of stack the interpreter may use on this thread: what is left below
 * this frame, less a margin for the frames between two of its checks and
 * for libc.  Worker threads have httpd's ThreadStackSize (by default the
 * system's 8 MiB); deep recursion then ends with a 508, not a crash. */
#define STACK_MARGIN (256 * 1024)

static size_t stack_room(void)
{
    pthread_attr_t a;
    void *lo;
    size_t size, room;
    char here;

    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return 0; /* the interpreter's default, 1 MiB */
    if (pthread_attr_getstack(&a, &lo, &size) != 0)
        size = 0;
    pthread_attr_destroy(&a);
    if (size == 0 || &here < (char *)lo)
        return 0;
    room = (size_t)(&here - (char *)lo);
    return room > 2 * STACK_MARGIN ? room - STACK_MARGIN : room / 2;
}

/* ---- the handler ------------------------------------------------------------------ */

/* The answer for a program that ended with @p st. */
static int respond(request_rec *r, const bc_dir_conf *conf, bc_status st,
                   bc_run_state *rs)
{
    switch (st) {
    case BC_OK:
    case BC_QUIT:
        ap_set_content_type(r, "text/plain; charset=us-ascii");
        ap_set_content_length(r, (apr_off_t)rs->out_len);
        if (rs->out_len)
            ap_rwrite(rs->out, (int)rs->out_len, r);
        return OK;
    case BC_ERR_SYNTAX:
    case BC_ERR_RUNTIME:
        return answer(r, HTTP_BAD_REQUEST, NULL, "%.*s", (int)rs->err_len,
                      rs->err ? rs->err : "");
    case BC_ERR_NOMEM:
        return answer(r, HTTP_INSUFFICIENT_STORAGE, "memory",
                      "the program used more memory than its limit "
                      "(BcMemoryLimit %" APR_SIZE_T_FMT " bytes, or "
                      "ReapRequestLimit)\n",
                      conf_memory(conf));
    case BC_ERR_TIME:
        return answer(r, HTTP_SERVICE_UNAVAILABLE, "time",
                      "the program ran longer than BcTimeLimit (%g s)\n",
                      conf_time(conf));
    case BC_ERR_OUTPUT:
        return answer(r, HTTP_UNPROCESSABLE_ENTITY, "output",
                      "the program's output passed BcMaxOutput (%"
                      APR_SIZE_T_FMT " bytes)\n",
                      conf_output(conf));
    case BC_ERR_DEPTH:
        return answer(r, HTTP_LOOP_DETECTED, "depth",
                      "%.*s", (int)rs->err_len, rs->err ? rs->err :
                      "function calls nested too deep\n");
    case BC_ERR_PROGSIZE:
        return too_large(r, conf_program(conf));
    }
    return HTTP_INTERNAL_SERVER_ERROR;
}

/* The subpool's peak footprint: its reap's, or on stock APR the bytes
 * counted. */
static apr_uint64_t run_peak(const bc_run_state *rs)
{
    reap_stats_t s;

    if (rs->reap == NULL)
        return rs->counted;
    reap_get_stats(rs->reap, &s);
    return s.peak_footprint;
}

static int bc_handler(request_rec *r)
{
    const bc_dir_conf *conf;
    bc_run_state rs;
    bc_config_t cfg;
    bc_ctx_t *ctx;
    bc_status st;
    apr_size_t len = 0, mem_limit;
    char *prog = NULL;
    const char *l;
    int rc;

    if (strcmp(r->handler, "bc") != 0)
        return DECLINED;
    r->allowed |= (AP_METHOD_BIT << M_GET) | (AP_METHOD_BIT << M_POST);
    if (r->method_number != M_GET && r->method_number != M_POST)
        return HTTP_METHOD_NOT_ALLOWED;
    conf = ap_get_module_config(r->per_dir_config, &bc_module);
    if ((rc = get_program(r, conf, &prog, &len)) != DECLINED)
        return rc;

    memset(&rs, 0, sizeof rs);
    rs.r = r;
    if (apr_pool_create_ex(&rs.pool, r->pool, subpool_abort, NULL) != APR_SUCCESS)
        return HTTP_INTERNAL_SERVER_ERROR;
    apr_pool_tag(rs.pool, "bc");
    mem_limit = conf_memory(conf);
    rs.reap = pool_reap_get ? pool_reap_get(rs.pool) : NULL;
    if (rs.reap)
        reap_set_limit(rs.reap, mem_limit);
    else
        rs.count_limit = mem_limit;

    memset(&cfg, 0, sizeof cfg);
    cfg.alloc = hook_alloc;
    cfg.free = conf_pfree(conf) ? hook_pfree : hook_keep;
    cfg.mem_ud = &rs;
    cfg.out = write_out;
    cfg.out_ud = &rs;
    cfg.err = write_err;
    cfg.err_ud = &rs;
    cfg.time_limit = conf_time(conf);
    cfg.max_output = conf_output(conf);
    cfg.max_depth = (unsigned)conf_depth(conf);
    cfg.max_stack = stack_room();
    cfg.max_program = conf_program(conf);
    cfg.line_length = -1;
    l = r->args ? form_field(r->pool, r->args, "l") : NULL;
    cfg.mathlib = l ? strcmp(l, "0") != 0 : conf_mathlib(conf);

    ctx = bc_create(&cfg);
    st = ctx ? bc_run(ctx, prog, len, "(standard_in)") : BC_ERR_NOMEM;
    if (ctx)
        bc_destroy(ctx);
    apr_table_setn(r->headers_out, "X-Bc-Peak-Memory",
                   apr_psprintf(r->pool, "%" APR_UINT64_T_FMT, run_peak(&rs)));
    apr_table_set(r->notes, "bc-peak",
                  apr_table_get(r->headers_out, "X-Bc-Peak-Memory"));
    apr_pool_destroy(rs.pool);
    if (st != BC_OK && st != BC_QUIT && st != BC_ERR_SYNTAX && st != BC_ERR_RUNTIME)
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      "bc program stopped: %s", bc_strstatus(st));
    return respond(r, conf, st, &rs);
}

/* ---- start-up --------------------------------------------------------------------- */

static int bc_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp, server_rec *s)
{
    pool_reap_get = (pool_reap_get_fn)dlsym(RTLD_DEFAULT, "apr_pool_reap_get");
    ap_pfree_retrieve();
    return OK;
}

static void bc_register_hooks(apr_pool_t *p)
{
    ap_hook_post_config(bc_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(bc_handler, NULL, NULL, APR_HOOK_MIDDLE);
}

AP_DECLARE_MODULE(bc) = {
    STANDARD20_MODULE_STUFF,
    create_dir_conf,            /* per-directory config */
    merge_dir_conf,             /* merge per-directory config */
    NULL,                       /* per-server config */
    NULL,                       /* merge per-server config */
    bc_cmds,                    /* directives */
    bc_register_hooks,          /* hooks */
    AP_MODULE_FLAG_NONE         /* flags */
};
