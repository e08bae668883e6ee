/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * replay.h - running a loaded trace against an allocator, and what the
 * trace says by itself (live bytes, drag, the draggiest pools).
 *
 * An allocator is an rt_backend_t: a heap per reap and the object calls.
 * The engine (replay.c) keeps the tree of reaps and each reap's live
 * objects, so that a clear or destroy destroys the children first and, for
 * an allocator without bulk release, frees the remaining objects one by
 * one, as an emulated region would.
 */
#ifndef RT_REPLAY_H
#define RT_REPLAY_H

#include "tracefile.h"

typedef struct rt_backend {
    const char *name;
    /* Frees are ignored (memory goes back at clear and destroy): its drag
     * is the trace's drag under region semantics. */
    bool region;
    /* Load the allocator; false when it is not there (it is then left out). */
    bool (*open)(void);
    /* A heap for a new reap; parent is the parent's heap or NULL;
     * alignment is what the traced reap was set to (reap_set_alignment),
     * 0 for the default: libreap's rows follow it, the others need not. */
    void *(*reap_new)(void *parent, unsigned alignment);
    /* true when a clear (or destroy) of h releases its objects by itself;
     * otherwise the engine frees each one first. */
    bool (*bulk)(void *h, bool destroy);
    void (*reap_clear)(void *h);
    void (*reap_destroy)(void *h);
    void *(*alloc)(void *h, size_t n);
    void (*free)(void *h, void *p, size_t n);
    void *(*realloc)(void *h, void *p, size_t old, size_t n);
    /* Bytes the allocator holds for the replay: per reap and exact
     * (reap_fp, summed over live reaps by the engine), or for the whole
     * allocator (footprint, sampled). */
    uint64_t (*reap_fp)(void *h);
    uint64_t (*footprint)(void);
    /* What of footprint() is not the replay's, read before it starts
     * (NULL: footprint() then). */
    uint64_t (*baseline)(void);
} rt_backend_t;

/* The allocators reap-trace knows, in the order they are printed; a NULL
 * name ends the list. */
extern const rt_backend_t *const rt_backends[];

typedef struct rt_result {
    uint64_t peak_footprint;
    double time_s;
} rt_result_t;

/* Replay tr against b.  With measure, the peak footprint is measured (and
 * with samples, the footprint every `step' ops is stored); without, the
 * replay is timed (time_s), nothing else.  0, or -1 on failure (out of
 * memory in the allocator or in the engine). */
int rt_replay(const rt_backend_t *b, const rt_trace_t *tr, rt_result_t *out, bool measure,
              uint64_t *samples, size_t step);

/* What the trace says by itself. */
typedef struct rt_facts {
    uint64_t peak_live;   /* bytes asked for by live objects, at most */
    double drag_free;     /* drag when memory goes back at free (1 unless the trace is empty) */
    double drag_region;   /* drag when it goes back only at the reap's clear/destroy */
} rt_facts_t;

/* live, when not NULL, gets live bytes every `step' ops like rt_replay's
 * samples. */
void rt_facts(const rt_trace_t *tr, rt_facts_t *out, uint64_t *live, size_t step);

/* One row of `top': a pool (by tag, or reap slot when untagged). */
typedef struct rt_drag_row {
    const char *name;     /* the tag; NULL: untagged, see reap */
    uint32_t reap;        /* first reap slot of the row */
    uint32_t reaps;       /* reaps counted */
    double byte_seconds;  /* dead bytes x seconds under region semantics */
    uint64_t peak_dead;   /* most dead bytes at once */
} rt_drag_row_t;

/* Rows into *rows (malloc'd), largest byte_seconds first; their number. */
size_t rt_top(const rt_trace_t *tr, rt_drag_row_t **rows);

#endif /* RT_REPLAY_H */
