/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * symbols.c - names and arrays.
 *
 * bc has three namespaces (simple variables, arrays, functions); each maps
 * a name to a small number, given out in order of first appearance, and the
 * context keeps one value slot per number.  Arrays are sparse: a table of
 * pages of BC_PAGE values, a page allocated when an element in it is first
 * stored, so a[16777215] costs one page.
 */
#include <string.h>
#include "bcint.h"

#define BC_DIM_MAX 16777215

static int sym_lookup(const bc_symtab *t, const char *name, size_t len)
{
    for (int i = 0; i < t->n; i++)
        if (t->v[i].len == len && memcmp(t->v[i].name, name, len) == 0)
            return i;
    return -1;
}

/* Adds a name whose value slots already exist (see the callers: slots are
 * made first, so an allocation failure never leaves a name without one). */
static int sym_add(bc_ctx *c, bc_symtab *t, const char *name, size_t len)
{
    if (t->n == t->cap) {
        int ncap = t->cap ? 2 * t->cap : 32;
        bc_sym *nv = bc_alloc(c, (size_t)ncap * sizeof *nv);
        if (t->n)
            memcpy(nv, t->v, (size_t)t->n * sizeof *nv);
        bc_free(c, t->v);
        t->v = nv;
        t->cap = ncap;
    }
    char *copy = bc_alloc(c, len + 1);
    memcpy(copy, name, len);
    copy[len] = 0;
    t->v[t->n].name = copy;
    t->v[t->n].len = len;
    return t->n++;
}

/* Grows a table of pointers to hold index id, zero-filling. */
static void *grow(bc_ctx *c, void *old, int *cap, int id, size_t elem)
{
    if (id < *cap)
        return old;
    int ncap = *cap ? *cap : 16;
    while (ncap <= id)
        ncap *= 2;
    char *n = bc_alloc(c, (size_t)ncap * elem);
    memset(n, 0, (size_t)ncap * elem);
    if (*cap)
        memcpy(n, old, (size_t)*cap * elem);
    bc_free(c, old);
    *cap = ncap;
    return n;
}

int bc_sym_var(bc_ctx *c, const char *name, size_t len)
{
    int id = sym_lookup(&c->vars, name, len);
    if (id >= 0)
        return id;
    id = c->vars.n;
    if (id >= c->var_cap) {
        int cap = c->var_cap;
        c->var_val = grow(c, c->var_val, &cap, id, sizeof *c->var_val);
        cap = c->var_cap;
        c->var_saved = grow(c, c->var_saved, &cap, id, sizeof *c->var_saved);
        c->var_cap = cap;
    }
    return sym_add(c, &c->vars, name, len);
}

int bc_sym_array(bc_ctx *c, const char *name, size_t len)
{
    int id = sym_lookup(&c->arrays, name, len);
    if (id >= 0)
        return id;
    id = c->arrays.n;
    if (id >= c->arr_cap) {
        int cap = c->arr_cap;
        c->arr_val = grow(c, c->arr_val, &cap, id, sizeof *c->arr_val);
        cap = c->arr_cap;
        c->arr_saved = grow(c, c->arr_saved, &cap, id, sizeof *c->arr_saved);
        c->arr_cap = cap;
    }
    return sym_add(c, &c->arrays, name, len);
}

int bc_sym_func(bc_ctx *c, const char *name, size_t len)
{
    int id = sym_lookup(&c->funcs, name, len);
    if (id >= 0)
        return id;
    c->fn = grow(c, c->fn, &c->fn_cap, c->funcs.n, sizeof *c->fn);
    return sym_add(c, &c->funcs, name, len);
}

bc_num **bc_array_slot(bc_ctx *c, bc_array *a, size_t idx)
{
    if (idx > BC_DIM_MAX)
        bc_fail(c, BC_ERR_RUNTIME, "Array %s subscript out of bounds.", "");
    size_t p = idx / BC_PAGE;
    if (p >= a->npages) {
        size_t n = a->npages ? a->npages : 4;
        while (n <= p)
            n *= 2;
        bc_num ***np = bc_alloc(c, n * sizeof *np);
        memset(np, 0, n * sizeof *np);
        if (a->npages)
            memcpy(np, a->pages, a->npages * sizeof *np);
        bc_free(c, a->pages);
        a->pages = np;
        a->npages = n;
    }
    if (!a->pages[p]) {
        a->pages[p] = bc_alloc(c, BC_PAGE * sizeof(bc_num *));
        memset(a->pages[p], 0, BC_PAGE * sizeof(bc_num *));
    }
    return &a->pages[p][idx % BC_PAGE];
}

bc_array *bc_array_copy(bc_ctx *c, const bc_array *a)
{
    bc_scratch_reserve(c);
    bc_array *r = bc_alloc(c, sizeof *r);
    r->npages = 0;
    r->pages = NULL;
    bc_scratch_push(c, r, 1); /* filling it may fail half-way */
    if (!a)
        return r;
    for (size_t p = 0; p < a->npages; p++) {
        if (!a->pages[p])
            continue;
        for (size_t i = 0; i < BC_PAGE; i++)
            if (a->pages[p][i])
                *bc_array_slot(c, r, p * BC_PAGE + i) =
                    bc_num_ref(a->pages[p][i]);
    }
    return r;
}

void bc_array_free_shallow(bc_ctx *c, bc_array *a)
{
    if (!a)
        return;
    for (size_t p = 0; p < a->npages; p++)
        bc_free(c, a->pages[p]);
    bc_free(c, a->pages);
    bc_free(c, a);
}

void bc_array_free(bc_ctx *c, bc_array *a)
{
    if (!a)
        return;
    for (size_t p = 0; p < a->npages; p++) {
        if (!a->pages[p])
            continue;
        for (size_t i = 0; i < BC_PAGE; i++)
            bc_num_free(c, a->pages[p][i]);
        bc_free(c, a->pages[p]);
    }
    bc_free(c, a->pages);
    bc_free(c, a);
}
