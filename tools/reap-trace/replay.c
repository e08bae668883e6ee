/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * replay.c - the replay engine, and the figures the trace gives alone:
 * live bytes, drag (docs/trace.md defines it) and the pools that drag.
 *
 * The engine's arrays come from rt_map(), not malloc, so that the glibc
 * replay's footprint is the replay's alone.  It runs every op in trace
 * order, single-threaded; the malloc pseudo-reap is a top-level reap that
 * is never cleared.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay.h"

#define NONE RT_NONE
#define BIG (32u << 10) /* an object this big moves a sampled footprint */

typedef struct engine {
    const rt_backend_t *b;
    const rt_trace_t *tr;
    void **ptr;      /* per object: the allocator's pointer */
    uint32_t *onext, *oprev, *oreap;
    void **heap;     /* per reap */
    uint32_t *first_obj;
    rt_tree_t tree;
    uint64_t *fp;    /* per reap: its footprint when last read (reap_fp) */
    uint64_t total_fp, peak_fp, base_fp;
    bool measure, failed;
} engine_t;

static void sample(engine_t *e)
{
    uint64_t fp = e->b->reap_fp ? e->total_fp : e->b->footprint() - e->base_fp;
    if (e->b->footprint && fp > (uint64_t)1 << 62) /* below the baseline */
        fp = 0;
    if (fp > e->peak_fp)
        e->peak_fp = fp;
}

static void reread(engine_t *e, uint32_t r)
{
    if (!e->measure || !e->b->reap_fp)
        return;
    uint64_t now = e->b->reap_fp(e->heap[r]);
    e->total_fp += now - e->fp[r];
    e->fp[r] = now;
}

static void obj_link(engine_t *e, uint32_t r, uint32_t o)
{
    e->oreap[o] = r, e->oprev[o] = NONE, e->onext[o] = e->first_obj[r];
    if (e->first_obj[r] != NONE)
        e->oprev[e->first_obj[r]] = o;
    e->first_obj[r] = o;
}

static void obj_unlink(engine_t *e, uint32_t o)
{
    uint32_t n = e->onext[o], p = e->oprev[o];
    if (p != NONE)
        e->onext[p] = n;
    else
        e->first_obj[e->oreap[o]] = n;
    if (n != NONE)
        e->oprev[n] = p;
}

/* Drop r's objects: freed one by one unless the allocator releases them
 * in bulk. */
static void drop_objects(engine_t *e, uint32_t r, bool destroy)
{
    bool each = !e->b->bulk(e->heap[r], destroy);
    for (uint32_t o = e->first_obj[r]; o != NONE; o = e->onext[o])
        if (each)
            e->b->free(e->heap[r], e->ptr[o], e->tr->obj_size[o]);
    e->first_obj[r] = NONE;
}

static void destroy(engine_t *e, uint32_t r)
{
    while (e->tree.first_child[r] != NONE)
        destroy(e, e->tree.first_child[r]);
    drop_objects(e, r, true);
    e->b->reap_destroy(e->heap[r]);
    e->heap[r] = NULL;
    e->total_fp -= e->fp[r];
    e->fp[r] = 0;
    rt_tree_unlink(&e->tree, r, e->tr->reap_parent[r]);
}

static void create(engine_t *e, uint32_t r, uint32_t parent1)
{
    e->heap[r] = e->b->reap_new(parent1 ? e->heap[parent1 - 1] : NULL, e->tr->reap_align[r]);
    if (!e->heap[r])
        e->failed = true;
    e->first_obj[r] = NONE;
    rt_tree_link(&e->tree, r, parent1);
    reread(e, r);
}

static void run_op(engine_t *e, const rt_op_t *op)
{
    uint32_t r = op->reap;
    void *h = e->heap[r];
    switch (op->kind) {
    case RT_CREATE:
        create(e, r, op->other);
        return;
    case RT_CLEAR:
        if (e->measure)
            sample(e); /* the peak comes before a release */
        while (e->tree.first_child[r] != NONE)
            destroy(e, e->tree.first_child[r]);
        drop_objects(e, r, false);
        e->b->reap_clear(h);
        break;
    case RT_DESTROY:
        if (e->measure)
            sample(e);
        destroy(e, r);
        return;
    case RT_ALLOC:
        if (!(e->ptr[op->obj] = e->b->alloc(h, op->size)))
            e->failed = true;
        obj_link(e, r, op->obj);
        break;
    case RT_FREE:
        obj_unlink(e, op->obj);
        e->b->free(h, e->ptr[op->obj], op->size);
        break;
    case RT_REALLOC:
        obj_unlink(e, op->obj);
        e->ptr[op->other] = e->b->realloc(h, e->ptr[op->obj], e->tr->obj_size[op->obj], op->size);
        if (!e->ptr[op->other])
            e->failed = true;
        obj_link(e, r, op->other);
        break;
    }
    reread(e, r);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every array the engine needs, nobjs or nreaps long. */
#define ENGINE_ARRAYS(X)                                                        \
    X(ptr, nobjs) X(onext, nobjs) X(oprev, nobjs) X(oreap, nobjs) X(heap, nreaps) \
    X(first_obj, nreaps) X(tree.first_child, nreaps) X(tree.next_sib, nreaps) \
    X(tree.prev_sib, nreaps) X(fp, nreaps)

static bool engine_map(engine_t *e)
{
    size_t nobjs = e->tr->nobjs + 1, nreaps = e->tr->nreaps + 1;
    bool ok = true;
#define MAP_(f, n) ok = ok && (e->f = rt_map((n) * sizeof *e->f)) != NULL;
    ENGINE_ARRAYS(MAP_)
#undef MAP_
    return ok;
}

static void engine_unmap(engine_t *e)
{
    size_t nobjs = e->tr->nobjs + 1, nreaps = e->tr->nreaps + 1;
#define UNMAP_(f, n) rt_unmap(e->f, (n) * sizeof *e->f);
    ENGINE_ARRAYS(UNMAP_)
#undef UNMAP_
}

int rt_replay(const rt_backend_t *b, const rt_trace_t *tr, rt_result_t *out, bool measure,
              uint64_t *samples, size_t step)
{
    engine_t e = {.b = b, .tr = tr, .measure = measure};
    if (!engine_map(&e)) {
        engine_unmap(&e);
        return -1;
    }
    if (b->footprint)
        e.base_fp = b->baseline ? b->baseline() : b->footprint();
    create(&e, 0, 0); /* the malloc pseudo-reap */
    double t0 = seconds();
    for (size_t i = 0; i < tr->nops && !e.failed; i++) {
        const rt_op_t *op = &tr->ops[i];
        /* a sampled footprint is read every 64 ops, and around big objects,
         * whose peaks could fall between two samples */
        bool big = e.measure && op->kind >= RT_ALLOC && (op->size >= BIG || tr->obj_size[op->obj] >= BIG);
        if (big && !b->reap_fp)
            sample(&e);
        run_op(&e, op);
        if (e.measure && (b->reap_fp || i % 64 == 0 || big))
            sample(&e);
        if (samples && i % step == 0) {
            sample(&e); /* the plot's point: this op's footprint */
            samples[i / step] = b->reap_fp ? e.total_fp : b->footprint() - e.base_fp;
        }
    }
    out->time_s = seconds() - t0;
    if (e.measure)
        sample(&e);
    out->peak_footprint = e.peak_fp;
    for (uint32_t r = 0; r < tr->nreaps; r++) /* what is still alive, parents first */
        if (e.heap[r] && (r == 0 || tr->reap_parent[r] == 0) && !e.failed)
            destroy(&e, r);
    engine_unmap(&e);
    return e.failed ? -1 : 0;
}

/* ---- what the trace says alone ------------------------------------------------ */

/* The walk keeps, per reap, its live bytes and its dead bytes under
 * region semantics (freed objects of a reap not yet cleared or destroyed),
 * in a tree of its own; on_dead hears every change of a reap's dead bytes
 * at time t, on_op sees each op with the totals before it. */
typedef struct walk {
    const rt_trace_t *tr;
    uint64_t *live, *dead; /* per reap */
    rt_tree_t tree;
    uint64_t total_live, total_dead;
    void (*on_op)(struct walk *w, const rt_op_t *op, size_t i);
    void (*on_dead)(struct walk *w, uint32_t r, int64_t delta, uint64_t t);
    void *arg;
} walk_t;

static void add_dead(walk_t *w, uint32_t r, int64_t delta, uint64_t t)
{
    w->dead[r] += (uint64_t)delta;
    w->total_dead += (uint64_t)delta;
    if (w->on_dead)
        w->on_dead(w, r, delta, t);
}

/* Clear r (and destroy its subtree), or destroy it. */
static void release(walk_t *w, uint32_t r, bool destroy, uint64_t t)
{
    while (w->tree.first_child[r] != NONE)
        release(w, w->tree.first_child[r], true, t);
    w->total_live -= w->live[r];
    w->live[r] = 0;
    add_dead(w, r, -(int64_t)w->dead[r], t);
    if (destroy)
        rt_tree_unlink(&w->tree, r, w->tr->reap_parent[r]);
}

static void walk_op(walk_t *w, const rt_op_t *op)
{
    const uint64_t *size = w->tr->obj_size;
    switch (op->kind) {
    case RT_CREATE:
        rt_tree_link(&w->tree, op->reap, op->other);
        break;
    case RT_CLEAR:
    case RT_DESTROY:
        release(w, op->reap, op->kind == RT_DESTROY, op->t);
        break;
    case RT_ALLOC:
        w->live[op->reap] += op->size, w->total_live += op->size;
        break;
    case RT_FREE:
        w->live[op->reap] -= op->size, w->total_live -= op->size;
        add_dead(w, op->reap, (int64_t)op->size, op->t);
        break;
    case RT_REALLOC:
        w->live[op->reap] += op->size - size[op->obj];
        w->total_live += op->size - size[op->obj];
        add_dead(w, op->reap, (int64_t)size[op->obj], op->t);
        break;
    }
}

static bool walk_run(walk_t *w)
{
    size_t n = w->tr->nreaps + 1;
    w->live = rt_map(n * 8), w->dead = rt_map(n * 8);
    rt_tree_t *t = &w->tree;
    t->first_child = rt_map(n * 4), t->next_sib = rt_map(n * 4), t->prev_sib = rt_map(n * 4);
    bool ok = w->live && w->dead && t->first_child && t->next_sib && t->prev_sib;
    if (ok) {
        rt_tree_link(t, 0, 0);
        for (size_t i = 0; i < w->tr->nops; i++) {
            if (w->on_op)
                w->on_op(w, &w->tr->ops[i], i);
            walk_op(w, &w->tr->ops[i]);
        }
        if (w->on_op)
            w->on_op(w, NULL, w->tr->nops);
    }
    rt_unmap(w->live, n * 8), rt_unmap(w->dead, n * 8);
    rt_unmap(t->first_child, n * 4), rt_unmap(t->next_sib, n * 4), rt_unmap(t->prev_sib, n * 4);
    return ok;
}

/* Drag (docs/trace.md): the area under the bytes an allocator keeps for
 * objects over the area under the live bytes, both over allocation time,
 * which an allocation of n bytes advances by n (the totals before it hold
 * over that step). */
typedef struct facts_acc {
    rt_facts_t *out;
    uint64_t *live_samples;
    size_t step;
    double area_live, area_region;
} facts_acc_t;

static void facts_op(walk_t *w, const rt_op_t *op, size_t i)
{
    facts_acc_t *a = w->arg;
    if (w->total_live > a->out->peak_live)
        a->out->peak_live = w->total_live;
    if (a->live_samples && op && i % a->step == 0)
        a->live_samples[i / a->step] = w->total_live;
    if (!op || (op->kind != RT_ALLOC && op->kind != RT_REALLOC))
        return;
    a->area_live += (double)w->total_live * (double)op->size;
    a->area_region += (double)(w->total_live + w->total_dead) * (double)op->size;
}

void rt_facts(const rt_trace_t *tr, rt_facts_t *out, uint64_t *live, size_t step)
{
    memset(out, 0, sizeof *out);
    facts_acc_t a = {.out = out, .live_samples = live, .step = step ? step : 1};
    walk_t w = {.tr = tr, .on_op = facts_op, .arg = &a};
    walk_run(&w);
    out->drag_free = 1.0;
    out->drag_region = a.area_live > 0 ? a.area_region / a.area_live : 1.0;
}

/* ---- top: the pools that drag ------------------------------------------------- */

typedef struct top_acc {
    rt_drag_row_t *rows;
    uint32_t *row_of;   /* per reap */
    uint64_t *dead, *since; /* per row: dead bytes now, and since when */
} top_acc_t;

static void top_dead(walk_t *w, uint32_t r, int64_t delta, uint64_t t)
{
    top_acc_t *a = w->arg;
    uint32_t row = a->row_of[r];
    a->rows[row].byte_seconds += (double)a->dead[row] * (double)(t - a->since[row]) / 1e9;
    a->since[row] = t;
    a->dead[row] += (uint64_t)delta;
    if (a->dead[row] > a->rows[row].peak_dead)
        a->rows[row].peak_dead = a->dead[row];
}

static int by_drag(const void *x, const void *y)
{
    const rt_drag_row_t *a = x, *b = y;
    return a->byte_seconds < b->byte_seconds ? 1 : a->byte_seconds > b->byte_seconds ? -1 : 0;
}

/* One row per distinct tag, one per untagged reap. */
static size_t top_rows(const rt_trace_t *tr, top_acc_t *a)
{
    size_t n = 0;
    for (uint32_t r = 0; r < tr->nreaps; r++) {
        const char *tag = tr->reap_tag[r];
        uint32_t row = (uint32_t)n;
        for (size_t k = 0; tag && k < n; k++)
            if (a->rows[k].name && strcmp(a->rows[k].name, tag) == 0)
                row = (uint32_t)k;
        if (row == n)
            a->rows[n++] = (rt_drag_row_t){.name = r == 0 && !tag ? "malloc" : tag, .reap = r};
        a->rows[row].reaps++;
        a->row_of[r] = row;
    }
    return n;
}

size_t rt_top(const rt_trace_t *tr, rt_drag_row_t **rows)
{
    size_t nr = tr->nreaps ? tr->nreaps : 1;
    top_acc_t a = {calloc(nr, sizeof *a.rows), calloc(nr, 4), calloc(nr, 8), calloc(nr, 8)};
    size_t n = 0;
    if (a.rows && a.row_of && a.dead && a.since) {
        n = top_rows(tr, &a);
        walk_t w = {.tr = tr, .on_dead = top_dead, .arg = &a};
        walk_run(&w);
        uint64_t end = tr->nops ? tr->ops[tr->nops - 1].t : 0;
        for (size_t k = 0; k < n; k++) /* what is still dead at the end */
            a.rows[k].byte_seconds += (double)a.dead[k] * (double)(end - a.since[k]) / 1e9;
        qsort(a.rows, n, sizeof *a.rows, by_drag);
    }
    free(a.row_of), free(a.dead), free(a.since);
    *rows = a.rows;
    return n;
}
