/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * tracefile.h - reading a REAP_TRACE file (format: libreap/src/util/trace.h)
 * into one program of operations that every replay runs.
 *
 * rt_load() decodes the blocks, merges the threads' events by time (on a
 * tie, a free, clear or destroy before anything else, so that an address
 * freed by one thread and handed out to another is free when reused), and
 * checks the whole trace against a model of its reaps and objects.  The
 * result numbers reaps and objects densely: reap 0 is the malloc
 * pseudo-reap, an object is a slot made by one allocation (a realloc makes
 * a new slot), so replays index arrays instead of hashing addresses.
 *
 * Errors (bad magic, truncation, unknown event, a free of an object the
 * trace never allocated, a reap never created) name the file offset of the
 * block or event.  A fork child's trace (header flag) begins in the middle
 * of its parent's life: there, events about reaps and objects made before
 * the fork are skipped and counted instead.
 */
#ifndef RT_TRACEFILE_H
#define RT_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rt_op_kind {
    RT_CREATE = 1, /* reap = the new reap, other = its parent + 1 (0: none) */
    RT_CLEAR,      /* reap */
    RT_DESTROY,    /* reap */
    RT_ALLOC,      /* reap, obj, size */
    RT_FREE,       /* reap, obj (size: its size) */
    RT_REALLOC     /* reap, obj = the old, other = the new, size = new size */
} rt_op_kind_t;

typedef struct rt_op {
    uint64_t t;     /* ns since the trace's first event */
    uint64_t size;
    uint32_t reap, obj, other;
    uint8_t kind;
} rt_op_t;

typedef struct rt_trace {
    rt_op_t *ops;
    size_t nops;
    uint32_t nreaps;   /* reap slots, the malloc pseudo-reap included */
    uint32_t nobjs;    /* object slots */
    uint64_t *obj_size;   /* nobjs: bytes asked for */
    uint32_t *reap_parent; /* nreaps: parent + 1, 0 for a top-level reap */
    uint64_t *reap_id;     /* nreaps: its address in the traced process */
    char **reap_tag;       /* nreaps: the last tag given, or NULL */
    uint8_t *reap_align;   /* nreaps: its reap_set_alignment(), 0 for none */
    uint64_t skipped;      /* a fork child's events about its parent's memory */
    bool forked;
    size_t cap;            /* slots mapped for each array */
} rt_trace_t;

/* A tree of reap slots, kept in three arrays indexed by slot: the model,
 * the replay engine and the drag walk each keep one. */
#define RT_NONE UINT32_MAX

typedef struct rt_tree {
    uint32_t *first_child, *next_sib, *prev_sib;
} rt_tree_t;

/* r becomes the first child of parent1 - 1 (none when parent1 is 0). */
static inline void rt_tree_link(rt_tree_t *t, uint32_t r, uint32_t parent1)
{
    t->first_child[r] = t->prev_sib[r] = t->next_sib[r] = RT_NONE;
    if (parent1) {
        uint32_t p = parent1 - 1;
        t->next_sib[r] = t->first_child[p];
        if (t->first_child[p] != RT_NONE)
            t->prev_sib[t->first_child[p]] = r;
        t->first_child[p] = r;
    }
}

static inline void rt_tree_unlink(rt_tree_t *t, uint32_t r, uint32_t parent1)
{
    uint32_t n = t->next_sib[r], pv = t->prev_sib[r];
    if (pv != RT_NONE)
        t->next_sib[pv] = n;
    else if (parent1)
        t->first_child[parent1 - 1] = n;
    if (n != RT_NONE)
        t->prev_sib[n] = pv;
}

/* Load path into *tr.  Returns 0, or -1 after writing "reap-trace: path:
 * offset N: what" into err (len bytes). */
int rt_load(const char *path, rt_trace_t *tr, char *err, size_t len);

/* Load from memory (tests). */
int rt_load_mem(const char *name, const uint8_t *data, size_t size, rt_trace_t *tr, char *err,
                size_t len);

void rt_free(rt_trace_t *tr);

/* Arrays that do not come from malloc, so that a replay's footprint (glibc
 * malloc's statistics) counts none of the tool's own memory: zeroed. */
void *rt_map(size_t bytes);
void rt_unmap(void *p, size_t bytes);

#endif /* RT_TRACEFILE_H */
