/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * bcint.h - internal structures of the bc interpreter.
 *
 * Glossary: a bc_num is an arbitrary-precision decimal, an integer mantissa
 * in base 10^9 limbs with a decimal scale; a node is one piece of the syntax
 * tree the parser builds and the evaluator walks; the context (bc_ctx) holds
 * every piece of interpreter state: memory hooks, limits, the symbol tables,
 * the values of variables and arrays, function definitions and the output
 * column.  Errors unwind to bc_run() through ctx->jmp (bc_fail()); what
 * the unwound code held is recovered by unwind.c (see there).
 */
#ifndef BCINT_H
#define BCINT_H

#include <setjmp.h>
#include <stdint.h>
#include <stddef.h>
#include "bc.h"

/* ---------------------------------------------------------------- numbers */

typedef uint32_t bc_limb;
#define BC_BASE 1000000000u /* one limb holds nine decimal digits */
#define BC_LIMB_DIGITS 9

/* value = (neg ? -1 : 1) * mantissa(d[0..len)) / 10^scale */
typedef struct bc_num {
    struct bc_num *next, *prev; /* every live number of the context
                                   (ctx->nums), for unwind.c's sweep */
    size_t len;   /* limbs in use; 0 means zero; d[len-1] != 0 */
    size_t cap;   /* limbs allocated */
    size_t scale; /* decimal digits after the point (kept, as bc keeps them) */
    unsigned refs; /* owners; a number with refs > 1 is never modified */
    int neg;      /* 1 for negative; on zero, GNU bc's -0 (num.c says
                     which operations make and keep it) */
    bc_limb d[];  /* little-endian base-10^9 digits */
} bc_num;

struct bc_ctx;

bc_num *bc_num_new(struct bc_ctx *c, size_t cap);
/* Drops one reference; the number is freed with its last one. */
void bc_num_free(struct bc_ctx *c, bc_num *n);
/* Frees @p n whatever its refs (unwind.c's sweep). */
void bc_num_release(struct bc_ctx *c, bc_num *n);
/* A new reference to @p n (no allocation): values are shared, not copied. */
bc_num *bc_num_ref(bc_num *n);
/* A private, modifiable copy. */
bc_num *bc_num_copy(struct bc_ctx *c, const bc_num *n);
bc_num *bc_num_from_uint(struct bc_ctx *c, uint64_t v);
int bc_num_is_zero(const bc_num *n);
int bc_num_cmp(const bc_num *a, const bc_num *b);
/* Fits the integer part into *out; returns 0 if it does not fit in a long. */
int bc_num_to_long(const bc_num *n, long *out);
bc_num *bc_num_add(struct bc_ctx *c, const bc_num *a, const bc_num *b, int sub);
bc_num *bc_num_mul(struct bc_ctx *c, const bc_num *a, const bc_num *b, size_t scale);
bc_num *bc_num_div(struct bc_ctx *c, const bc_num *a, const bc_num *b, size_t scale);
bc_num *bc_num_mod(struct bc_ctx *c, const bc_num *a, const bc_num *b, size_t scale);
bc_num *bc_num_pow(struct bc_ctx *c, const bc_num *a, long e, size_t scale);
bc_num *bc_num_sqrt(struct bc_ctx *c, const bc_num *a, size_t scale);
/* Truncates toward zero to @p scale digits (no-op when already shorter);
 * a result of zero is 0, not -0. */
void bc_num_truncate(bc_num *n, size_t scale);
size_t bc_num_length(struct bc_ctx *c, const bc_num *n);
/* Decimal digits of the mantissa, most significant first; *ndig set.  The
 * string is a scratch block: bc_scratch_free() it. */
char *bc_num_digits(struct bc_ctx *c, const bc_num *n, size_t *ndig);
bc_num *bc_num_parse(struct bc_ctx *c, const char *s, size_t n, unsigned ibase);
/* As GNU's read() converts: like bc_num_parse(), but in every base the
 * generic way (so "A.B" is 10.9 in base ten, not 9.9). */
bc_num *bc_num_parse_read(struct bc_ctx *c, const char *s, size_t n,
                          unsigned ibase);
void bc_num_print(struct bc_ctx *c, const bc_num *n, unsigned long obase);

/* ------------------------------------------------------------------ tree */

enum node_kind {
    N_NUM, N_VAR, N_ELEM, N_ARRAY, N_SCALE, N_IBASE, N_OBASE, N_LAST,
    N_BIN, N_NEG, N_NOT, N_AND, N_OR, N_REL, N_ASSIGN,
    N_PREINC, N_PREDEC, N_POSTINC, N_POSTDEC,
    N_CALL, N_LENGTH, N_SCALEF, N_SQRT, N_READ,
    /* statements */
    S_EXPR, S_STR, S_PRINT, S_BLOCK, S_IF, S_WHILE, S_FOR, S_BREAK,
    S_CONTINUE, S_HALT, S_RETURN, S_LIMITS, S_WARRANTY
};

typedef struct node {
    unsigned char kind;
    unsigned char paren;   /* written in parentheses: "(a = 1)" prints */
    unsigned char op;      /* '+', '-', '*', '/', '%', '^'; relations: see REL_* */
    int line;              /* source line, for runtime messages */
    struct node *a, *b, *c, *d;
    struct node *next;     /* sibling in lists (statements, arguments) */
    int id;                /* variable, array or function number */
    size_t len;            /* N_NUM / S_STR: text length */
    const char *text;      /* N_NUM digits, S_STR / print string bytes */
    bc_num *cache;         /* N_NUM: value converted with cache_ibase */
    unsigned cache_ibase;
} node;

enum { REL_EQ = 1, REL_NE, REL_LT, REL_LE, REL_GT, REL_GE };

typedef struct bc_func {
    int defined;
    int is_void;
    int nparams;           /* parameters come first in locals[] */
    int nlocals;           /* parameters + autos */
    int *locals;           /* variable/array ids */
    unsigned char *is_array;
    node *body;
} bc_func;

/* ----------------------------------------------------------------- values */

#define BC_PAGE 256
typedef struct bc_array {
    size_t npages;         /* pages[] slots allocated */
    bc_num ***pages;       /* pages[i] NULL or BC_PAGE values (NULL = 0) */
} bc_array;

/* A name's slot: its current value and the values shadowed by calls. */
typedef struct bc_saved {
    void *val;
    struct bc_saved *prev;
} bc_saved;

typedef struct bc_sym {
    const char *name;
    size_t len;
} bc_sym;

/* A block that nothing else owns yet (unwind.c): freed if an error
 * unwinds past it. */
typedef struct bc_scratch {
    void *p;
    int is_array;          /* a bc_array (freed with its pages) */
} bc_scratch;

typedef struct bc_symtab {
    bc_sym *v;
    int n, cap;
} bc_symtab;

/* ------------------------------------------------------------- the context */

typedef struct bc_ctx {
    bc_config_t cfg;
    jmp_buf *jmp;          /* where bc_fail() unwinds to */
    bc_status failed;      /* set by bc_fail() before the longjmp */

    /* symbols: three namespaces */
    bc_symtab vars, arrays, funcs;
    bc_num **var_val;      /* by var id; NULL means 0 */
    bc_saved **var_saved;
    bc_array **arr_val;    /* by array id; NULL means empty */
    bc_saved **arr_saved;
    int var_cap, arr_cap;
    bc_func *fn;           /* by function id */
    int fn_cap;

    /* special variables */
    size_t scale;
    unsigned long ibase, obase;
    unsigned long call_ibase; /* ibase when the running function was called:
                                 GNU bc reads a function's constants in it */
    bc_num *last;
    bc_num *retval;        /* return value in flight */
    bc_num *k_zero, *k_one; /* shared constants, made on first use */

    /* read(): the rest of the input line being read */
    const char *rin, *rin_end;

    /* output */
    int out_col;
    size_t out_bytes;
    char obuf[4096];
    size_t olen;

    /* running */
    unsigned depth;
    const char *stack_base; /* address of a local of bc_run() */
    const char *cur_func;  /* name for messages */
    int cur_line;
    const char *input_name;
    double deadline;       /* 0 = none */
    unsigned tick;
    bc_status worst;
    struct node *cur_item; /* the top-level item running */

    /* what an unwind must recover (unwind.c) */
    bc_num *nums;          /* every live number, linked through next/prev */
    bc_scratch *scr;       /* blocks nothing else owns yet (C locals'
                              buffers, the nodes of the item being
                              parsed), a stack */
    size_t scr_n, scr_cap;

    /* lexer state: the buffer [src, end) being read */
    const char *src, *pos, *end;
    bc_read_fn reader;      /* stream input (bc_run_stream), NULL at its end */
    void *reader_ud;
    char *own;              /* lexer's copy of text spanning lines, or NULL */
    size_t total_in;        /* bytes of program read by this run */
    int line;
    int tok;
    const char *tok_text;
    size_t tok_len;
    char *tok_own;          /* tok_text's own copy (a number joined across
                               lines), freed when the next token is read */
    int tok_line;
    int prev_line;          /* line of the token consumed last */
    unsigned long ntok;     /* tokens read so far */
    unsigned long err_ntok; /* ntok when the last syntax error was skipped */
    int had_syntax_error;   /* like yacc, stay quiet for 3 tokens after one */
    int item_error;         /* the item being parsed had an error: not run */
} bc_ctx;

/* ------------------------------------------------------ shared functions */

/* Error convention of the interpreter: nothing returns an error code;
 * bc_fail() reports the error and longjmps to ctx->jmp (set by bc_run(),
 * and by the parser for syntax errors).  bc_alloc() never returns NULL. */
_Noreturn void bc_fail(bc_ctx *c, bc_status st, const char *fmt, ...);
/* Prints an error message in GNU bc's form without unwinding. */
void bc_report(bc_ctx *c, bc_status st, const char *msg);
void bc_warn(bc_ctx *c, const char *fmt, ...);
void *bc_alloc(bc_ctx *c, size_t n);
void bc_free(bc_ctx *c, void *p);
void bc_check_time(bc_ctx *c);

/* unwinding (unwind.c).  Scratch blocks: bc_scratch_alloc() registers a
 * block until bc_scratch_free() frees it or bc_scratch_keep() hands it to
 * an owner the unwind can see, or, for all the blocks registered after a
 * mark at once, bc_scratch_release() frees them or bc_scratch_keep_above()
 * hands them over (the parser's nodes); bc_scratch_reserve() then
 * bc_scratch_push() register a block allocated otherwise (reserve first,
 * so that a failure to grow the registry never loses the block). */
void *bc_scratch_alloc(bc_ctx *c, size_t n);
void bc_scratch_free(bc_ctx *c, void *p);
void bc_scratch_keep(bc_ctx *c, void *p);
void bc_scratch_reserve(bc_ctx *c);
void bc_scratch_push(bc_ctx *c, void *p, int is_array);
/* Frees the scratch blocks registered after @p mark (a past scr_n). */
void bc_scratch_release(bc_ctx *c, size_t mark);
/* Unregisters, without freeing, the blocks registered after @p mark: an
 * owner the unwind can see holds them all now (a parsed item's tree). */
void bc_scratch_keep_above(bc_ctx *c, size_t mark);
/* After an item unwound (bc_eval_reset() done, the item's nodes freed):
 * frees every scratch block and every number no root reaches, and sets
 * the others' refs to the references found. */
void bc_unwind(bc_ctx *c);

/* output (output.c) */
void bc_out_char(bc_ctx *c, int ch);
void bc_out_flush(bc_ctx *c);

/* symbols (symbols.c) */
int bc_sym_var(bc_ctx *c, const char *name, size_t len);
int bc_sym_array(bc_ctx *c, const char *name, size_t len);
int bc_sym_func(bc_ctx *c, const char *name, size_t len);
bc_num **bc_array_slot(bc_ctx *c, bc_array *a, size_t idx);
/* The copy is registered as scratch: bc_scratch_keep() it once owned. */
bc_array *bc_array_copy(bc_ctx *c, const bc_array *a);
void bc_array_free(bc_ctx *c, bc_array *a);
/* Frees the array's pages and itself, not its numbers (unwind.c). */
void bc_array_free_shallow(bc_ctx *c, bc_array *a);

/* lexer (lex.c) */
enum tok {
    T_EOF = 256, T_NL, T_NUM, T_NAME, T_STR,
    T_INC, T_DEC, T_ASSIGN, T_OPASSIGN, T_REL, T_AND, T_OR,
    K_AUTO, K_BREAK, K_CONTINUE, K_DEFINE, K_ELSE, K_FOR, K_HALT, K_IBASE,
    K_IF, K_LAST, K_LENGTH, K_LIMITS, K_OBASE, K_PRINT, K_QUIT, K_READ,
    K_RETURN, K_SCALE, K_SQRT, K_VOID, K_WARRANTY, K_WHILE
};
void bc_lex_init(bc_ctx *c, const char *src, size_t len);
void bc_lex_next(bc_ctx *c);

/* parser (parse.c): one item into *out (NULL for a definition); P_ERROR
 * after a reported syntax error (the item is dropped), P_QUIT when quit was
 * read, P_EOF at the end of the input.  Limits unwind through ctx->jmp. */
typedef enum { P_ITEM, P_EOF, P_ERROR, P_QUIT } bc_parse_result;
bc_parse_result bc_parse_item(bc_ctx *c, node **out);
void bc_node_free(bc_ctx *c, node *n);

/* evaluator (eval.c): runs an item, returns 1 if halt ran; errors unwind
 * through ctx->jmp, after which bc_eval_reset() restores the globals that
 * calls in progress had shadowed. */
int bc_exec_toplevel(bc_ctx *c, node *stmts);
void bc_eval_reset(bc_ctx *c);

/* math library source (mathlib.c) */
extern const char bc_mathlib_src[];

#endif /* BCINT_H */
