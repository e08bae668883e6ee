/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * fuzz_model.h - the shadow model the tree targets (fuzz_reap.c over
 * reaps, fuzz_apr.c over APR pools) share: failing loudly, tracing, the
 * patterns written into every live object and checked before it is freed,
 * resized or cleared, and the tree itself: nodes (reaps or pools) with
 * their parents, and the live objects of each node.
 *
 * A target keeps what more it knows of a node (a reap's user area, a
 * pool's cleanups) in an array of its own indexed by the node's slot.
 * Include once, after defining FUZZ_NAME (the target's name in messages).
 */
#ifndef FUZZ_MODEL_H
#define FUZZ_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

/* FUZZ_TRACE=1 in the environment prints each operation: for reading a
 * reproducer as a program.  The target sets trace from it. */
static int trace;
#define TRACE(...) (trace ? fprintf(stderr, __VA_ARGS__) : 0)

static void fail(const char *what, size_t a, size_t b)
{
    fprintf(stderr, FUZZ_NAME ": %s (%zu, %zu)\n", what, a, b);
    abort();
}

/* ---- patterns ---------------------------------------------------------------- */

/* The first 8 bytes hold the seed word, the rest one byte derived from it. */
static uint64_t seed_counter;

static uint64_t new_seed(void)
{
    return ++seed_counter * 0x9E3779B97F4A7C15ull;
}

static unsigned char fill_byte(uint64_t seed)
{
    return (unsigned char)(seed >> 56) | 1;
}

static void pattern_fill(unsigned char *p, size_t n, uint64_t seed)
{
    memcpy(p, &seed, n < 8 ? n : 8);
    if (n > 8)
        memset(p + 8, fill_byte(seed), n - 8);
}

/* Compares in pages with memcmp (one ASan range check each, not one per
 * byte), and only then looks for the byte that differs. */
static void pattern_check(const unsigned char *p, size_t n, uint64_t seed)
{
    static unsigned char ref[4096];
    unsigned char b = fill_byte(seed);
    if (memcmp(p, &seed, n < 8 ? n : 8) != 0)
        fail("object's first bytes changed", (size_t)p, n);
    if (ref[0] != b)
        memset(ref, b, sizeof ref);
    for (size_t i = 8; i < n; i += sizeof ref) {
        size_t k = n - i < sizeof ref ? n - i : sizeof ref;
        if (memcmp(p + i, ref, k) == 0)
            continue;
        for (size_t j = 0; j < k; j++)
            if (p[i + j] != b)
                fail("object's pattern changed at offset", i + j, n);
    }
}

/* ---- the tree ------------------------------------------------------------------ */

#define FZ_NODES 8
#define FZ_OBJS 256
#define FZ_MEM_CAP (48u << 20) /* bytes of live objects at once, all nodes */

typedef struct fz_node {
    void *h;      /* the reap or pool; NULL: slot free */
    int parent;   /* slot of the parent, -1 at the top */
    bool limited; /* a limit is set on this node itself */
} fz_node;

typedef struct fz_obj {
    unsigned char *p; /* NULL: slot free */
    size_t size;      /* bytes asked for */
    size_t len;       /* bytes patterned and counted in model_bytes, >= size */
    int node;         /* slot of its node */
    uint64_t seed;    /* its pattern */
    bool exact;       /* fuzz_reap: a small object (live_bytes counts len) */
} fz_obj;

static fz_node nodes[FZ_NODES];
static fz_obj objs[FZ_OBJS];
static size_t model_bytes; /* the sum of len over the live objects */

/* Forgets everything; reads FUZZ_TRACE. */
static void model_reset(void)
{
    trace = getenv("FUZZ_TRACE") != NULL;
    memset(nodes, 0, sizeof nodes);
    memset(objs, 0, sizeof objs);
    model_bytes = 0;
}

static bool in_subtree(int i, int top)
{
    for (; i >= 0; i = nodes[i].parent)
        if (i == top)
            return true;
    return false;
}

/* Some node on the way from i to the top has a limit. */
static bool limited(int i)
{
    for (; i >= 0; i = nodes[i].parent)
        if (nodes[i].limited)
            return true;
    return false;
}

static int free_node_slot(void)
{
    for (int i = 0; i < FZ_NODES; i++)
        if (!nodes[i].h)
            return i;
    return -1;
}

static int free_obj_slot(void)
{
    for (int i = 0; i < FZ_OBJS; i++)
        if (!objs[i].p)
            return i;
    return -1;
}

/* The n-th live node (wrapping), or -1 when there is none. */
static int pick_node(fz_in *in)
{
    int live[FZ_NODES], n = 0;
    for (int i = 0; i < FZ_NODES; i++)
        if (nodes[i].h)
            live[n++] = i;
    return n ? live[fz_u8(in) % n] : -1;
}

/* A live object, from a place the input picks, or -1. */
static int pick_obj(fz_in *in)
{
    int start = fz_u8(in) % FZ_OBJS;
    for (int k = 0; k < FZ_OBJS; k++) {
        int i = (start + k) % FZ_OBJS;
        if (objs[i].p)
            return i;
    }
    return -1;
}

/* Records object p of node `node' in slot and patterns its first len bytes. */
static void obj_add(int slot, int node, void *p, size_t size, size_t len)
{
    objs[slot] = (fz_obj){p, size, len, node, new_seed(), false};
    model_bytes += len;
    pattern_fill(p, len, objs[slot].seed);
}

static void obj_check(int i) { pattern_check(objs[i].p, objs[i].len, objs[i].seed); }

static void obj_drop(int i)
{
    model_bytes -= objs[i].len;
    objs[i].p = NULL;
}

/* Verifies and forgets the objects of the subtree of top, calls each (if
 * not NULL) on every live node of it, then forgets those nodes, top itself
 * only when with_top.  Parent links stay, for in_subtree. */
static void subtree_drop(int top, bool with_top, void (*each)(int node))
{
    for (int i = 0; i < FZ_OBJS; i++)
        if (objs[i].p && in_subtree(objs[i].node, top)) {
            obj_check(i);
            obj_drop(i);
        }
    for (int k = 0; k < FZ_NODES; k++) {
        if (!nodes[k].h || !in_subtree(k, top))
            continue;
        if (each)
            each(k);
        if (with_top || k != top)
            nodes[k].h = NULL;
    }
}

#endif /* FUZZ_MODEL_H */
