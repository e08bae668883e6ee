/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * parse.c - the bc parser: tokens to syntax trees, one input item at a time.
 *
 * An input item is what GNU bc runs at once: the statements up to the end
 * of a line (braces may span lines), or one function definition, which is
 * stored in the context's function table.  Operator precedence follows GNU
 * bc's grammar, lowest first: || && ! relations assignment + - * / % ^
 * unary-minus ++/--.  Assignment binds to the named expression just before
 * it ("2 + a = 3" is "2 + (a = 3)"), and "!" takes the relation after it.
 * quit stops bc as soon as it is read, as in GNU bc.  Syntax errors unwind
 * here through ctx->jmp; the parser then skips to the next newline.
 *
 * Every node and text of the item being parsed is a scratch block
 * (unwind.c), so that a syntax error or a limit unwinding from anywhere
 * frees what was built: stmt_or_error() frees a failed statement's blocks
 * before parsing resumes (nothing built outside the statement points into
 * it: its nodes are linked to the rest only when it returns), and
 * bc_parse_item() frees all of an item with an error, or hands all of a
 * clean item's blocks to its tree or the function table.
 */
#include <stdio.h>
#include <string.h>
#include "bcint.h"

enum { P_OR = 1, P_AND, P_NOT, P_REL, P_ASSIGN, P_ADD, P_MUL, P_POW };

_Noreturn static void syntax(bc_ctx *c)
{
    bc_fail(c, BC_ERR_SYNTAX, "syntax error");
}

/* Errors GNU bc finds in its grammar's actions: reported, and the item is
 * not run, but parsing goes on undisturbed. */
static void parse_error(bc_ctx *c, const char *msg)
{
    bc_report(c, BC_ERR_SYNTAX, msg);
    c->item_error = 1;
}

static node *mk(bc_ctx *c, int kind)
{
    node *n = bc_scratch_alloc(c, sizeof *n);
    memset(n, 0, sizeof *n);
    n->kind = (unsigned char)kind;
    n->line = c->tok_line;
    return n;
}

static void next(bc_ctx *c)
{
    c->prev_line = c->tok_line;
    bc_lex_next(c);
}

/* ------------------------------------------------------------ void checks
 * A call of a function defined void has no value.  GNU bc reports each use
 * of one where a value is needed when it reduces the grammar rule, naming
 * the line of yacc's lookahead token (a newline counts for the next line)
 * or, for rules reduced without one, of the rule's last token. */

static int is_void(bc_ctx *c, const node *n)
{
    return n && n->kind == N_CALL && c->fn[n->id].defined &&
           c->fn[n->id].is_void;
}

static void parse_error(bc_ctx *c, const char *msg);

/* Reports @p msg if @p n is void; @p at_last: at the last token's line. */
static void void_check(bc_ctx *c, const node *n, const char *msg, int at_last)
{
    if (!is_void(c, n))
        return;
    int line = c->line;
    if (at_last)
        c->line = c->prev_line;
    parse_error(c, msg);
    c->line = line;
}

static void expect(bc_ctx *c, int tok)
{
    if (c->tok != tok)
        syntax(c);
    next(c);
}

static void skip_newlines(bc_ctx *c)
{
    while (c->tok == T_NL)
        next(c);
}

static char *copy_text(bc_ctx *c, const char *s, size_t n)
{
    char *t = bc_scratch_alloc(c, n + 1);
    memcpy(t, s, n);
    t[n] = 0;
    return t;
}

/* ------------------------------------------------------------ expressions */

static node *parse_expr(bc_ctx *c, int min);

static int is_named(const node *n)
{
    return n->kind == N_VAR || n->kind == N_ELEM || n->kind == N_SCALE ||
           n->kind == N_IBASE || n->kind == N_OBASE || n->kind == N_LAST;
}

/* Is the name just read followed by "[]" (a whole array as an argument)? */
static int array_ref_follows(const bc_ctx *c)
{
    const char *p = c->pos;
    while (p < c->end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == c->end || *p++ != '[')
        return 0;
    while (p < c->end && (*p == ' ' || *p == '\t'))
        p++;
    return p < c->end && *p == ']';
}

static node *parse_args(bc_ctx *c, node *call)
{
    node **tail = &call->a;
    if (c->tok == ')') {
        next(c);
        return call;
    }
    for (;;) {
        node *arg;
        if (c->tok == T_NAME && array_ref_follows(c)) {
            arg = mk(c, N_ARRAY);
            arg->id = bc_sym_array(c, c->tok_text, c->tok_len);
            next(c);
            next(c);
            next(c);
        } else {
            arg = parse_expr(c, P_OR);
            void_check(c, arg, "void argument", 0);
        }
        *tail = arg;
        tail = &arg->next;
        if (c->tok == ')') {
            next(c);
            return call;
        }
        expect(c, ',');
    }
}

/* The current token's text, kept in @p stack or, if longer, in a block the
 * caller frees with release_text(): reading the next token may read the
 * next line over the text. */
static char *hold_text(bc_ctx *c, char *stack, size_t cap, size_t *len)
{
    *len = c->tok_len;
    char *t = *len <= cap ? stack : bc_scratch_alloc(c, *len);
    memcpy(t, c->tok_text, *len);
    return t;
}

static void release_text(bc_ctx *c, char *t, const char *stack)
{
    if (t != stack)
        bc_scratch_free(c, t);
}

static node *parse_name_rest(bc_ctx *c, const char *nm, size_t nl)
{
    if (c->tok == '(') {
        next(c);
        node *n = mk(c, N_CALL);
        n->id = bc_sym_func(c, nm, nl);
        return parse_args(c, n);
    }
    if (c->tok == '[') {
        next(c);
        node *n = mk(c, N_ELEM);
        n->id = bc_sym_array(c, nm, nl);
        n->a = parse_expr(c, P_OR);
        void_check(c, n->a, "void expression as subscript", 0);
        expect(c, ']');
        return n;
    }
    node *n = mk(c, N_VAR);
    n->id = bc_sym_var(c, nm, nl);
    return n;
}

/* A name: a variable, an array element or a call. */
static node *parse_name(bc_ctx *c)
{
    char held[64];
    size_t nl;
    char *nm = hold_text(c, held, sizeof held, &nl);
    next(c);
    node *n = parse_name_rest(c, nm, nl);
    release_text(c, nm, held);
    return n;
}

/* builtin(expr) for length, sqrt and scale() */
static node *parse_builtin(bc_ctx *c, int kind)
{
    static const char *msg[] = {"void expression in length()",
                                "void expression in scale()",
                                "void expression in sqrt()"};
    node *n = mk(c, kind);
    next(c);
    expect(c, '(');
    n->a = parse_expr(c, P_OR);
    void_check(c, n->a, msg[kind == N_LENGTH ? 0 : kind == N_SCALEF ? 1 : 2], 0);
    expect(c, ')');
    return n;
}

static node *parse_primary(bc_ctx *c)
{
    node *n;
    switch (c->tok) {
    case T_NUM:
        n = mk(c, N_NUM);
        n->text = copy_text(c, c->tok_text, c->tok_len);
        n->len = c->tok_len;
        next(c);
        return n;
    case '(':
        next(c);
        n = parse_expr(c, P_OR);
        void_check(c, n, "void expression in parenthesis", 0);
        expect(c, ')');
        n->paren = 1;
        return n;
    case T_NAME:
        return parse_name(c);
    case K_SCALE: {
        const char *p = c->pos;
        while (p < c->end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < c->end && *p == '(')
            return parse_builtin(c, N_SCALEF);
        n = mk(c, N_SCALE);
        next(c);
        return n;
    }
    case K_IBASE: n = mk(c, N_IBASE); next(c); return n;
    case K_OBASE: n = mk(c, N_OBASE); next(c); return n;
    case K_LAST: n = mk(c, N_LAST); next(c); return n;
    case K_LENGTH: return parse_builtin(c, N_LENGTH);
    case K_SQRT: return parse_builtin(c, N_SQRT);
    case K_READ:
        n = mk(c, N_READ);
        next(c);
        expect(c, '(');
        expect(c, ')');
        return n;
    default:
        syntax(c);
    }
}

static node *parse_prefix(bc_ctx *c);

/* After a named expression: postfix ++/--, or an assignment. */
static node *parse_postfix(bc_ctx *c, node *n)
{
    if (!is_named(n))
        return n;
    if (c->tok == T_INC || c->tok == T_DEC) {
        node *p = mk(c, c->tok == T_INC ? N_POSTINC : N_POSTDEC);
        p->a = n;
        next(c);
        return p;
    }
    if (c->tok == T_ASSIGN || c->tok == T_OPASSIGN) {
        node *a = mk(c, N_ASSIGN);
        a->op = c->tok == T_ASSIGN ? 0 : (unsigned char)c->tok_text[0];
        next(c);
        a->a = n;
        a->b = parse_expr(c, P_ASSIGN);
        void_check(c, a->b, "Assignment of a void expression", 0);
        return a;
    }
    return n;
}

static node *parse_prefix(bc_ctx *c)
{
    node *n;
    switch (c->tok) {
    case '!':
        n = mk(c, N_NOT);
        next(c);
        n->a = parse_expr(c, P_REL);
        void_check(c, n->a, "void expression with !", 0);
        return n;
    case '-':
        n = mk(c, N_NEG);
        next(c);
        n->a = parse_prefix(c);
        void_check(c, n->a, "void expression with unary -", 1);
        return n;
    case T_INC:
    case T_DEC: {
        n = mk(c, c->tok == T_INC ? N_PREINC : N_PREDEC);
        next(c);
        if (c->tok != T_NAME && c->tok != K_SCALE && c->tok != K_IBASE &&
            c->tok != K_OBASE && c->tok != K_LAST)
            syntax(c);
        node *t = parse_primary(c);
        if (!is_named(t))
            syntax(c);
        n->a = t;
        return n;
    }
    default:
        return parse_postfix(c, parse_primary(c));
    }
}

/* Precedence of the binary operator at the current token, 0 if none. */
static int binary_prec(bc_ctx *c)
{
    switch (c->tok) {
    case T_OR: return P_OR;
    case T_AND: return P_AND;
    case T_REL: return P_REL;
    case '+': case '-': return P_ADD;
    case '*': case '/': case '%': return P_MUL;
    case '^': return P_POW;
    default: return 0;
    }
}

static int rel_code(const char *t, size_t n)
{
    if (n == 2) {
        switch (t[0]) {
        case '=': return REL_EQ;
        case '!': return REL_NE;
        case '<': return REL_LE;
        default: return REL_GE;
        }
    }
    return t[0] == '<' ? REL_LT : REL_GT;
}

static void binary_void_check(bc_ctx *c, const node *n)
{
    char msg[40];
    const node *v = is_void(c, n->a) ? n->a : n->b;
    if (n->kind == N_AND || n->kind == N_OR)
        snprintf(msg, sizeof msg, "void expression with %s",
                 n->kind == N_AND ? "&&" : "||");
    else if (n->kind == N_REL)
        snprintf(msg, sizeof msg, "void expression with comparison");
    else
        snprintf(msg, sizeof msg, "void expression with %c", n->op);
    void_check(c, v, msg, 0);
}

static node *parse_expr(bc_ctx *c, int min)
{
    node *left = parse_prefix(c);
    for (;;) {
        int p = binary_prec(c);
        if (p == 0 || p < min)
            return left;
        node *n;
        if (c->tok == T_OR || c->tok == T_AND) {
            n = mk(c, c->tok == T_OR ? N_OR : N_AND);
        } else if (c->tok == T_REL) {
            n = mk(c, N_REL);
            n->op = (unsigned char)rel_code(c->tok_text, c->tok_len);
        } else {
            n = mk(c, N_BIN);
            n->op = (unsigned char)c->tok;
        }
        next(c);
        n->a = left;
        n->b = parse_expr(c, p == P_POW ? p : p + 1);
        binary_void_check(c, n);
        left = n;
    }
}

/* ------------------------------------------------------------ statements */

typedef struct pstate {
    int loops;    /* enclosing while/for bodies */
    int in_func;
    int in_void;
} pstate;

static node *parse_stmt(bc_ctx *c, pstate *ps);

/* ------------------------------------------------------------ recovery
 * GNU bc's grammar recovers from syntax errors with two yacc rules: at the
 * start of a line "error NEWLINE" (which also resets yacc's error state,
 * yyerrok), and wherever a statement may start "error statement".  After an
 * error yacc drops tokens until one fits, and stays silent about further
 * errors until it has shifted three tokens.  These functions do the same. */

static int starts_stmt(int tok)
{
    switch (tok) {
    case T_NUM: case T_NAME: case T_STR: case '(': case '-': case '!':
    case T_INC: case T_DEC: case '{':
    case K_BREAK: case K_CONTINUE: case K_FOR: case K_HALT: case K_IBASE:
    case K_IF: case K_LAST: case K_LENGTH: case K_LIMITS: case K_OBASE:
    case K_PRINT: case K_QUIT: case K_READ: case K_RETURN: case K_SCALE:
    case K_SQRT: case K_WARRANTY: case K_WHILE:
        return 1;
    default:
        return 0;
    }
}

enum { R_STMT, R_LINE_DONE, R_EOF };

/* Drops tokens after a syntax error until a statement can start (R_STMT)
 * or, at the start of a line, until a newline is consumed (R_LINE_DONE). */
static int recover(bc_ctx *c, int line_start)
{
    c->item_error = 1;
    for (;;) {
        if (c->tok == T_EOF)
            return R_EOF;
        if (line_start && c->tok == T_NL) {
            /* left for the next item to skip: reading on would wait */
            c->had_syntax_error = 0; /* yyerrok */
            return R_LINE_DONE;
        }
        if (starts_stmt(c->tok)) {
            c->err_ntok = c->ntok - 1;
            return R_STMT;
        }
        next(c);
    }
}

/* A statement, or after a syntax error in it, whatever recovery leaves:
 * *how is R_STMT normally, else what recover() returned. */
static node *stmt_or_error(bc_ctx *c, pstate *ps, int line_start, int *how)
{
    jmp_buf jb, *saved = c->jmp;
    pstate keep = *ps;
    size_t mark = c->scr_n;
    for (;;) {
        c->jmp = &jb;
        if (setjmp(jb) == 0) {
            node *s = parse_stmt(c, ps);
            c->jmp = saved;
            *how = R_STMT;
            return s;
        }
        c->jmp = saved;
        *ps = keep;
        bc_scratch_release(c, mark); /* the statement's nodes and names */
        if (c->failed != BC_ERR_SYNTAX)
            longjmp(*saved, 1); /* a limit: not ours to recover from */
        *how = recover(c, line_start);
        if (*how != R_STMT)
            return NULL;
    }
}

/* Input ended while recovering: yacc gives up without another message. */
_Noreturn static void give_up(bc_ctx *c)
{
    c->failed = BC_ERR_SYNTAX;
    longjmp(*c->jmp, 1);
}

/* An unexpected token between statements: report it and recover. */
static int list_error(bc_ctx *c, int line_start)
{
    bc_report(c, BC_ERR_SYNTAX, "syntax error");
    return recover(c, line_start);
}

/* statement_list inside braces: statements separated by ; and newlines */
static node *parse_block(bc_ctx *c, pstate *ps)
{
    node *b = mk(c, S_BLOCK);
    node **tail = &b->a;
    for (;;) {
        while (c->tok == ';' || c->tok == T_NL)
            next(c);
        if (c->tok == '}') {
            next(c);
            return b;
        }
        int how;
        node *s = stmt_or_error(c, ps, 0, &how);
        if (how == R_EOF)
            give_up(c);
        if (s) {
            *tail = s;
            tail = &s->next;
        }
        if (c->tok != ';' && c->tok != T_NL && c->tok != '}' &&
            list_error(c, 0) == R_EOF)
            give_up(c);
    }
}

static node *parse_print(bc_ctx *c)
{
    node *p = mk(c, S_PRINT);
    node **tail = &p->a;
    next(c);
    for (;;) {
        node *item;
        if (c->tok == T_STR) {
            item = mk(c, S_STR);
            item->text = copy_text(c, c->tok_text, c->tok_len);
            item->len = c->tok_len;
            next(c);
        } else {
            item = parse_expr(c, P_OR);
            void_check(c, item, "void expression in print", 0);
        }
        *tail = item;
        tail = &item->next;
        if (c->tok != ',')
            return p;
        next(c);
    }
}

/* The "(condition)" after if or while, whose keyword is the current token. */
static node *parse_cond(bc_ctx *c)
{
    next(c);
    expect(c, '(');
    node *cond = parse_expr(c, P_OR);
    void_check(c, cond, "void expression", 0);
    expect(c, ')');
    return cond;
}

static node *parse_if(bc_ctx *c, pstate *ps)
{
    node *n = mk(c, S_IF);
    n->a = parse_cond(c);
    skip_newlines(c);
    n->b = parse_stmt(c, ps);
    if (c->tok == K_ELSE) {
        next(c);
        skip_newlines(c);
        n->c = parse_stmt(c, ps);
    }
    return n;
}

static node *parse_loop_body(bc_ctx *c, pstate *ps)
{
    skip_newlines(c);
    ps->loops++;
    node *b = parse_stmt(c, ps);
    ps->loops--;
    return b;
}

static node *parse_while(bc_ctx *c, pstate *ps)
{
    node *n = mk(c, S_WHILE);
    n->a = parse_cond(c);
    n->d = parse_loop_body(c, ps);
    return n;
}

static node *opt_expr(bc_ctx *c, int end)
{
    if (c->tok == end)
        return NULL;
    return parse_expr(c, P_OR);
}

static node *parse_for(bc_ctx *c, pstate *ps)
{
    node *n = mk(c, S_FOR);
    next(c);
    expect(c, '(');
    n->a = opt_expr(c, ';');
    expect(c, ';');
    n->b = opt_expr(c, ';');
    void_check(c, n->b, "second expression is void", 0);
    expect(c, ';');
    n->c = opt_expr(c, ')');
    expect(c, ')');
    n->d = parse_loop_body(c, ps);
    return n;
}

static node *parse_return(bc_ctx *c, pstate *ps)
{
    node *n = mk(c, S_RETURN);
    next(c);
    if (c->tok == ';' || c->tok == T_NL || c->tok == '}' || c->tok == T_EOF ||
        c->tok == K_ELSE)
        goto done;
    if (c->tok == '(') {
        /* "return ()" returns 0 */
        const char *p = c->pos;
        while (p < c->end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < c->end && *p == ')') {
            next(c);
            next(c);
            goto done;
        }
    }
    if (ps->in_void)
        parse_error(c, "Return expression in a void function.");
    n->a = parse_expr(c, P_OR);
    void_check(c, n->a, "return requires non-void expression", 0);
done:
    /* GNU notices this when the statement ends, after its lookahead */
    if (!ps->in_func)
        parse_error(c, "Return outside of a function.");
    return n;
}

/* One statement; NULL for an empty one. */
static node *parse_stmt(bc_ctx *c, pstate *ps)
{
    node *n;
    switch (c->tok) {
    case ';': case T_NL: case '}': case T_EOF:
        return NULL;
    case '{':
        next(c);
        return parse_block(c, ps);
    case T_STR:
        n = mk(c, S_STR);
        n->text = copy_text(c, c->tok_text, c->tok_len);
        n->len = c->tok_len;
        next(c);
        return n;
    case K_PRINT: return parse_print(c);
    case K_IF: return parse_if(c, ps);
    case K_WHILE: return parse_while(c, ps);
    case K_FOR: return parse_for(c, ps);
    case K_RETURN: return parse_return(c, ps);
    case K_BREAK:
    case K_CONTINUE:
        if (!ps->loops)
            parse_error(c, c->tok == K_BREAK ? "Break outside a for/while"
                                             : "Continue outside a for");
        n = mk(c, c->tok == K_BREAK ? S_BREAK : S_CONTINUE);
        next(c);
        return n;
    case K_HALT: n = mk(c, S_HALT); next(c); return n;
    case K_LIMITS: n = mk(c, S_LIMITS); next(c); return n;
    case K_WARRANTY: n = mk(c, S_WARRANTY); next(c); return n;
    case K_QUIT:
        bc_fail(c, BC_QUIT, "quit");
    default:
        n = mk(c, S_EXPR);
        n->a = parse_expr(c, P_OR);
        return n;
    }
}

/* ------------------------------------------------------------ functions */

static void add_local(bc_ctx *c, bc_func *f, int *cap, int id, int is_arr,
                      const char *dupmsg)
{
    for (int i = 0; i < f->nlocals; i++)
        if (f->locals[i] == id && f->is_array[i] == is_arr)
            parse_error(c, dupmsg);
    if (f->nlocals == *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        /* scratch until the definition is stored: an error in it unwinds */
        int *nl = bc_scratch_alloc(c, (size_t)ncap * sizeof *nl);
        unsigned char *na = bc_scratch_alloc(c, (size_t)ncap);
        if (f->nlocals) {
            memcpy(nl, f->locals, (size_t)f->nlocals * sizeof *nl);
            memcpy(na, f->is_array, (size_t)f->nlocals);
        }
        if (f->locals) {
            bc_scratch_free(c, f->locals);
            bc_scratch_free(c, f->is_array);
        }
        f->locals = nl;
        f->is_array = na;
        *cap = ncap;
    }
    f->locals[f->nlocals] = id;
    f->is_array[f->nlocals++] = (unsigned char)is_arr;
}

/* name or name[] (a leading '*' for GNU's array references is accepted) */
static void parse_local(bc_ctx *c, bc_func *f, int *cap, const char *dupmsg)
{
    if (c->tok == '*')
        next(c);
    if (c->tok != T_NAME)
        syntax(c);
    char held[64];
    size_t nl;
    char *nm = hold_text(c, held, sizeof held, &nl);
    next(c);
    if (c->tok == '[') {
        next(c);
        expect(c, ']');
        add_local(c, f, cap, bc_sym_array(c, nm, nl), 1, dupmsg);
    } else {
        add_local(c, f, cap, bc_sym_var(c, nm, nl), 0, dupmsg);
    }
    release_text(c, nm, held);
}

static void parse_define(bc_ctx *c)
{
    bc_func f;
    memset(&f, 0, sizeof f);
    int cap = 0;
    next(c);
    if (c->tok == K_VOID) {
        f.is_void = 1;
        next(c);
    }
    if (c->tok != T_NAME)
        syntax(c);
    int id = bc_sym_func(c, c->tok_text, c->tok_len);
    c->fn[id].defined = 0; /* as in GNU bc, a failed definition leaves none */
    next(c);
    expect(c, '(');
    while (c->tok != ')') {
        parse_local(c, &f, &cap, "duplicate parameter names");
        if (c->tok != ')')
            expect(c, ',');
    }
    next(c);
    f.nparams = f.nlocals;
    skip_newlines(c);
    expect(c, '{');
    skip_newlines(c);
    if (c->tok == K_AUTO) {
        next(c);
        for (;;) {
            parse_local(c, &f, &cap, "duplicate auto variable names");
            if (c->tok != ',')
                break;
            next(c);
        }
        if (c->tok != ';' && c->tok != T_NL)
            syntax(c);
        next(c);
    }
    pstate ps = {0, 1, f.is_void};
    f.body = parse_block(c, &ps);
    if (c->item_error)
        return; /* reported; GNU bc leaves it undefined */
    /* f's blocks stay scratch until bc_parse_item() hands the item's over,
     * and nothing can fail before it does */
    bc_func *old = &c->fn[id];
    bc_node_free(c, old->body); /* a redefinition replaces the function */
    bc_free(c, old->locals);
    bc_free(c, old->is_array);
    f.defined = 1;
    *old = f;
}

/* ------------------------------------------------------------ items */

/* Parses one item (a line of statements, or a definition) into *out. */
static void parse_line(bc_ctx *c, node **out)
{
    pstate ps = {0, 0, 0};
    node *head = NULL, **tail = &head;
    int line_start = 1, how;
    if (c->tok == K_DEFINE) {
        parse_define(c);
        *out = NULL;
        return;
    }
    for (;;) {
        node *s = stmt_or_error(c, &ps, line_start, &how);
        if (how != R_STMT)
            break;
        if (s) {
            *tail = s;
            tail = &s->next;
        }
        if (c->tok == ';') {
            next(c);
            line_start = 0;
            continue;
        }
        if (c->tok == T_NL)
            break; /* not consumed: reading on would wait for more input */
        if (c->tok == T_EOF)
            break;
        /* yacc pops back to the line's start to recover from this one */
        line_start = 1;
        if (list_error(c, 1) != R_STMT)
            break;
    }
    *out = head;
}

bc_parse_result bc_parse_item(bc_ctx *c, node **out)
{
    jmp_buf jb, *saved = c->jmp;
    size_t mark = c->scr_n;
    *out = NULL;
    c->item_error = 0;
    c->jmp = &jb;
    if (setjmp(jb)) {
        c->jmp = saved;
        bc_scratch_release(c, mark); /* the item's nodes, a parameter list */
        if (c->failed == BC_QUIT)
            return P_QUIT;
        if (c->failed != BC_ERR_SYNTAX)
            longjmp(*saved, 1); /* a limit: not ours to recover from */
        /* an error outside any statement (in a definition's header, or
         * at the end of the input): drop the rest of the line */
        if (recover(c, 1) == R_STMT)
            while (c->tok != T_NL && c->tok != T_EOF)
                next(c);
        return P_ERROR;
    }
    while (c->tok == T_NL)
        next(c);
    if (c->tok == T_EOF) {
        c->jmp = saved;
        return P_EOF;
    }
    parse_line(c, out);
    c->jmp = saved;
    if (c->item_error) {
        bc_scratch_release(c, mark);
        *out = NULL;
        return P_ERROR;
    }
    bc_scratch_keep_above(c, mark); /* *out or c->fn[] owns them now */
    return P_ITEM;
}

void bc_node_free(bc_ctx *c, node *n)
{
    while (n) {
        node *nx = n->next;
        bc_node_free(c, n->a);
        bc_node_free(c, n->b);
        bc_node_free(c, n->c);
        bc_node_free(c, n->d);
        if (n->text)
            bc_free(c, (void *)n->text);
        bc_num_free(c, n->cache);
        bc_free(c, n);
        n = nx;
    }
}
