/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * bc.c - the context: creation, running programs, errors, limits.
 *
 * bc_run() drives the parser and the evaluator item by item, as GNU bc
 * does: each line of statements runs as soon as it is read.  Every error
 * unwinds here through bc_fail() and ctx->jmp: syntax errors are caught by
 * the parser (which skips the line), runtime errors end the current item
 * and the program goes on with the next, and limits (time, output, depth,
 * memory) stop the whole run with their own status and message.  After
 * every unwind, unwind.c frees what the unwound code held.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "bcint.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void err_text(bc_ctx *c, const char *s)
{
    if (c->cfg.err)
        c->cfg.err(c->cfg.err_ud, s, strlen(s));
}

void *bc_alloc(bc_ctx *c, size_t n)
{
    void *p = c->cfg.alloc(c->cfg.mem_ud, n ? n : 1);
    if (!p)
        bc_fail(c, BC_ERR_NOMEM, "out of memory");
    return p;
}

void bc_free(bc_ctx *c, void *p)
{
    if (p)
        c->cfg.free(c->cfg.mem_ud, p);
}

void bc_check_time(bc_ctx *c)
{
    c->tick = 0;
    if (c->deadline != 0 && now() > c->deadline)
        bc_fail(c, BC_ERR_TIME, "time limit of %g s exceeded",
                c->cfg.time_limit);
}

/* Prints an error in GNU's shape: syntax errors name the input and line,
 * runtime errors the function and line. */
void bc_report(bc_ctx *c, bc_status st, const char *msg)
{
    char buf[512];
    if (st == BC_QUIT)
        return;
    if (st == BC_ERR_SYNTAX && strcmp(msg, "syntax error") == 0) {
        /* yacc's recovery reports nothing until 3 tokens pass an error */
        int quiet = c->had_syntax_error && c->ntok - 1 - c->err_ntok < 3;
        c->had_syntax_error = 1;
        if (quiet)
            return;
    }
    bc_out_flush(c);
    if (st == BC_ERR_SYNTAX)
        snprintf(buf, sizeof buf, "%s %d: %s\n", c->input_name, c->line, msg);
    else if (st == BC_ERR_RUNTIME)
        snprintf(buf, sizeof buf, "Runtime error (func=%s, line %d): %s\n",
                 c->cur_func ? c->cur_func : "(main)", c->cur_line, msg);
    else if (strcmp(msg, bc_strstatus(st)) == 0)
        snprintf(buf, sizeof buf, "%s %d: %s\n", c->input_name, c->cur_line,
                 msg);
    else
        snprintf(buf, sizeof buf, "%s %d: %s: %s\n", c->input_name,
                 c->cur_line, bc_strstatus(st), msg);
    err_text(c, buf);
}

void bc_fail(bc_ctx *c, bc_status st, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->failed = st;
    bc_report(c, st, msg);
    longjmp(*c->jmp, 1);
}

void bc_warn(bc_ctx *c, const char *fmt, ...)
{
    char msg[400], buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bc_out_flush(c);
    if (strstr(fmt, "illegal character") || strstr(fmt, "EOF encountered"))
        snprintf(buf, sizeof buf, "%s\n", msg);
    else
        snprintf(buf, sizeof buf, "Runtime warning (func=%s, line %d): %s\n",
                 c->cur_func ? c->cur_func : "(main)", c->cur_line, msg);
    err_text(c, buf);
}

const char *bc_strstatus(bc_status st)
{
    switch (st) {
    case BC_OK: return "ok";
    case BC_QUIT: return "quit";
    case BC_ERR_SYNTAX: return "syntax error";
    case BC_ERR_RUNTIME: return "runtime error";
    case BC_ERR_NOMEM: return "out of memory";
    case BC_ERR_TIME: return "time limit exceeded";
    case BC_ERR_OUTPUT: return "output limit exceeded";
    case BC_ERR_DEPTH: return "recursion too deep";
    case BC_ERR_PROGSIZE: return "program too large";
    }
    return "unknown status";
}

static void note(bc_ctx *c, bc_status st)
{
    if (st > c->worst)
        c->worst = st;
}

static int is_limit(bc_status st)
{
    return st >= BC_ERR_NOMEM;
}

/* Parses and runs items until the end of the input or a stop. */
static bc_status run_items(bc_ctx *c)
{
    jmp_buf jb;
    c->jmp = &jb;
    bc_lex_next(c);
    for (;;) {
        node *item = NULL;
        if (setjmp(jb)) {
            bc_status st = c->failed;
            bc_eval_reset(c);
            bc_node_free(c, c->cur_item);
            c->cur_item = NULL;
            bc_unwind(c);
            /* the sweep costs a walk of every live number: a program of
             * many failing lines over a large state must still meet the
             * time limit, though no loop of its own reads the clock */
            if (st != BC_QUIT && !is_limit(st) && c->deadline != 0 &&
                now() > c->deadline) {
                char msg[100];
                snprintf(msg, sizeof msg, "time limit of %g s exceeded",
                         c->cfg.time_limit);
                bc_report(c, BC_ERR_TIME, msg);
                st = BC_ERR_TIME;
            }
            if (st == BC_QUIT || is_limit(st)) {
                bc_out_flush(c);
                return st;
            }
            note(c, st);
            /* a runtime error ends the item; go on with the next line */
            continue;
        }
        bc_parse_result r = bc_parse_item(c, &item);
        if (r == P_EOF)
            break;
        if (r == P_QUIT) {
            bc_out_flush(c);
            return BC_QUIT;
        }
        if (r == P_ERROR) {
            note(c, BC_ERR_SYNTAX);
            continue;
        }
        if (item) {
            c->cur_item = item; /* freed by the handler if it fails */
            int halted = bc_exec_toplevel(c, item);
            c->cur_item = NULL;
            bc_node_free(c, item);
            bc_out_flush(c); /* an interactive user sees it now */
            if (halted) {
                bc_out_flush(c);
                return BC_QUIT;
            }
        }
    }
    bc_out_flush(c);
    return c->worst;
}

bc_status bc_run(bc_ctx *c, const char *src, size_t len, const char *name)
{
    char here;
    c->stack_base = &here;
    c->input_name = name ? name : "(standard_in)";
    c->worst = BC_OK;
    if (c->cfg.max_program && len > c->cfg.max_program) {
        char buf[200];
        snprintf(buf, sizeof buf, "%s: program too large: %zu bytes, limit %zu\n",
                 c->input_name, len, c->cfg.max_program);
        err_text(c, buf);
        return BC_ERR_PROGSIZE;
    }
    c->deadline = c->cfg.time_limit > 0 ? now() + c->cfg.time_limit : 0;
    c->out_bytes = 0;
    c->total_in = len;
    c->reader = NULL;
    bc_lex_init(c, src, len);
    return run_items(c);
}

bc_status bc_run_stream(bc_ctx *c, bc_read_fn read, void *ud,
                        const char *name)
{
    char here;
    c->stack_base = &here;
    c->input_name = name ? name : "(standard_in)";
    c->worst = BC_OK;
    c->deadline = c->cfg.time_limit > 0 ? now() + c->cfg.time_limit : 0;
    c->out_bytes = 0;
    c->total_in = 0;
    c->reader = read;
    c->reader_ud = ud;
    bc_lex_init(c, "", 0);
    bc_status st = run_items(c);
    c->reader = NULL;
    bc_free(c, c->own);
    c->own = NULL;
    return st;
}

static void *ctx_alloc(const bc_config_t *cfg, size_t n)
{
    return cfg->alloc(cfg->mem_ud, n);
}

bc_ctx_t *bc_create(const bc_config_t *cfg)
{
    if (!cfg || !cfg->alloc || !cfg->free || !cfg->out)
        return NULL;
    bc_ctx *c = ctx_alloc(cfg, sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->cfg = *cfg;
    if (c->cfg.line_length < 0)
        c->cfg.line_length = 70;
    if (c->cfg.max_depth == 0)
        c->cfg.max_depth = 10000;
    if (c->cfg.max_stack == 0)
        c->cfg.max_stack = (size_t)1 << 20;
    c->ibase = c->obase = 10;
    c->cur_func = "(main)";
    if (cfg->mathlib) {
        bc_status st = bc_run(c, bc_mathlib_src, strlen(bc_mathlib_src),
                              "(mathlib)");
        if (st != BC_OK) {
            bc_destroy(c);
            return NULL;
        }
        c->scale = 20;
    }
    return c;
}

static void free_syms(bc_ctx *c, bc_symtab *t)
{
    for (int i = 0; i < t->n; i++)
        bc_free(c, (void *)t->v[i].name);
    bc_free(c, t->v);
}

void bc_destroy(bc_ctx *c)
{
    if (!c)
        return;
    jmp_buf jb;
    c->jmp = &jb;
    if (setjmp(jb))
        return; /* cannot happen: freeing allocates nothing */
    bc_eval_reset(c);
    for (int i = 0; i < c->vars.n; i++)
        bc_num_free(c, c->var_val[i]);
    for (int i = 0; i < c->arrays.n; i++)
        bc_array_free(c, c->arr_val[i]);
    for (int i = 0; i < c->funcs.n; i++) {
        bc_node_free(c, c->fn[i].body);
        bc_free(c, c->fn[i].locals);
        bc_free(c, c->fn[i].is_array);
    }
    bc_num_free(c, c->last);
    bc_num_free(c, c->k_zero);
    bc_num_free(c, c->k_one);
    free_syms(c, &c->vars);
    free_syms(c, &c->arrays);
    free_syms(c, &c->funcs);
    bc_free(c, c->var_val);
    bc_free(c, c->var_saved);
    bc_free(c, c->arr_val);
    bc_free(c, c->arr_saved);
    bc_free(c, c->fn);
    bc_free(c, c->own);
    bc_free(c, c->tok_own);
    bc_scratch_release(c, 0); /* empty unless bc_create failed mid-way */
    bc_free(c, c->scr);
    bc_free(c, c);
}
