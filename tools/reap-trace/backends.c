/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * backends.c - the allocators a trace is replayed against.
 *
 *   region          libreap reaps whose frees are ignored: memory goes back
 *                   only at clear and destroy, as stock APR pools do
 *   apr-pool        Debian's APR pools themselves (libapr-1.so.0, stock):
 *                   frees ignored, no per-object header, 8-byte rounding,
 *                   8 KiB nodes
 *   reap            libreap reaps, nested as recorded, with frees
 *   glibc           malloc/free; a reap's objects are freed one by one
 *                   when it is cleared or destroyed
 *   mimalloc-heap   a mi_heap_new() heap per reap, mi_heap_destroy()
 *   jemalloc-arena  an arena per top-level reap ("arenas.create"), objects
 *                   by mallocx/dallocx without thread cache; a top-level
 *                   reap's clear resets its arena, its destroy destroys it;
 *                   child reaps free their objects one by one
 *
 * APR, mimalloc and jemalloc are loaded with dlopen() when the tool starts, with
 * prototypes declared here, so the tool builds without their -dev packages
 * and leaves out the ones it cannot load.  docs/trace.md says what each
 * footprint counts.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reap.h"
#include "replay.h"
#include "../mimalloc-dl.h"

/* ---- region and reap: libreap ------------------------------------------------- */

/* The reap-backed APR sets its reaps to 8-byte alignment: so do these, as
 * the trace says. */
static void *reap_new(void *parent, unsigned alignment)
{
    reap_t *r = reap_create(parent);
    if (r && alignment && reap_set_alignment(r, alignment) != 0) {
        reap_destroy(r);
        return NULL;
    }
    return r;
}
static bool always(void *h, bool destroy) { return (void)h, (void)destroy, true; }
static void lr_clear(void *h) { reap_clear(h); }
static void lr_destroy(void *h) { reap_destroy(h); }
static void *lr_alloc(void *h, size_t n) { return reap_malloc(h, n); }
static void lr_free(void *h, void *p, size_t n) { (void)n, reap_free(h, p); }
static void *lr_realloc(void *h, void *p, size_t old, size_t n) { (void)old; return reap_realloc(h, p, n); }
static uint64_t lr_fp(void *h) { return reap_footprint(h, NULL); }
static bool yes(void) { return true; }

static void region_free(void *h, void *p, size_t n) { (void)h, (void)p, (void)n; }

/* A region cannot grow an object in place: q, a new one, gets the old
 * one's bytes, and the old one is left dead (region and apr-pool). */
static void *moved(void *q, const void *p, size_t old, size_t n)
{
    if (q)
        memcpy(q, p, old < n ? old : n);
    return q;
}

static void *region_realloc(void *h, void *p, size_t old, size_t n) { return moved(reap_malloc(h, n), p, old, n); }

/* region and reap differ only in what a free and a realloc do. */
#define LIBREAP_BACKEND(name_, region_, free_, realloc_)                                       \
    {.name = name_, .region = region_, .open = yes, .reap_new = reap_new, .bulk = always, .reap_clear = lr_clear, \
     .reap_destroy = lr_destroy, .alloc = lr_alloc, .free = free_, \
     .realloc = realloc_, .reap_fp = lr_fp}

static const rt_backend_t region = LIBREAP_BACKEND("region", true, region_free, region_realloc);
static const rt_backend_t reap = LIBREAP_BACKEND("reap", false, lr_free, lr_realloc);

/* ---- apr-pool: Debian's APR ------------------------------------------------------- */

/* The region row replays stock APR's policy on libreap's blocks, which
 * carry an 8-byte header each and round to the traced reap's alignment
 * (8 in the reap-backed APR); APR's own pools round to 8 and have no
 * header.  This row is the real library: Debian's
 * libapr-1.so.0 (not the reap-backed one, which exports apr_pfree),
 * loaded by path so that LD_LIBRARY_PATH cannot swap it.
 *
 * A pool's footprint is the bytes of its nodes: the ring of
 * apr_memnode_t (public, apr_allocator.h) from the pool's active node.
 * apr_pool_t is opaque, so where `active' sits in it is found when the
 * library is opened, by watching a probe pool take a second node, and
 * checked against APR 1.7's layout (the node that holds the pool is the
 * next field); a library whose layout does not match is left out.
 *
 * The pools of one replay share an allocator of their own, as httpd's
 * pools share theirs, with APR's default of keeping every freed node for
 * reuse: a new pool or node may get a bigger node off its free list, as in
 * a real server.  It goes when the replay's last pool does, so every
 * replay starts from an empty one, as a new process would. */

typedef struct apr_node {
    struct apr_node *next, **ref;
    uint32_t index, free_index;
    char *first_avail, *endp;
} apr_node_t; /* apr_memnode_t */

#define APR_NODE_SIZE ((sizeof(apr_node_t) + 7) & ~(size_t)7) /* APR_MEMNODE_T_SIZE */
#define APR_PROBE_WORDS 32                                    /* apr_pool_t is smaller */
#ifndef RT_APR_LIB
#define RT_APR_LIB "libapr-1.so.0" /* configure found no apr-1: dlopen's search */
#endif

static struct {
    int (*initialize)(void);
    int (*create)(void **pool, void *parent, void *abort_fn, void *allocator);
    void *(*palloc)(void *pool, size_t n);
    void (*clear)(void *pool);
    void (*destroy)(void *pool);
    int (*allocator_create)(void **allocator);
    void (*allocator_destroy)(void *allocator);
    size_t active;   /* word index of apr_pool_t.active */
    void *allocator; /* the replay's (NULL between replays) */
    size_t pools;    /* pools alive on it */
} apr;

/* A pool's handle: the pool, and its footprint when `active' was last seen:
 * apr_palloc() changes `active' whenever it adds a node to the ring, so a
 * bump within the active node costs no walk.  Handles come from
 * rt_map(), like the engine's arrays, so glibc's row does not count them. */
typedef struct apr_reap {
    void *pool;
    apr_node_t *active;
    uint64_t fp;
    struct apr_reap *next_free;
} apr_reap_t;

static apr_reap_t *apr_spare;

static apr_node_t *apr_active(void *pool) { return ((apr_node_t **)pool)[apr.active]; }

static uint64_t apr_nodes_bytes(const apr_node_t *active)
{
    uint64_t sum = 0;
    const apr_node_t *n = active;
    do {
        sum += (uint64_t)(n->endp - (const char *)n);
        n = n->next;
    } while (n != active);
    return sum;
}

/* Finds apr_pool_t.active: after a request too big for the first node,
 * it is the one word of the pool pointing at a node whose first_avail
 * ends that request, and the word after it points at the node before the
 * pool (`self'). */
static bool apr_find_active(void)
{
    void *allocator, *pool;
    if (apr.allocator_create(&allocator) != 0)
        return false;
    if (apr.create(&pool, NULL, NULL, allocator) != 0) {
        apr.allocator_destroy(allocator);
        return false;
    }
    char *big = apr.palloc(pool, 10000);
    bool found = false;
    for (size_t i = 0; big && i + 1 < APR_PROBE_WORDS && !found; i++) {
        apr_node_t *n = ((apr_node_t **)pool)[i];
        apr_node_t *self = ((apr_node_t **)pool)[i + 1];
        /* only the word after `self' is read through */
        found = (char *)self + APR_NODE_SIZE == (char *)pool && n != NULL && (char *)n < big &&
                n->first_avail == big + 10000 && n->endp >= n->first_avail && n->next == self;
        if (found)
            apr.active = i;
    }
    apr.destroy(pool);
    apr.allocator_destroy(allocator);
    return found;
}

static bool apr_open(void)
{
    void *lib = dlopen(RT_APR_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return false;
    if (dlsym(lib, "apr_pfree")) { /* the reap-backed APR: not this row */
        dlclose(lib);
        return false;
    }
    *(void **)&apr.initialize = dlsym(lib, "apr_initialize");
    *(void **)&apr.create = dlsym(lib, "apr_pool_create_ex");
    *(void **)&apr.palloc = dlsym(lib, "apr_palloc");
    *(void **)&apr.clear = dlsym(lib, "apr_pool_clear");
    *(void **)&apr.destroy = dlsym(lib, "apr_pool_destroy");
    *(void **)&apr.allocator_create = dlsym(lib, "apr_allocator_create");
    *(void **)&apr.allocator_destroy = dlsym(lib, "apr_allocator_destroy");
    if (!apr.initialize || !apr.create || !apr.palloc || !apr.clear || !apr.destroy ||
        !apr.allocator_create || !apr.allocator_destroy ||
        apr.initialize() != 0 || !apr_find_active()) {
        dlclose(lib); /* apr_initialize() is not undone: the tool is exiting or moving on */
        return false;
    }
    return true;
}

static void *apr_new(void *parent, unsigned alignment)
{
    (void)alignment; /* APR's pools align to 8 anyway */
    if (!apr_spare) {
        size_t n = 4096 / sizeof(apr_reap_t);
        apr_reap_t *slab = rt_map(n * sizeof *slab);
        if (!slab)
            return NULL;
        for (size_t i = 0; i < n; i++)
            slab[i].next_free = i + 1 < n ? &slab[i + 1] : NULL;
        apr_spare = slab;
    }
    if (!apr.allocator && apr.allocator_create(&apr.allocator) != 0) {
        apr.allocator = NULL;
        return NULL;
    }
    apr_reap_t *h = apr_spare;
    void *up = parent ? ((apr_reap_t *)parent)->pool : NULL;
    if (apr.create(&h->pool, up, NULL, up ? NULL : apr.allocator) != 0)
        return NULL;
    apr_spare = h->next_free;
    h->active = NULL;
    apr.pools++;
    return h;
}

/* A clear keeps the node that holds the pool, which may have been the
 * active one already: the ring must be walked again. */
static void apr_clear_(void *h)
{
    apr_reap_t *r = h;
    apr.clear(r->pool);
    r->active = NULL;
}
static void apr_destroy_(void *h)
{
    apr_reap_t *r = h;
    apr.destroy(r->pool);
    r->next_free = apr_spare;
    apr_spare = r;
    if (--apr.pools == 0) { /* the engine destroys children first: none is left */
        apr.allocator_destroy(apr.allocator);
        apr.allocator = NULL;
    }
}
static void *apr_alloc(void *h, size_t n) { return apr.palloc(((apr_reap_t *)h)->pool, n); }

static void *apr_realloc(void *h, void *p, size_t old, size_t n) { return moved(apr_alloc(h, n), p, old, n); }

static uint64_t apr_fp(void *h)
{
    apr_reap_t *r = h;
    apr_node_t *a = apr_active(r->pool);
    if (a != r->active) {
        r->active = a;
        r->fp = apr_nodes_bytes(a);
    }
    return r->fp;
}

static const rt_backend_t apr_pool = {
    .name = "apr-pool",
    .region = true,
    .open = apr_open,
    .reap_new = apr_new,
    .bulk = always,
    .reap_clear = apr_clear_,
    .reap_destroy = apr_destroy_,
    .alloc = apr_alloc,
    .free = region_free,
    .realloc = apr_realloc,
    .reap_fp = apr_fp};

/* ---- glibc ------------------------------------------------------------------------ */

/* The handle of every reap: not NULL, so the engine sees no failure. */
static char glibc_reap;

static void *glibc_new(void *parent, unsigned alignment) { return (void)parent, (void)alignment, &glibc_reap; }
static bool never(void *h, bool destroy) { return (void)h, (void)destroy, false; }
static void nothing(void *h) { (void)h; }
static void *glibc_alloc(void *h, size_t n) { return (void)h, malloc(n); }
static void glibc_free(void *h, void *p, size_t n) { (void)h, (void)n, free(p); }
static void *glibc_realloc(void *h, void *p, size_t old, size_t n) { (void)h, (void)old; return realloc(p, n); }

/* Bytes of the main arena's heap and of mmap'd chunks (mallinfo2). */
static uint64_t glibc_fp(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.arena + mi.hblkhd;
}

/* The tool's own use of malloc when the replay starts: the free space of
 * the arena is the replay's to use, and counts. */
static uint64_t glibc_base(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static const rt_backend_t glibc = {
    .name = "glibc",
    .open = yes,
    .reap_new = glibc_new,
    .bulk = never,
    .reap_clear = nothing,
    .reap_destroy = nothing,
    .alloc = glibc_alloc,
    .free = glibc_free,
    .realloc = glibc_realloc,
    .footprint = glibc_fp,
    .baseline = glibc_base};

/* ---- mimalloc ------------------------------------------------------------------------ */

static struct {
    mi_dl_t api;          /* ../mimalloc-dl.h */
    void **live;          /* the heaps not yet destroyed */
    size_t nlive, cap;
} mi;

static bool mi_open(void) { return mi_dl_open(&mi.api); }

static void *mi_new(void *parent, unsigned alignment)
{
    (void)parent, (void)alignment;
    if (mi.nlive == mi.cap) {
        size_t cap = mi.cap ? 2 * mi.cap : 1024;
        void **live = realloc(mi.live, cap * sizeof *live); /* glibc's, not mimalloc's */
        if (!live)
            return NULL;
        mi.live = live, mi.cap = cap;
    }
    void *h = mi.api.heap_new();
    if (h)
        mi.live[mi.nlive++] = h;
    return h;
}

/* mimalloc has no public clear (a heap's handle cannot survive
 * mi_heap_destroy), so a clear frees the objects one by one; a destroy
 * releases them with the heap. */
static bool mi_bulk(void *h, bool destroy) { return (void)h, destroy; }
static void mi_destroy(void *h)
{
    for (size_t i = 0; i < mi.nlive; i++)
        if (mi.live[i] == h) {
            mi.live[i] = mi.live[--mi.nlive];
            break;
        }
    mi.api.heap_destroy(h);
}
static void *mi_alloc(void *h, size_t n) { return mi.api.heap_malloc(h, n); }
static void mi_free_(void *h, void *p, size_t n) { (void)h, (void)n, mi.api.free(p); }
static void *mi_realloc_(void *h, void *p, size_t old, size_t n) { (void)old; return mi.api.heap_realloc(h, p, n); }

static bool mi_area_committed(const void *heap, const mi_dl_area_t *area, void *block, size_t size,
                              void *arg)
{
    (void)heap, (void)block, (void)size;
    *(uint64_t *)arg += area->committed;
    return true;
}

/* Bytes committed in the pages of the live heaps (mi_heap_visit_blocks's
 * areas), summed. */
static uint64_t mi_fp(void)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < mi.nlive; i++)
        mi.api.visit(mi.live[i], false, mi_area_committed, &sum);
    return sum;
}

static const rt_backend_t mimalloc = {
    .name = "mimalloc-heap",
    .open = mi_open,
    .reap_new = mi_new,
    .bulk = mi_bulk,
    .reap_clear = nothing,
    .reap_destroy = mi_destroy,
    .alloc = mi_alloc,
    .free = mi_free_,
    .realloc = mi_realloc_,
    .footprint = mi_fp};

/* ---- jemalloc ----------------------------------------------------------------------- */

/* jemalloc's ABI (jemalloc.h): the flags of mallocx() and friends. */
#define JE_ARENA(a) ((int)(((unsigned)(a) + 1) << 20))
#define JE_TCACHE_NONE (1 << 8)

static struct {
    int (*mallctl)(const char *name, void *old, size_t *oldlen, void *new_, size_t newlen);
    void *(*mallocx)(size_t n, int flags);
    void (*dallocx)(void *p, int flags);
    void *(*rallocx)(void *p, size_t n, int flags);
} je;

/* A reap's handle: its top-level reap's arena, and whether it is that top. */
typedef struct je_reap {
    unsigned arena;
    bool top;
} je_reap_t;

static bool je_open(void)
{
    void *lib = dlopen("libjemalloc.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return false;
    *(void **)&je.mallctl = dlsym(lib, "mallctl");
    *(void **)&je.mallocx = dlsym(lib, "mallocx");
    *(void **)&je.dallocx = dlsym(lib, "dallocx");
    *(void **)&je.rallocx = dlsym(lib, "rallocx");
    return je.mallctl && je.mallocx && je.dallocx && je.rallocx;
}

static void *je_new(void *parent, unsigned alignment)
{
    (void)alignment;
    je_reap_t *r = calloc(1, sizeof *r); /* glibc's: not in jemalloc's figures */
    if (!r)
        return NULL;
    if (parent) {
        r->arena = ((je_reap_t *)parent)->arena;
        return r;
    }
    size_t len = sizeof r->arena;
    if (je.mallctl("arenas.create", &r->arena, &len, NULL, 0) != 0) {
        free(r);
        return NULL;
    }
    r->top = true;
    return r;
}

static void je_arena_ctl(unsigned arena, const char *what)
{
    char name[64];
    snprintf(name, sizeof name, "arena.%u.%s", arena, what);
    je.mallctl(name, NULL, NULL, NULL, 0);
}

static bool je_bulk(void *h, bool destroy) { return (void)destroy, ((je_reap_t *)h)->top; }

static void je_clear(void *h)
{
    je_reap_t *r = h;
    if (r->top)
        je_arena_ctl(r->arena, "reset");
}

static void je_destroy(void *h)
{
    je_reap_t *r = h;
    if (r->top)
        je_arena_ctl(r->arena, "destroy");
    free(r);
}

static int je_flags(void *h) { return JE_ARENA(((je_reap_t *)h)->arena) | JE_TCACHE_NONE; }
static void *je_alloc(void *h, size_t n) { return je.mallocx(n ? n : 1, je_flags(h)); }
static void je_free(void *h, void *p, size_t n) { (void)n, je.dallocx(p, JE_TCACHE_NONE); (void)h; }
static void *je_realloc(void *h, void *p, size_t old, size_t n) { (void)old; return je.rallocx(p, n ? n : 1, je_flags(h)); }

/* Bytes in jemalloc's resident pages (stats.resident, after an epoch). */
static uint64_t je_fp(void)
{
    uint64_t epoch = 1;
    size_t len = sizeof epoch, resident = 0, rlen = sizeof resident;
    je.mallctl("epoch", &epoch, &len, &epoch, len);
    je.mallctl("stats.resident", &resident, &rlen, NULL, 0);
    return resident;
}

static const rt_backend_t jemalloc = {
    .name = "jemalloc-arena",
    .open = je_open,
    .reap_new = je_new,
    .bulk = je_bulk,
    .reap_clear = je_clear,
    .reap_destroy = je_destroy,
    .alloc = je_alloc,
    .free = je_free,
    .realloc = je_realloc,
    .footprint = je_fp};

const rt_backend_t *const rt_backends[] = {&region, &apr_pool, &reap, &glibc, &mimalloc, &jemalloc, NULL};
