/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * unwind.c - recovering what an error, a halt or a limit unwound.
 *
 * bc_fail() longjmps out of the evaluator, the arithmetic or the parser,
 * and whatever those held in C locals is lost: fresh numbers and extra
 * references to shared ones (the evaluator's temporaries), and blocks
 * (the kernels' scratch, a call's argument vector, copies of arrays being
 * passed, the nodes, texts and parameter lists of the item being parsed).
 * Two mechanisms bring them back:
 *
 * Numbers: every live number is on a list of the context (the links in
 * bc_num), and after an item unwound bc_unwind() recounts them from the
 * roots, the only places a number may be held between items: variables
 * (var_val), arrays (arr_val's pages), last, the shared 0 and 1, retval,
 * and the cached constants of every function body (c->fn[]).  A number no
 * root reaches is freed; the others get refs = the references found, which
 * also repairs a count left too high (a temporary reference to a variable
 * or a constant lost in the unwind).  The calls' saved values (var_saved,
 * arr_saved) are roots too, though bc_eval_reset() has emptied them when
 * this runs.  The current item's nodes are freed before, so their cached
 * constants are not roots.  Refcounts never undercount, so freeing in
 * bc_eval_reset() and bc_node_free() before the recount is safe.
 *
 * Blocks: a stack of scratch blocks (bc_scratch_alloc) that nothing else
 * owns yet, freed wholesale on an unwind.  The kernels' buffers and the
 * evaluator's vectors are pushed and popped by their users.  The parser
 * puts there every node and text of the item it parses, with the buffers
 * it holds on the way: a syntax error frees down to the mark of the
 * statement that failed (parsing resumes after it), an item with an error
 * down to the item's mark, and an item parsed cleanly hands all of its
 * blocks at once to the syntax tree or the function table
 * (bc_scratch_keep_above).
 *
 * Why not keep the evaluator's temporaries on an explicit stack instead:
 * numbers are held across failing calls in dozens of places (the evaluator,
 * num.c's operators, numio.c's conversions), and every one missed would be
 * a leak again; the list catches them all, and its cost is two pointers a
 * number (the header grows from 40 to 48 bytes, the padding after refs
 * reused) and a walk of the roots and of the live numbers per unwind, which
 * bc.c charges to the time limit.
 */
#include <string.h>
#include "bcint.h"

/* ------------------------------------------------------------ scratch */

void bc_scratch_reserve(bc_ctx *c)
{
    if (c->scr_n < c->scr_cap)
        return;
    size_t ncap = c->scr_cap ? 2 * c->scr_cap : 16;
    bc_scratch *ns = bc_alloc(c, ncap * sizeof *ns);
    if (c->scr_n)
        memcpy(ns, c->scr, c->scr_n * sizeof *ns);
    bc_free(c, c->scr);
    c->scr = ns;
    c->scr_cap = ncap;
}

void bc_scratch_push(bc_ctx *c, void *p, int is_array)
{
    /* reserved by the caller before p was allocated */
    c->scr[c->scr_n].p = p;
    c->scr[c->scr_n].is_array = is_array;
    c->scr_n++;
}

void *bc_scratch_alloc(bc_ctx *c, size_t n)
{
    bc_scratch_reserve(c);
    void *p = bc_alloc(c, n);
    bc_scratch_push(c, p, 0);
    return p;
}

/* Unregisters @p p; blocks go mostly in LIFO order, so search from the top.
 * The blocks above @p p move down one: no mark may be taken between
 * registering a block and unregistering it out of order (the parser's held
 * names span expressions only, its marks are at statements and items). */
void bc_scratch_keep(bc_ctx *c, void *p)
{
    for (size_t i = c->scr_n; i-- > 0;) {
        if (c->scr[i].p == p) {
            memmove(&c->scr[i], &c->scr[i + 1],
                    (c->scr_n - i - 1) * sizeof *c->scr);
            c->scr_n--;
            return;
        }
    }
}

void bc_scratch_free(bc_ctx *c, void *p)
{
    bc_scratch_keep(c, p);
    bc_free(c, p);
}

/* The blocks above @p mark have an owner now: forget them, free none. */
void bc_scratch_keep_above(bc_ctx *c, size_t mark)
{
    if (c->scr_n > mark)
        c->scr_n = mark;
}

void bc_scratch_release(bc_ctx *c, size_t mark)
{
    while (c->scr_n > mark) {
        bc_scratch *s = &c->scr[--c->scr_n];
        if (s->is_array)
            bc_array_free_shallow(c, s->p); /* numbers: the sweep's */
        else
            bc_free(c, s->p);
    }
}

/* ------------------------------------------------------------ numbers */

static void count(bc_num *n)
{
    if (n)
        n->refs++;
}

static void count_array(const bc_array *a)
{
    if (!a)
        return;
    for (size_t p = 0; p < a->npages; p++) {
        if (!a->pages[p])
            continue;
        for (size_t i = 0; i < BC_PAGE; i++)
            count(a->pages[p][i]);
    }
}

/* The cached constants of a tree, walked as bc_node_free() walks it. */
static void count_tree(const node *n)
{
    for (; n; n = n->next) {
        count_tree(n->a);
        count_tree(n->b);
        count_tree(n->c);
        count_tree(n->d);
        count(n->cache);
    }
}

void bc_unwind(bc_ctx *c)
{
    bc_scratch_release(c, 0);
    for (bc_num *n = c->nums; n; n = n->next)
        n->refs = 0;
    for (int i = 0; i < c->vars.n; i++) {
        count(c->var_val[i]);
        for (bc_saved *s = c->var_saved[i]; s; s = s->prev)
            count(s->val);
    }
    for (int i = 0; i < c->arrays.n; i++) {
        count_array(c->arr_val[i]);
        for (bc_saved *s = c->arr_saved[i]; s; s = s->prev)
            count_array(s->val);
    }
    /* every body, also of a function whose redefinition failed (it stays
     * in fn[] with defined = 0 until replaced) */
    for (int i = 0; i < c->funcs.n; i++)
        count_tree(c->fn[i].body);
    count(c->last);
    count(c->retval);
    count(c->k_zero);
    count(c->k_one);
    for (bc_num *n = c->nums, *next; n; n = next) {
        next = n->next;
        if (n->refs == 0)
            bc_num_release(c, n);
    }
}
