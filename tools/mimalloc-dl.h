/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mimalloc-dl.h - mimalloc's first-class heaps, found with dlopen().
 *
 * reapbench and reap-trace compare reaps with mi_heap_new() heaps.  They
 * load libmimalloc.so.2 at run time rather than link it: the library
 * defines malloc too, and linking it would put it under every malloc row.
 * The prototypes are declared here (mimalloc.h's, for 2.x), so neither
 * program needs libmimalloc-dev to build; a machine without the library
 * just leaves the mimalloc rows out.
 */
#ifndef REAP_TOOLS_MIMALLOC_DL_H
#define REAP_TOOLS_MIMALLOC_DL_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

/* The head of mimalloc's mi_heap_area_t. */
typedef struct mi_dl_area {
    void *blocks;
    size_t reserved, committed, used, block_size;
} mi_dl_area_t;

typedef bool (*mi_dl_visit_fn)(const void *heap, const mi_dl_area_t *area, void *block,
                               size_t size, void *arg);

typedef struct mi_dl {
    void *(*heap_new)(void);
    void (*heap_destroy)(void *heap);
    void *(*heap_malloc)(void *heap, size_t n);
    void *(*heap_realloc)(void *heap, void *p, size_t n);
    void (*free)(void *p);
    bool (*visit)(const void *heap, bool all_blocks, mi_dl_visit_fn fn, void *arg);
} mi_dl_t;

/* Fills *mi and returns true when libmimalloc.so.2 loads and has every
 * entry above; false, with *mi unusable, otherwise. */
static inline bool mi_dl_open(mi_dl_t *mi)
{
    void *lib = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return false;
    *(void **)&mi->heap_new = dlsym(lib, "mi_heap_new");
    *(void **)&mi->heap_destroy = dlsym(lib, "mi_heap_destroy");
    *(void **)&mi->heap_malloc = dlsym(lib, "mi_heap_malloc");
    *(void **)&mi->heap_realloc = dlsym(lib, "mi_heap_realloc");
    *(void **)&mi->free = dlsym(lib, "mi_free");
    *(void **)&mi->visit = dlsym(lib, "mi_heap_visit_blocks");
    return mi->heap_new && mi->heap_destroy && mi->heap_malloc && mi->heap_realloc && mi->free &&
           mi->visit;
}

#endif
