/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * eval.c - the evaluator: walks the syntax trees parse.c builds.
 *
 * Expressions return fresh numbers the caller frees; statements return how
 * control leaves them (normally, break, continue, return, halt).  Variables
 * are dynamically scoped as in bc: a call saves the current values of its
 * parameters and autos on per-name stacks, and restores them on return, so
 * a called function sees its caller's locals.  Runtime errors unwind to
 * bc_run() through bc_fail(); the values being computed then are recovered
 * by unwind.c (numbers by its sweep, buffers held only here, the argument
 * vector and arrays being passed, as scratch blocks).
 */
#include <string.h>
#include "bcint.h"

enum flow { F_NORMAL, F_BREAK, F_CONTINUE, F_RETURN, F_HALT };

#define BC_SCALE_MAX 2147483647L
#define BC_BASE_MAX 2147483647L

static bc_num *eval(bc_ctx *c, node *n);
static int exec(bc_ctx *c, node *s);

static bc_num *from_long(bc_ctx *c, unsigned long v);

static bc_num *zero(bc_ctx *c)
{
    return from_long(c, 0);
}

/* Truth values come up constantly: share the context's 0 and 1. */
static bc_num *from_long(bc_ctx *c, unsigned long v)
{
    if (v <= 1) {
        bc_num **k = v ? &c->k_one : &c->k_zero;
        if (!*k)
            *k = bc_num_from_uint(c, v);
        return bc_num_ref(*k);
    }
    return bc_num_from_uint(c, v);
}

/* ------------------------------------------------------------ names */

static bc_array *array_of(bc_ctx *c, int id)
{
    if (!c->arr_val[id]) {
        bc_array *a = bc_alloc(c, sizeof *a);
        a->npages = 0;
        a->pages = NULL;
        c->arr_val[id] = a;
    }
    return c->arr_val[id];
}

static size_t index_of(bc_ctx *c, node *n)
{
    bc_num *v = eval(c, n->a);
    long idx;
    /* GNU takes the integer part and refuses a 0 that was not zero: -0 is
     * index 0, 0.5 and -0.5 are out */
    int ok = bc_num_to_long(v, &idx) && (idx != 0 || bc_num_is_zero(v));
    bc_num_free(c, v);
    if (!ok || idx < 0 || idx > 16777215L)
        bc_fail(c, BC_ERR_RUNTIME, "Array %s subscript out of bounds.",
                c->arrays.v[n->id].name);
    return (size_t)idx;
}

/* Current value of a named expression (a copy). */
static bc_num *load(bc_ctx *c, node *n)
{
    bc_num *v;
    switch (n->kind) {
    case N_VAR:
        v = c->var_val[n->id];
        return v ? bc_num_ref(v) : zero(c);
    case N_ELEM: {
        size_t i = index_of(c, n);
        v = *bc_array_slot(c, array_of(c, n->id), i);
        return v ? bc_num_ref(v) : zero(c);
    }
    case N_SCALE: return from_long(c, c->scale);
    case N_IBASE: return from_long(c, c->ibase);
    case N_OBASE: return from_long(c, c->obase);
    default:
        return c->last ? bc_num_ref(c->last) : zero(c);
    }
}

/* Converts v for scale, ibase or obase, clamping with GNU's warnings.  As
 * GNU's store_var, the sign is tested before the value is cut to an
 * integer (-0 and -0.5 are negative), and a value that cuts to 0 without
 * being zero (0.5) counts as too large, like one too long for a long. */
static unsigned long special_value(bc_ctx *c, int kind, const bc_num *v)
{
    long x;
    long lo = kind == N_SCALE ? 0 : 2;
    long hi = kind == N_SCALE ? BC_SCALE_MAX : kind == N_IBASE ? 36
                                                               : BC_BASE_MAX;
    const char *what = kind == N_SCALE ? "scale" : kind == N_IBASE ? "ibase"
                                                                   : "obase";
    if (v->neg) {
        bc_warn(c, "negative %s, set to %ld", what, lo);
        return (unsigned long)lo;
    }
    int fits = bc_num_to_long(v, &x) && (x != 0 || bc_num_is_zero(v));
    if (fits && x < lo) {
        bc_warn(c, "%s too small, set to %ld", what, lo);
        return (unsigned long)lo;
    }
    if (!fits || x > hi) {
        bc_warn(c, "%s too large, set to %ld", what, hi);
        return (unsigned long)hi;
    }
    return (unsigned long)x;
}

/* Stores v (ownership passes) into the named expression @p n. */
static void store(bc_ctx *c, node *n, bc_num *v, size_t idx)
{
    switch (n->kind) {
    case N_VAR:
        bc_num_free(c, c->var_val[n->id]);
        c->var_val[n->id] = v;
        return;
    case N_ELEM: {
        bc_num **slot = bc_array_slot(c, array_of(c, n->id), idx);
        bc_num_free(c, *slot);
        *slot = v;
        return;
    }
    case N_SCALE: c->scale = special_value(c, N_SCALE, v); break;
    case N_IBASE: c->ibase = special_value(c, N_IBASE, v); break;
    case N_OBASE: c->obase = special_value(c, N_OBASE, v); break;
    default:
        bc_num_free(c, c->last);
        c->last = v;
        return;
    }
    bc_num_free(c, v);
}

/* ------------------------------------------------------------ operators */

static long exponent_of(bc_ctx *c, const bc_num *e)
{
    long x;
    if (e->scale) /* GNU bc warns on the scale, even of 2.0 */
        bc_warn(c, "non-zero scale in exponent");
    if (!bc_num_to_long(e, &x))
        bc_fail(c, BC_ERR_RUNTIME, "exponent too large in raise");
    return x;
}

static bc_num *binary(bc_ctx *c, int op, const bc_num *a, const bc_num *b)
{
    switch (op) {
    case '+': return bc_num_add(c, a, b, 0);
    case '-': return bc_num_add(c, a, b, 1);
    case '*': return bc_num_mul(c, a, b, c->scale);
    case '/': return bc_num_div(c, a, b, c->scale);
    case '%':
        if (bc_num_is_zero(b))
            bc_fail(c, BC_ERR_RUNTIME, "Modulo by zero");
        return bc_num_mod(c, a, b, c->scale);
    default: {
        long e = exponent_of(c, b);
        /* GNU tests the exponent's sign, not its value: 0^-0.5 fails too */
        if (bc_num_is_zero(a) && b->neg)
            bc_fail(c, BC_ERR_RUNTIME, "divide by zero");
        return bc_num_pow(c, a, e, c->scale);
    }
    }
}

static int relation(int op, int cmp)
{
    switch (op) {
    case REL_EQ: return cmp == 0;
    case REL_NE: return cmp != 0;
    case REL_LT: return cmp < 0;
    case REL_LE: return cmp <= 0;
    case REL_GT: return cmp > 0;
    default: return cmp >= 0;
    }
}

static int truth(bc_ctx *c, node *n)
{
    bc_num *v = eval(c, n);
    int t = !bc_num_is_zero(v);
    bc_num_free(c, v);
    return t;
}

static bc_num *eval_assign(bc_ctx *c, node *n)
{
    node *lhs = n->a;
    size_t idx = lhs->kind == N_ELEM ? index_of(c, lhs) : 0;
    bc_num *old = NULL;
    if (n->op) {
        /* GNU bc loads the old value before it evaluates the right side */
        if (lhs->kind == N_ELEM) {
            bc_num *v = *bc_array_slot(c, array_of(c, lhs->id), idx);
            old = v ? bc_num_ref(v) : zero(c);
        } else {
            old = load(c, lhs);
        }
    }
    bc_num *r = eval(c, n->b);
    if (old) {
        bc_num *t = binary(c, n->op, old, r);
        bc_num_free(c, old);
        bc_num_free(c, r);
        r = t;
    }
    bc_num *copy = bc_num_ref(r);
    store(c, lhs, r, idx);
    return copy;
}

/* ++ and -- on scale, ibase and obase stop at the bounds, with GNU's own
 * warnings, instead of clamping afterwards. */
static bc_num *incdec_special(bc_ctx *c, node *n)
{
    int kind = n->a->kind;
    int dec = n->kind == N_PREDEC || n->kind == N_POSTDEC;
    unsigned long *v = kind == N_SCALE ? &c->scale
                       : kind == N_IBASE ? &c->ibase : &c->obase;
    unsigned long lo = kind == N_SCALE ? 0 : 2;
    unsigned long hi = kind == N_SCALE ? BC_SCALE_MAX
                       : kind == N_IBASE ? 36 : BC_BASE_MAX;
    const char *what = kind == N_SCALE ? "scale" : kind == N_IBASE ? "ibase"
                                                                   : "obase";
    if (dec && *v == lo) {
        if (kind == N_SCALE)
            bc_warn(c, "scale can not be negative in -- ");
        else
            bc_warn(c, "%s too small in --", what);
        return from_long(c, *v);
    }
    if (!dec && *v == hi) {
        bc_warn(c, "%s too big in ++", what);
        return from_long(c, *v);
    }
    unsigned long old = *v;
    *v = dec ? old - 1 : old + 1;
    int post = n->kind == N_POSTINC || n->kind == N_POSTDEC;
    return from_long(c, post ? old : *v);
}

static bc_num *eval_incdec(bc_ctx *c, node *n)
{
    node *lhs = n->a;
    if (lhs->kind == N_SCALE || lhs->kind == N_IBASE || lhs->kind == N_OBASE)
        return incdec_special(c, n);
    size_t idx = lhs->kind == N_ELEM ? index_of(c, lhs) : 0;
    bc_num *old;
    if (lhs->kind == N_ELEM) {
        bc_num *v = *bc_array_slot(c, array_of(c, lhs->id), idx);
        old = v ? bc_num_ref(v) : zero(c);
    } else {
        old = load(c, lhs);
    }
    bc_num *one = from_long(c, 1);
    int dec = n->kind == N_PREDEC || n->kind == N_POSTDEC;
    bc_num *nv = bc_num_add(c, old, one, dec);
    bc_num_free(c, one);
    int post = n->kind == N_POSTINC || n->kind == N_POSTDEC;
    bc_num *result = bc_num_ref(post ? old : nv);
    bc_num_free(c, old);
    store(c, lhs, nv, idx);
    return result;
}

/* ------------------------------------------------------------ calls */

static void push_local(bc_ctx *c, int id, int is_arr, void *val)
{
    bc_saved *s = bc_alloc(c, sizeof *s);
    if (is_arr) {
        s->val = c->arr_val[id];
        s->prev = c->arr_saved[id];
        c->arr_saved[id] = s;
        c->arr_val[id] = val;
    } else {
        s->val = c->var_val[id];
        s->prev = c->var_saved[id];
        c->var_saved[id] = s;
        c->var_val[id] = val;
    }
}

static void pop_local(bc_ctx *c, int id, int is_arr)
{
    bc_saved *s = is_arr ? c->arr_saved[id] : c->var_saved[id];
    if (is_arr) {
        bc_array_free(c, c->arr_val[id]);
        c->arr_val[id] = s->val;
        c->arr_saved[id] = s->prev;
    } else {
        bc_num_free(c, c->var_val[id]);
        c->var_val[id] = s->val;
        c->var_saved[id] = s->prev;
    }
    bc_free(c, s);
}

/* Evaluates the arguments in the caller's scope into vals[]. */
static void eval_args(bc_ctx *c, node *n, bc_func *f, void **vals)
{
    int i = 0;
    for (node *a = n->a; a; a = a->next, i++) {
        int want_arr = f->is_array[i];
        if ((a->kind == N_ARRAY) != want_arr)
            bc_fail(c, BC_ERR_RUNTIME, "Parameter type mismatch parameter %s.",
                    want_arr ? c->arrays.v[f->locals[i]].name
                             : c->vars.v[f->locals[i]].name);
        vals[i] = want_arr ? (void *)bc_array_copy(c, c->arr_val[a->id])
                           : (void *)eval(c, a);
    }
}

static bc_num *call(bc_ctx *c, node *n)
{
    bc_func *f = &c->fn[n->id];
    const char *name = c->funcs.v[n->id].name;
    if (!f->defined)
        bc_fail(c, BC_ERR_RUNTIME, "Function %s not defined.", name);
    int nargs = 0;
    for (node *a = n->a; a; a = a->next)
        nargs++;
    if (nargs != f->nparams)
        bc_fail(c, BC_ERR_RUNTIME, "Parameter number mismatch");
    if (c->depth >= c->cfg.max_depth)
        bc_fail(c, BC_ERR_DEPTH, "function calls nested deeper than %u",
                c->cfg.max_depth);
    char here; /* the stack grows down on every platform httpd runs on */
    if ((size_t)(c->stack_base - &here) > c->cfg.max_stack)
        bc_fail(c, BC_ERR_DEPTH, "function calls nested %u deep use more "
                "than %zu bytes of stack", c->depth, c->cfg.max_stack);
    void **vals = bc_scratch_alloc(c, (size_t)(f->nlocals + 1) * sizeof *vals);
    eval_args(c, n, f, vals);
    for (int i = 0; i < f->nlocals; i++) {
        push_local(c, f->locals[i], f->is_array[i],
                   i < f->nparams ? vals[i] : NULL);
        /* the array copy is the local's now (bc_eval_reset frees it): no
         * longer scratch; one not pushed yet stays scratch */
        if (i < f->nparams && f->is_array[i])
            bc_scratch_keep(c, vals[i]);
    }
    bc_scratch_free(c, vals);
    const char *saved_func = c->cur_func;
    unsigned long saved_ibase = c->call_ibase;
    c->cur_func = name;
    c->call_ibase = c->ibase;
    c->depth++;
    int fl = exec(c, f->body);
    c->depth--;
    c->cur_func = saved_func;
    c->call_ibase = saved_ibase;
    for (int i = f->nlocals; i-- > 0;)
        pop_local(c, f->locals[i], f->is_array[i]);
    if (fl == F_HALT) {
        bc_fail(c, BC_QUIT, "halt");
    }
    bc_num *r = c->retval;
    c->retval = NULL;
    return r ? r : zero(c);
}

/* ------------------------------------------------------------ expressions */

static bc_num *eval_num(bc_ctx *c, node *n)
{
    unsigned ib = (unsigned)(c->depth ? c->call_ibase : c->ibase);
    if (!n->cache || n->cache_ibase != ib) {
        bc_num_free(c, n->cache);
        n->cache = NULL;
        n->cache = bc_num_parse(c, n->text, n->len, ib);
        n->cache_ibase = ib;
    }
    return bc_num_ref(n->cache);
}

static bc_num *eval_bin(bc_ctx *c, node *n)
{
    bc_num *a = eval(c, n->a);
    bc_num *b = eval(c, n->b);
    bc_num *r = binary(c, n->op, a, b);
    bc_num_free(c, a);
    bc_num_free(c, b);
    return r;
}

static bc_num *eval_rel(bc_ctx *c, node *n)
{
    bc_num *a = eval(c, n->a);
    bc_num *b = eval(c, n->b);
    int t = relation(n->op, bc_num_cmp(a, b));
    bc_num_free(c, a);
    bc_num_free(c, b);
    return from_long(c, (unsigned long)t);
}

static bc_num *eval_unary(bc_ctx *c, node *n)
{
    bc_num *v = eval(c, n->a), *r;
    switch (n->kind) {
    case N_NEG:
        if (bc_num_is_zero(v) && !v->neg)
            return v;
        if (v->refs > 1) { /* shared: negate a copy */
            r = bc_num_copy(c, v);
            bc_num_free(c, v);
            v = r;
        }
        /* GNU negates as 0 - v: the negative of -0 is 0 */
        v->neg = !v->neg && !bc_num_is_zero(v);
        return v;
    case N_LENGTH:
        r = from_long(c, bc_num_length(c, v));
        break;
    case N_SCALEF:
        r = from_long(c, v->scale);
        break;
    default:
        r = bc_num_sqrt(c, v, c->scale);
        break;
    }
    bc_num_free(c, v);
    return r;
}

/* Next character of read()'s input, -1 at its end. */
static int read_char(bc_ctx *c, int consume)
{
    while (c->rin == c->rin_end) {
        size_t n;
        const char *s = c->cfg.input ? c->cfg.input(c->cfg.input_ud, &n) : NULL;
        if (!s)
            return -1;
        c->rin = s;
        c->rin_end = s + n;
    }
    int ch = (unsigned char)*c->rin;
    if (consume)
        c->rin++;
    return ch;
}

/* read(): the next number of the input, in ibase, as GNU bc reads it:
 * blanks skipped, an optional sign, then digits and letters (lower case as
 * upper) with one point; the character that ends the number is used up, and
 * a number with no digits is 0. */
static bc_num *eval_read(bc_ctx *c)
{
    if (!c->cfg.input)
        bc_fail(c, BC_ERR_RUNTIME, "read() has no input");
    int ch;
    while ((ch = read_char(c, 0)) >= 0 && ch <= ' ')
        read_char(c, 1);
    if (ch < 0)
        bc_fail(c, BC_ERR_RUNTIME, "read(): end of input");
    int neg = ch == '-';
    if (neg || ch == '+')
        read_char(c, 1);
    char text[1024];
    size_t n = 0;
    int point = 0;
    while ((ch = read_char(c, 0)) >= 0 && n < sizeof text) {
        if (ch >= 'a' && ch <= 'z')
            ch -= 'a' - 'A';
        if (!((ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z') ||
              (ch == '.' && !point)))
            break;
        point |= ch == '.';
        text[n++] = (char)ch;
        read_char(c, 1);
    }
    if (ch >= 0)
        read_char(c, 1); /* GNU's lookahead character is lost */
    if (n == 0 || (n == 1 && text[0] == '.'))
        return zero(c);
    bc_num *v = bc_num_parse_read(c, text, n, (unsigned)c->ibase);
    if (neg && !bc_num_is_zero(v))
        v->neg = 1;
    return v;
}

/* a && b is GNU bc's "a, b or 1": a zero operand is the value itself
 * (keeping its scale), as its bytecode leaves it on the stack. */
static bc_num *eval_and(bc_ctx *c, node *n)
{
    bc_num *v = eval(c, n->a);
    if (bc_num_is_zero(v))
        return v;
    bc_num_free(c, v);
    v = eval(c, n->b);
    if (bc_num_is_zero(v))
        return v;
    bc_num_free(c, v);
    return from_long(c, 1);
}

static bc_num *eval(bc_ctx *c, node *n)
{
    switch (n->kind) {
    case N_NUM: return eval_num(c, n);
    case N_VAR: case N_ELEM: case N_SCALE: case N_IBASE: case N_OBASE:
    case N_LAST:
        return load(c, n);
    case N_BIN: return eval_bin(c, n);
    case N_REL: return eval_rel(c, n);
    case N_NEG: case N_LENGTH: case N_SCALEF: case N_SQRT:
        return eval_unary(c, n);
    case N_NOT: return from_long(c, (unsigned long)!truth(c, n->a));
    case N_AND: return eval_and(c, n);
    case N_OR:
        return from_long(c, (unsigned long)(truth(c, n->a) || truth(c, n->b)));
    case N_ASSIGN: return eval_assign(c, n);
    case N_PREINC: case N_PREDEC: case N_POSTINC: case N_POSTDEC:
        return eval_incdec(c, n);
    case N_CALL: return call(c, n);
    case N_ARRAY:
        bc_fail(c, BC_ERR_RUNTIME, "array used as a value");
    default:
        return eval_read(c);
    }
}

/* ------------------------------------------------------------ statements */

static void print_string(bc_ctx *c, const char *s, size_t n, int escapes)
{
    for (size_t i = 0; i < n; i++) {
        if (!escapes || s[i] != '\\' || i + 1 == n) {
            bc_out_char(c, (unsigned char)s[i]);
            continue;
        }
        const char *p = strchr("anbfrtq\\", s[++i]);
        if (p && *p)
            bc_out_char(c, "\a\n\b\f\r\t\"\\"[p - "anbfrtq\\"]);
    }
}

static void print_value(bc_ctx *c, const bc_num *v)
{
    bc_num_print(c, v, c->obase);
}

static void print_limits(bc_ctx *c)
{
    static const char text[] =
        "BC_BASE_MAX     = 2147483647\n"
        "BC_DIM_MAX      = 16777215\n"
        "BC_SCALE_MAX    = 2147483647\n"
        "BC_STRING_MAX   = 2147483647\n"
        "MAX Exponent    = 9223372036854775807\n"
        "Number of vars  = 32767\n";
    print_string(c, text, sizeof text - 1, 0);
}

static void exec_expr(bc_ctx *c, node *s)
{
    node *e = s->a;
    bc_num *v = eval(c, e);
    if ((e->kind == N_ASSIGN && !e->paren) ||
        (e->kind == N_CALL && c->fn[e->id].is_void)) {
        bc_num_free(c, v);
        return;
    }
    print_value(c, v);
    bc_out_char(c, '\n');
    bc_num_free(c, c->last);
    c->last = v;
}

static void exec_print(bc_ctx *c, node *s)
{
    for (node *it = s->a; it; it = it->next) {
        if (it->kind == S_STR) {
            print_string(c, it->text, it->len, 1);
        } else {
            bc_num *v = eval(c, it);
            print_value(c, v);
            bc_num_free(c, c->last);
            c->last = v;
        }
    }
}

static int exec_loop(bc_ctx *c, node *s)
{
    if (s->kind == S_FOR && s->a)
        bc_num_free(c, eval(c, s->a));
    for (;;) {
        if (++c->tick >= 1024)
            bc_check_time(c);
        if (s->kind == S_WHILE ? !truth(c, s->a) : (s->b && !truth(c, s->b)))
            return F_NORMAL;
        int fl = s->d ? exec(c, s->d) : F_NORMAL;
        if (fl == F_BREAK)
            return F_NORMAL;
        if (fl == F_RETURN || fl == F_HALT)
            return fl;
        if (s->kind == S_FOR && s->c)
            bc_num_free(c, eval(c, s->c));
    }
}

static int exec(bc_ctx *c, node *s)
{
    for (; s; s = s->next) {
        c->cur_line = s->line;
        int fl = F_NORMAL;
        switch (s->kind) {
        case S_EXPR: exec_expr(c, s); break;
        case S_STR: print_string(c, s->text, s->len, 0); break;
        case S_PRINT: exec_print(c, s); break;
        case S_BLOCK: fl = exec(c, s->a); break;
        case S_IF:
            if (truth(c, s->a))
                fl = s->b ? exec(c, s->b) : F_NORMAL;
            else if (s->c)
                fl = exec(c, s->c);
            break;
        case S_WHILE: case S_FOR: fl = exec_loop(c, s); break;
        case S_BREAK: return F_BREAK;
        case S_CONTINUE: return F_CONTINUE;
        case S_HALT: return F_HALT;
        case S_RETURN:
            c->retval = s->a ? eval(c, s->a) : NULL;
            return F_RETURN;
        case S_LIMITS: print_limits(c); break;
        default: break;
        }
        if (fl != F_NORMAL)
            return fl;
    }
    return F_NORMAL;
}

/* Runs one top-level item; returns 1 if halt ran. */
int bc_exec_toplevel(bc_ctx *c, node *stmts)
{
    c->cur_func = "(main)";
    c->depth = 0;
    int fl = exec(c, stmts);
    return fl == F_HALT;
}

/* After an error unwound a call: drop the locals still pushed. */
void bc_eval_reset(bc_ctx *c)
{
    for (int id = 0; id < c->vars.n; id++)
        while (c->var_saved[id])
            pop_local(c, id, 0);
    for (int id = 0; id < c->arrays.n; id++)
        while (c->arr_saved[id])
            pop_local(c, id, 1);
    bc_num_free(c, c->retval);
    c->retval = NULL;
    c->depth = 0;
}
