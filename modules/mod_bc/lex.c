/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * lex.c - the bc tokenizer.
 *
 * Splits program text into tokens for parse.c, one at a time, into
 * ctx->tok / tok_text / tok_len.  Follows GNU bc's lexer: numbers are runs
 * of 0-9 and A-Z with at most one point (a backslash-newline inside is
 * skipped), names are lower case, "#" and C comments are skipped, a
 * backslash before a newline joins lines, and a character bc does not know
 * is reported as "illegal character" and skipped.  ctx->line counts
 * newlines consumed, so a newline token already belongs to the next line
 * when the parser reports an error on it, as in GNU bc.
 *
 * Input is one buffer (bc_run) or a stream of lines (bc_run_stream): when
 * the buffer is used up the lexer asks the reader for the next line, and a
 * string, comment or number that goes on past the end of a line is first
 * gathered, with the lines it needs, into a buffer of the lexer's own.  The
 * text of the previous line is never needed again: the parser copies what
 * it keeps, and asks for a new line only after a newline token.
 */
#include <string.h>
#include "bcint.h"

static const struct { const char *w; int tok; } keywords[] = {
    {"auto", K_AUTO}, {"break", K_BREAK}, {"continue", K_CONTINUE},
    {"define", K_DEFINE}, {"else", K_ELSE}, {"for", K_FOR},
    {"halt", K_HALT}, {"ibase", K_IBASE}, {"if", K_IF}, {"last", K_LAST},
    {"length", K_LENGTH}, {"limits", K_LIMITS}, {"obase", K_OBASE},
    {"print", K_PRINT}, {"quit", K_QUIT}, {"read", K_READ},
    {"return", K_RETURN}, {"scale", K_SCALE}, {"sqrt", K_SQRT},
    {"void", K_VOID}, {"warranty", K_WARRANTY}, {"while", K_WHILE},
};

void bc_lex_init(bc_ctx *c, const char *src, size_t len)
{
    c->src = c->pos = src;
    c->end = src + len;
    c->line = 1;
}

/* The next line from the reader, counted against the program size limit;
 * NULL at the end of the input. */
static const char *read_more(bc_ctx *c, size_t *n)
{
    const char *s = NULL;
    while (c->reader && !s) {
        s = c->reader(c->reader_ud, n);
        if (!s)
            c->reader = NULL;
        else if (*n == 0)
            s = NULL;
    }
    if (s) {
        c->total_in += *n;
        if (c->cfg.max_program && c->total_in > c->cfg.max_program)
            bc_fail(c, BC_ERR_PROGSIZE, "more than %zu bytes of program",
                    c->cfg.max_program);
    }
    return s;
}

/* When the buffer is used up, moves on to the next line; 0 at the end. */
static int refill(bc_ctx *c)
{
    size_t n;
    const char *s = read_more(c, &n);
    if (!s)
        return 0;
    c->src = c->pos = s;
    c->end = s + n;
    return 1;
}

/* Appends the next line to a copy of the unread text, so that a token can
 * span lines; c->pos moves to the copy.  0 at the end of the input.  The
 * unread text is saved first: the reader may reuse its buffer. */
static int extend(bc_ctx *c)
{
    if (!c->reader)
        return 0;
    size_t have = (size_t)(c->end - c->pos), n;
    char *old = bc_alloc(c, have);
    memcpy(old, c->pos, have);
    bc_free(c, c->own);
    c->own = old;
    c->src = c->pos = old;
    c->end = old + have;
    const char *s = read_more(c, &n);
    if (!s)
        return 0;
    char *nb = bc_alloc(c, have + n);
    memcpy(nb, old, have);
    memcpy(nb + have, s, n);
    bc_free(c, old);
    c->own = nb;
    c->src = c->pos = nb;
    c->end = nb + have + n;
    return 1;
}

static int is_digit(int ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z');
}

static int is_name(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
}

static int peek(bc_ctx *c, size_t k)
{
    return c->pos + k < c->end ? (unsigned char)c->pos[k] : -1;
}

/* Does "ab" occur in [p, end)? */
static int find2(const char *p, const char *end, char a, char b)
{
    for (; p + 1 < end; p++)
        if (p[0] == a && p[1] == b)
            return 1;
    return 0;
}

/* Skips blanks, comments and backslash-newlines; 0, or -1 at an
 * unterminated comment (reported). */
static int skip_space(bc_ctx *c)
{
    for (;;) {
        int ch = peek(c, 0);
        if (ch < 0 && refill(c))
            continue;
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            c->pos++;
        } else if (ch == '\\' && peek(c, 1) == '\n') {
            c->pos += 2;
            c->line++;
        } else if (ch == '#') {
            while (c->pos < c->end && *c->pos != '\n')
                c->pos++;
        } else if (ch == '/' && peek(c, 1) == '*') {
            while (!find2(c->pos + 2, c->end, '*', '/') && extend(c))
                ; /* extend() moves the text: c->pos is where it is now */
            const char *p = c->pos + 2;
            for (; p + 1 < c->end && !(p[0] == '*' && p[1] == '/'); p++)
                if (*p == '\n')
                    c->line++;
            if (p + 1 >= c->end) {
                c->pos = c->end;
                bc_warn(c, "EOF encountered in a comment.");
                return -1;
            }
            c->pos = p + 2;
        } else {
            return 0;
        }
    }
}

/* Where the number at c->pos ends; *at_end if it runs into the end of the
 * buffer after a backslash-newline (it may go on in the next line). */
static const char *number_end(const bc_ctx *c, int *at_end)
{
    const char *p = c->pos;
    int point = 0, joined = 0;
    for (;;) {
        if (p < c->end && (is_digit((unsigned char)*p) || (*p == '.' && !point))) {
            point |= *p == '.';
            p++;
            joined = 0;
        } else if (p + 1 < c->end && p[0] == '\\' && p[1] == '\n') {
            p += 2;
            joined = 1;
        } else {
            break;
        }
    }
    *at_end = joined && p == c->end;
    return p;
}

static void lex_number(bc_ctx *c)
{
    int at_end;
    number_end(c, &at_end);
    while (at_end && extend(c))
        number_end(c, &at_end);
    /* GNU strips backslash-newlines inside numbers; keep them out of
     * the text by copying only when one occurs. */
    const char *start = c->pos;
    int point = 0, joined = 0;
    for (;;) {
        int ch = peek(c, 0);
        if (is_digit(ch)) {
            c->pos++;
        } else if (ch == '.' && !point) {
            point = 1;
            c->pos++;
        } else if (ch == '\\' && peek(c, 1) == '\n') {
            c->pos += 2;
            c->line++;
            joined = 1;
        } else {
            break;
        }
    }
    c->tok = T_NUM;
    c->tok_text = start;
    c->tok_len = (size_t)(c->pos - start);
    if (joined) {
        char *t = bc_alloc(c, c->tok_len);
        c->tok_own = t; /* freed with the next token, or by bc_destroy */
        size_t k = 0;
        for (const char *p = start; p < c->pos; p++) {
            if (*p == '\\' && p[1] == '\n')
                p++;
            else
                t[k++] = *p;
        }
        c->tok_text = t;
        c->tok_len = k;
    }
}

static void lex_name(bc_ctx *c)
{
    const char *start = c->pos;
    while (c->pos < c->end && is_name((unsigned char)*c->pos))
        c->pos++;
    c->tok_text = start;
    c->tok_len = (size_t)(c->pos - start);
    c->tok = T_NAME;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strlen(keywords[i].w) == c->tok_len &&
            memcmp(keywords[i].w, start, c->tok_len) == 0)
            c->tok = keywords[i].tok;
}

/* A string; returns 0 if it is unterminated (then '"' is illegal). */
static int lex_string(bc_ctx *c)
{
    while (!memchr(c->pos + 1, '"', (size_t)(c->end - c->pos - 1)) && extend(c))
        ;
    const char *p = c->pos + 1;
    int lines = 0;
    while (p < c->end && *p != '"') {
        if (*p == '\n')
            lines++;
        p++;
    }
    if (p >= c->end)
        return 0;
    c->tok = T_STR;
    c->tok_text = c->pos + 1;
    c->tok_len = (size_t)(p - c->pos - 1);
    c->line += lines;
    c->pos = p + 1;
    return 1;
}

/* Operators; returns 0 for a character bc does not know. */
static int lex_op(bc_ctx *c, int ch)
{
    int n1 = peek(c, 1);
    c->tok_text = c->pos;
    c->tok_len = 1;
    switch (ch) {
    case '+': case '-':
        if (n1 == ch) {
            c->tok = ch == '+' ? T_INC : T_DEC;
            c->tok_len = 2;
            break;
        }
        /* fall through */
    case '*': case '/': case '%': case '^':
        if (n1 == '=') {
            c->tok = T_OPASSIGN;
            c->tok_len = 2;
        } else {
            c->tok = ch;
        }
        break;
    case '=': case '<': case '>': case '!':
        if (n1 == '=') {
            c->tok = T_REL;
            c->tok_len = 2;
        } else if (ch == '=') {
            c->tok = T_ASSIGN;
        } else {
            c->tok = ch == '!' ? '!' : T_REL;
        }
        break;
    case '&': case '|':
        if (n1 != ch)
            return 0;
        c->tok = ch == '&' ? T_AND : T_OR;
        c->tok_len = 2;
        break;
    case '(': case ')': case '[': case ']': case '{': case '}': case ',':
    case ';':
        c->tok = ch;
        break;
    default:
        return 0;
    }
    c->pos += c->tok_len;
    return 1;
}

void bc_lex_next(bc_ctx *c)
{
    /* the parser copies what it keeps of a token before reading the next */
    bc_free(c, c->tok_own);
    c->tok_own = NULL;
    c->ntok++;
    for (;;) {
        if (skip_space(c) < 0 || c->pos >= c->end) {
            c->tok = T_EOF;
            c->tok_line = c->line;
            return;
        }
        int ch = (unsigned char)*c->pos;
        c->tok_line = c->line;
        if (ch == '\n') {
            c->tok = T_NL;
            c->pos++;
            c->line++;
            return;
        }
        if (is_digit(ch) || (ch == '.' && is_digit(peek(c, 1)))) {
            lex_number(c);
            return;
        }
        if (ch == '.') {
            c->tok = K_LAST;
            c->pos++;
            return;
        }
        if (ch >= 'a' && ch <= 'z') {
            lex_name(c);
            return;
        }
        if (ch == '"' && lex_string(c))
            return;
        if (ch != '"' && lex_op(c, ch))
            return;
        c->pos++;
        c->cur_line = c->line;
        bc_warn(c, "%s %d: illegal character: %c", c->input_name, c->line,
                ch);
        if (c->worst < BC_ERR_SYNTAX)
            c->worst = BC_ERR_SYNTAX;
        c->item_error = 1; /* GNU's yyerror: the line does not run */
    }
}
