/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * reap.h - reaps: regions that can also free single objects.
 *
 * A reap (Berger, Zorn and McKinley, 2002) is a region allocator that also
 * lets the program free individual objects.  Until something is freed it
 * allocates by bumping a pointer through geometrically growing chunks, as a
 * region does; freed objects go onto the reap's own Lea-style heap and are
 * reused by later allocations from the same reap.  Reaps nest: clearing or
 * destroying a reap destroys its children first.
 *
 * Threads: one reap is used by one thread at a time (as an APR pool is).
 * Creating and destroying children of one shared parent from several threads
 * at once is safe, and so is reading statistics of a reap another thread is
 * using (the figures are then a snapshot, not a consistent cut), and so is
 * walking a tree (reap_walk) while other threads change it.
 *
 * Errors: allocation returns NULL on failure (out of memory, over the reap's
 * limit, size overflow) and the reap stays usable.  Misuse (a double free, a
 * pointer the reap did not hand out, a NULL reap) is reported in one line on
 * stderr naming the pointer and the reap, and the process aborts; with
 * REAP_MISUSE=report it goes on, the call leaving the reap as it was, and
 * reap_set_misuse_handler() takes the reports instead.
 */
#ifndef REAP_H
#define REAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(REAP_STATIC)
#define REAP_API __attribute__((visibility("default")))
#else
#define REAP_API
#endif

#define REAP_VERSION_MAJOR 0
#define REAP_VERSION_MINOR 2
#define REAP_VERSION_PATCH 0
#define REAP_VERSION_STRING "0.2.0"

/** Every pointer a reap returns is aligned to this many bytes, unless
 *  reap_set_alignment() lowered it to 8 for that reap. */
#define REAP_ALIGNMENT 16

/** An opaque reap. */
typedef struct reap reap_t;

/** @return the library's version, e.g. "0.2.0". */
REAP_API const char *reap_version(void);

/* ------------------------------------------------------------------------- */
/** @name Life cycle */

/**
 * Create a reap.
 * @param parent NULL for a top-level reap, or the reap that will own this one:
 *               clearing or destroying @p parent destroys the new reap.
 * @return the new reap, or NULL when memory (or the parent's limit) runs out.
 */
REAP_API reap_t *reap_create(reap_t *parent);

/** Chunk sizes asked of a reap_chunk_source_t are multiples of this. */
#define REAP_CHUNK_GRAIN 4096

/**
 * Where a reap's chunks come from and go back to, when not straight from
 * the base allocator: a cache the application keeps, as an APR allocator
 * keeps its pools' memory on its own free lists up to a bound.
 *
 * @c alloc hands out a chunk of exactly @p size bytes, a multiple of
 * REAP_CHUNK_GRAIN; NULL when memory runs out.  The chunk must be a whole
 * block of reap_base_alloc() (one asked for with @p size, or one a reap
 * gave back to the source), because a reap finds a chunk from any
 * pointer into it through the base allocator.  The reap asks the source
 * for chunks of REAP_CHUNK_GRAIN bytes and more (up to REAP_MAX_CHUNK, or
 * twice that when one block needs it); smaller chunks come from the base
 * allocator directly.  @c free takes
 * a chunk back, with its size, when a clear, a destroy or the last free of
 * a retired chunk lets it go.  Large objects (above REAP_LARGE_THRESHOLD)
 * still come from the base allocator.  The source must outlive every reap
 * using it, and is called from whichever thread uses the reap.
 */
typedef struct reap_chunk_source {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *chunk, size_t size);
    void *ctx;
} reap_chunk_source_t;

/** The largest user area a reap may have (reap_options_t.user_size). */
#define REAP_USER_MAX 4096

/** Options of reap_create_ex(); zero-initialise and set what you need. */
typedef struct reap_options {
    /** Bytes of caller space kept inside the reap object itself, 16-byte
     *  aligned, zero-filled at creation and untouched by reap_clear().  APR
     *  keeps its pool structure there.  0 for none, at most REAP_USER_MAX. */
    size_t user_size;
} reap_options_t;

/**
 * Create a reap with options; reap_create(parent) is reap_create_ex(parent,
 * NULL).
 * @return the new reap, or NULL on failure (also when @p opts asks for a
 *         user area larger than REAP_USER_MAX).
 */
REAP_API reap_t *reap_create_ex(reap_t *parent, const reap_options_t *opts);

/**
 * reap_create_ex(), the reap's chunks coming from @p chunks (see
 * reap_chunk_source_t), which is not copied and must outlive the reap.
 * NULL, and reap_create() and reap_create_ex(), give a reap its parent's
 * source, or the base allocator for a top-level reap.
 */
REAP_API reap_t *reap_create_from(reap_t *parent, const reap_options_t *opts,
                                  const reap_chunk_source_t *chunks);

/** This reap.h has reap_create_from() and reap_chunk_source_t. */
#define REAP_HAS_CHUNK_SOURCE 1

/**
 * Align the objects of @p r to @p alignment bytes: 8, or REAP_ALIGNMENT
 * (the default).  An object takes its size rounded up to the alignment,
 * so at 8 it takes what it would in an APR pool, which promises 8-byte
 * alignment.  reap_aligned_alloc() still aligns to what it is asked.
 * Call it on a reap that has handed out nothing since its creation or its
 * last clear; children do not inherit it.
 * @return 0, or EINVAL for another alignment or a reap that has handed out
 *         objects.
 */
REAP_API int reap_set_alignment(reap_t *r, size_t alignment);

/** @return the user area of @p r (see reap_options_t), or NULL if it has none. */
REAP_API void *reap_user_area(reap_t *r);

/**
 * Free every object of @p r and destroy its children (deepest first); the
 * reap itself stays usable and keeps its first chunk.  Its limit is kept.
 */
REAP_API void reap_clear(reap_t *r);

/** Destroy the children of @p r, then @p r itself, returning all memory. */
REAP_API void reap_destroy(reap_t *r);

/** @return the parent of @p r, or NULL for a top-level reap. */
REAP_API reap_t *reap_parent(const reap_t *r);

/**
 * Name @p r in the allocation trace (REAP_TRACE, docs/trace.md), as
 * apr_pool_tag() names a pool; the trace keeps the first 255 bytes.  Does
 * nothing, but one test, when tracing is off.  @p tag NULL is ignored.
 */
REAP_API void reap_trace_tag(reap_t *r, const char *tag);

/* ------------------------------------------------------------------------- */
/** @name Objects */

/**
 * Allocate @p size bytes from @p r, aligned to REAP_ALIGNMENT.
 * size 0 gives a unique minimum-size object.
 * @return the object, or NULL (out of memory, over the limit, or too large).
 */
REAP_API void *reap_malloc(reap_t *r, size_t size);

/** Allocate @p n * @p size zeroed bytes; NULL also when the product overflows. */
REAP_API void *reap_calloc(reap_t *r, size_t n, size_t size);

/**
 * Resize @p ptr (from @p r) to @p size bytes, in place when the block is
 * followed by free space or by the reap's bump frontier, else by moving it.
 * realloc(r, NULL, n) is malloc(r, n); realloc(r, p, 0) frees p and returns
 * NULL.  On failure NULL is returned and @p ptr is left as it was.
 */
REAP_API void *reap_realloc(reap_t *r, void *ptr, size_t size);

/**
 * Allocate @p size bytes aligned to @p alignment (a power of two; values
 * below REAP_ALIGNMENT act as REAP_ALIGNMENT).
 * @return the object; NULL on failure or when @p alignment is not a power of
 *         two.  The object is freed with reap_free() like any other.
 */
REAP_API void *reap_aligned_alloc(reap_t *r, size_t alignment, size_t size);

/**
 * Free one object of @p r; its memory is used again by later allocations
 * from @p r (once the reap would otherwise grow: a sweep joins freed
 * neighbours and files them for reuse).  NULL does nothing.  A pointer @p r did not hand out, or one freed
 * already, is a misuse (see reap_set_misuse_handler()).
 */
REAP_API void reap_free(reap_t *r, void *ptr);

/** @return the bytes usable at @p ptr (at least what was asked: its size
 *  rounded up to the reap's alignment); 0 for NULL.  @p ptr must be a live
 *  object of a reap; the reap's own thread calls it. */
REAP_API size_t reap_usable_size(const void *ptr);

/* ------------------------------------------------------------------------- */
/** @name Inline allocation, for allocators layered on reaps */

/**
 * The first fields of every reap, published for reap_malloc_bump() and
 * for nothing else: only it and libreap read or write them.  A program
 * that compiles reap_malloc_bump() in depends on this layout and on the
 * block format it writes (no header: the object is the block, and a bit
 * set in its chunk's bitmap of block starts, one bit for each 8 bytes);
 * REAP_FRONTIER_VERSION changes when either does.  Version 5 is the
 * first of blocks without headers in every reap.
 */
#define REAP_FRONTIER_VERSION 5

typedef struct reap_frontier {
    char *bump;          /**< where the next bumped block starts */
    char *bump_end;      /**< where the last bumped block may end */
    uintptr_t bits;      /**< the current chunk's bitmaps: the word of block
                          *   starts for address a is at bits + (a >> 9 << 4),
                          *   its bit (a >> 3) % 64 */
    size_t inline_limit; /**< reap_malloc_bump() bumps requests of 1 to this
                          *   many bytes (freed objects wait for the
                          *   chunk to fill); 0 where libreap annotates
                          *   memory for ASan or Valgrind or traces */
    size_t grain_mask;   /**< block sizes are multiples of this plus one */
} reap_frontier_t;

/** The bytes of the block a request of @p size bytes (at least 1) takes in
 *  a reap of the default alignment: @p size rounded up to REAP_ALIGNMENT. */
static inline size_t reap_block_size(size_t size)
{
    return (size + REAP_ALIGNMENT - 1) & ~(size_t)(REAP_ALIGNMENT - 1);
}

/** The block of @p bsize bytes (a request rounded up to the reap's grain)
 *  cut from the frontier, its start recorded; NULL when the current chunk
 *  has no room for it. */
static inline void *reap_frontier_bump(reap_frontier_t *f, size_t bsize)
{
    char *b = f->bump;

    if (bsize > (size_t)(f->bump_end - b))
        return NULL;
    f->bump = b + bsize;
    *(uint64_t *)(f->bits + ((uintptr_t)b >> 9 << 4)) |= (uint64_t)1 << ((uintptr_t)b >> 3 & 63);
    return b;
}

/**
 * The commonest case of reap_malloc(), compiled into the caller: while the
 * frontier's chunk has room, the object bumped there (a reap uses its
 * frontier before what was freed).  NULL when only reap_malloc() can
 * serve the request.  @p r must not be NULL: this is for allocators layered
 * on reaps, which hold a live reap and whose every call counts (APR's
 * apr_palloc() runs about 130 times for each request httpd serves, and
 * calls its slow path from a function of its own, so that the bump needs
 * no stack frame); reap_malloc_inline() takes any reap, NULL included.
 */
static inline void *reap_malloc_bump(reap_t *r, size_t size)
{
    reap_frontier_t *f = (reap_frontier_t *)(void *)r;

    if (size - 1 < f->inline_limit) /* 1 .. inline_limit */
        return reap_frontier_bump(f, (size + f->grain_mask) & ~f->grain_mask);
    return NULL;
}

/** reap_malloc(), with reap_malloc_bump()'s case compiled into the caller. */
static inline void *reap_malloc_inline(reap_t *r, size_t size)
{
    void *p = r != NULL ? reap_malloc_bump(r, size) : NULL;

    return p != NULL ? p : reap_malloc(r, size);
}

/* ------------------------------------------------------------------------- */
/** @name Limits */

/**
 * Cap the memory that @p r and all its descendants hold from the base
 * allocator (their footprint) at @p bytes; 0 removes the limit.  An
 * allocation or reap_create() that would pass the cap returns NULL and
 * everything stays usable.  A limit below the current footprint only stops
 * further growth.  Call it while no other thread is using the subtree.
 * @return 0, or ENOMEM if the bookkeeping could not be set up.
 */
REAP_API int reap_set_limit(reap_t *r, size_t bytes);

/** @return the limit set on @p r itself, 0 for none. */
REAP_API size_t reap_get_limit(const reap_t *r);

/* ------------------------------------------------------------------------- */
/** @name Statistics */

/**
 * Figures of a reap.  "Bytes" of objects count whole blocks: the request
 * rounded up to the reap's alignment (at least one grain).  Two cases
 * count more: a block cut from a freed one keeps a remainder too small to
 * stand alone (up to 8 bytes more), and a large object counts the whole
 * solo chunk it takes.
 * The field list is REAP_STATS_FIELDS, so printers stay in step with it.
 */
#define REAP_STATS_FIELDS(X)                                                   \
    X(reaps, "reaps counted (1, or the size of the subtree)")                  \
    X(live_bytes, "bytes in live objects, rounded to their blocks")                   \
    X(live_objects, "objects allocated and not yet freed or cleared")          \
    X(peak_live_bytes, "highest live_bytes since creation")                    \
    X(footprint, "bytes held from the base allocator")                         \
    X(peak_footprint, "highest footprint since creation")                      \
    X(heap_free_bytes, "bytes waiting on the reap's heap for reuse")           \
    X(allocs, "allocations since creation")                                    \
    X(frees, "single-object frees since creation")                             \
    X(clears, "reap_clear() calls since creation")                             \
    X(limit_failures, "allocations refused by a limit")

typedef struct reap_stats {
#define REAP_STATS_DECLARE_(name, doc) uint64_t name;
    REAP_STATS_FIELDS(REAP_STATS_DECLARE_)
#undef REAP_STATS_DECLARE_
} reap_stats_t;

/** Fill @p out with the figures of @p r alone. */
REAP_API void reap_get_stats(const reap_t *r, reap_stats_t *out);

/**
 * Fill @p out with the sums over @p r and all its descendants.
 * peak_footprint is exact for a reap with a limit (its subtree is accounted
 * as a whole); otherwise, like peak_live_bytes, it is the sum of each reap's
 * own peak, an upper bound of the subtree's peak.
 */
REAP_API void reap_get_tree_stats(reap_t *r, reap_stats_t *out);

/** Output callback of reap_stats_print(): @p text is NUL-terminated. */
typedef void (*reap_write_fn)(void *arg, const char *text);

/**
 * Print @p s as text (one "name: value" line per field) or, if @p json is
 * non-zero, as one JSON object.  @p write NULL writes to stderr.
 */
REAP_API void reap_stats_print(const reap_stats_t *s, int json,
                               reap_write_fn write, void *arg);

/**
 * Figures of the base allocator that every reap (and libreap-malloc.so)
 * draws on: one per process, all threads.  Field list REAP_BASE_STATS_FIELDS.
 */
#define REAP_BASE_STATS_FIELDS(X)                                              \
    X(in_use, "bytes handed out: reap chunks, large objects, malloc blocks")   \
    X(held, "bytes mapped from the OS, resident or not (a trim frees pages in place)") \
    X(peak_held, "highest held")                                              \
    X(cached, "bytes held empty, ready for reuse")                            \
    X(returned, "bytes given back to the operating system, ever")             \
    X(os_maps, "mappings made")                                               \
    X(os_unmaps, "mappings returned")                                         \
    X(superblocks, "superblocks held by all heaps")                           \
    X(to_global, "superblocks moved to the global heap")                      \
    X(from_global, "superblocks taken from the global heap")                  \
    X(release_trims, "whole trims the release thread made when the process fell quiet") \
    X(release_returned, "bytes the release thread gave back to the operating system")

typedef struct reap_base_stats {
#define REAP_STATS_DECLARE_(name, doc) uint64_t name;
    REAP_BASE_STATS_FIELDS(REAP_STATS_DECLARE_)
#undef REAP_STATS_DECLARE_
} reap_base_stats_t;

/** Fill @p out with a snapshot of the base allocator's figures.  Thread-safe. */
REAP_API void reap_get_base_stats(reap_base_stats_t *out);

/**
 * Give back to the operating system what the base allocator holds empty
 * and the pages of free blocks inside superblocks still in use, and hand
 * what the calling thread caches back to the shared heaps.  No program
 * needs to call it: the base allocator's release thread returns freed
 * memory after a short decay, and calls this itself once the process has
 * made no allocator call for the idle interval (reap_base_idle_release()).
 * It locks every heap in turn; call it when quiet, not on every request.
 * Thread-safe.
 */
REAP_API void reap_base_trim(void);

/**
 * Set how long the process must make no call into the base allocator
 * before its release thread trims everything it can (reap_base_trim()):
 * @p ms milliseconds, 0 for never (freed memory still goes back after its
 * decay).  The default is REAP_IDLE_MS, 1000.  mod_reap's ReapIdleRelease
 * sets it.  Thread-safe.
 */
REAP_API void reap_base_idle_release(unsigned long ms);

/**
 * Have every reap_base_trim() call @p fn(@p arg) first, before the base
 * allocator gives memory back, so that a cache the application keeps in
 * front of it (the reap-backed APR's allocators' free lists) can hand back
 * what nobody uses and the same trim return it to the operating system.
 * One hook: a second call replaces the first, and NULL removes it.  Set it
 * before other threads may trim.  @p fn runs in the trimming thread and
 * may call reap_base_free().
 */
REAP_API void reap_base_on_trim(void (*fn)(void *arg), void *arg);

/**
 * A block of at least @p size bytes straight from the base allocator, with
 * no reap around it: for memory whose lifetime no reap matches, such as the
 * APR allocator's memnodes, which its users hand back one by one.  Aligned
 * to 64 bytes; NULL (errno ENOMEM) when there is no memory.  Thread-safe.
 * What reap_base_free() takes back goes to the base allocator's caches and
 * from there to the operating system, as a reap's chunks do.
 */
REAP_API void *reap_base_alloc(size_t size);

/**
 * Give back a block of reap_base_alloc(); @p size must be the size it was
 * asked for.  Any thread may give back any block; NULL is ignored.  A
 * pointer the base allocator did not hand out, or one given back twice, is
 * reported on stderr as libreap-malloc.so reports a bad free(), and
 * REAP_MISUSE says what follows (docs/misuse.md).
 */
REAP_API void reap_base_free(void *p, size_t size);

/**
 * The calling thread is about to wait for work (a condition variable, a
 * queue): until reap_base_wait_end(), a reap_base_trim() in another thread
 * may hand the blocks this thread caches back to the shared heaps, and so
 * to the operating system.  Without it a thread that waits keeps its cache
 * (up to a few hundred KiB) for as long as it waits.  Between the two the
 * thread must not allocate or free through libreap.  Costs one atomic
 * store; the reap-backed APR calls both around apr_thread_cond_wait().
 */
REAP_API void reap_base_wait_begin(void);

/** The calling thread has stopped waiting; call before its next allocation.
 *  One atomic exchange, or a short wait while a trim flushes its cache. */
REAP_API void reap_base_wait_end(void);

/** Print @p s like reap_stats_print() does. */
REAP_API void reap_base_stats_print(const reap_base_stats_t *s, int json,
                                    reap_write_fn write, void *arg);

/* ------------------------------------------------------------------------- */
/** @name Walking a tree of reaps */

/**
 * Footprint of @p r alone (bytes it holds from the base allocator), read
 * with relaxed atomic loads, so any thread may call it while another uses
 * @p r: the value is one @p r had a moment ago.  @p peak, if not NULL, gets
 * its highest footprint since creation the same way, never below the
 * footprint returned.
 */
REAP_API uint64_t reap_footprint(const reap_t *r, uint64_t *peak);

/**
 * Footprint of @p r and all its descendants, and in @p peak (if not NULL)
 * the highest it reached.  A reap with a limit (reap_set_limit(), even 0)
 * accounts its subtree as a whole: both are exact and read without a walk
 * or a lock, like reap_footprint().  Otherwise this walks the subtree
 * (reap_walk()'s rules) and @p peak is the sum of each reap's own peak, an
 * upper bound, as in reap_get_tree_stats().
 */
REAP_API uint64_t reap_tree_footprint(reap_t *r, uint64_t *peak);

/**
 * Callback of reap_walk(): @p r is the reap visited, @p depth its distance
 * from the walk's root (0 for the root).
 * @return 0 to go on; anything else stops the walk, and reap_walk() returns
 *         it.
 */
typedef int (*reap_walk_fn)(reap_t *r, unsigned depth, void *arg);

/**
 * Visit @p root and all its descendants, depth first: a reap, then each of
 * its children's subtrees, children newest first.  Safe while other threads
 * create, clear, use and destroy reaps of the tree: a reap created during
 * the walk may or may not be visited, a reap destroyed during it is either
 * visited before it goes or not at all, and a visited reap stays alive (and
 * its user area readable) until @p fn returns.  The caller keeps @p root
 * itself alive.
 *
 * Locks: the walk holds the locks of the reaps on the path from @p root to
 * the one visited, so a thread creating or destroying a child of one of
 * them waits until the walk leaves it: keep @p fn short, and stop early on
 * big trees.  @p fn must not create, clear or destroy any reap of the
 * tree, nor call reap_walk() or reap_get_tree_stats() on an ancestor of
 * @p r (that deadlocks); it may read anything about @p r and its subtree.
 *
 * Figures of a reap that another thread is using are approximate:
 * reap_footprint() is safe to call; reap_get_stats() reads fields their
 * owner writes without synchronisation (each value is one it had recently,
 * the set is not a consistent cut, and a race detector reports the reads).
 * @return 0 after visiting the whole tree, or the value @p fn stopped with.
 */
REAP_API int reap_walk(reap_t *root, reap_walk_fn fn, void *arg);

/* ------------------------------------------------------------------------- */
/** @name Misuse reports */

/** What a program did wrong (reap_misuse_t.kind). */
typedef enum reap_misuse_kind {
    REAP_MISUSE_DOUBLE_FREE = 1, /**< reap_free() of an object freed already */
    REAP_MISUSE_FOREIGN,         /**< a pointer the reap did not hand out: another
                                  *   reap's, malloc's, or one inside an object */
    REAP_MISUSE_FREED_REALLOC,   /**< reap_realloc() of an object freed already */
    REAP_MISUSE_NULL_REAP,       /**< a NULL reap where one is required */
    REAP_MISUSE_CORRUPTION       /**< a freed object waiting on the reap's
                                  *   lists was written to (its link points
                                  *   to no freed block): always aborts */
} reap_misuse_kind_t;

/** What libreap does after a misuse (the handler's return value). */
typedef enum reap_misuse_action {
    REAP_MISUSE_ABORT = 0, /**< abort the process */
    REAP_MISUSE_LEAK = 1   /**< go on: the call returns at once, leaving the
                            *   reap and the object as they were (a freed
                            *   object stays on the heap once, a foreign one
                            *   is leaked), with NULL (errno EINVAL), 0 or
                            *   EINVAL if it returns a value */
} reap_misuse_action_t;

/** One misuse, as reap_set_misuse_handler()'s handler sees it. */
typedef struct reap_misuse {
    reap_misuse_kind_t kind;
    const char *what;    /**< the misuse in words, e.g. "double free of" */
    const char *message; /**< the whole line libreap writes when there is no
                          *   handler, without the newline: "libreap: double
                          *   free of 0x5581e2c0a0f0 (reap 0x5581e2c09000)" */
    const void *ptr;     /**< the pointer passed, or NULL */
    reap_t *reap;        /**< the reap passed (may be NULL); reap_user_area()
                          *   gives its user area, e.g. APR's pool */
    reap_misuse_action_t action; /**< what REAP_MISUSE says: abort (the
                          *   default) or report, which leaks */
} reap_misuse_t;

/**
 * A misuse handler: called with the misuse, and @p arg as given to
 * reap_set_misuse_handler().
 * @return REAP_MISUSE_ABORT or REAP_MISUSE_LEAK (m->action is what libreap
 *         would do without a handler); a REAP_MISUSE_CORRUPTION always aborts.
 */
typedef int (*reap_misuse_fn)(const reap_misuse_t *m, void *arg);

/**
 * Route misuse reports to @p fn instead of stderr.
 *
 * Without a handler, libreap writes m->message and a newline to stderr
 * with one write(2) (no stdio, no allocation) and then aborts, or, with
 * REAP_MISUSE=report in the environment, goes on (REAP_MISUSE_LEAK).  With
 * one, it writes nothing: @p fn decides, and may log m->message where it
 * likes (httpd's error log).
 *
 * When: in the thread that made the misuse, inside the reap_* call that
 * found it, before that call changes anything, with no libreap lock held.
 * @p fn may allocate from malloc and from reaps other than m->reap, read
 * m->reap (reap_user_area(), reap_parent(), reap_get_stats()) and longjmp
 * out.  It must not allocate from, free into, clear or destroy m->reap or
 * any reap of its tree, which may be in the middle of an operation, nor
 * cause a misuse itself.  A misuse of the base allocator under
 * libreap-malloc.so does not come here (it has its own one-line reports).
 *
 * @param fn  the handler, or NULL to restore the default.
 * @param arg passed to @p fn untouched.
 * Not thread-safe: set it before other threads use reaps (httpd: at child
 * init), not while a misuse may be reported.
 */
REAP_API void reap_set_misuse_handler(reap_misuse_fn fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif /* REAP_H */
