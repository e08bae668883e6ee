/* Licensed to the Apache Software Foundation (ASF) under one or more
 * contributor license agreements.  See the NOTICE file distributed with
 * this work for additional information regarding copyright ownership.
 * The ASF licenses this file to You under the Apache License, Version 2.0
 * (the "License"); you may not use this file except in compliance with
 * the License.  You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* Changed by the reap project (see apr-patch/README.md): every pool is a
 * reap from libreap, and pools gain apr_pfree(), apr_prealloc(),
 * apr_pool_reap_get(), apr_pool_walk() and apr_pool_tag_get().  The
 * pristine file's SHA-256 is in apr-patch/PRISTINE.sha256. */

#include "apr.h"
#include "apr_private.h"

#include "apr_atomic.h"
#include "apr_portable.h" /* for get_os_proc */
#include "apr_strings.h"
#include "apr_general.h"
#include "apr_pools.h"
#include "apr_allocator.h"
#include "apr_lib.h"
#include "apr_thread_mutex.h"
#include "apr_hash.h"
#include "apr_time.h"
#include "apr_support.h"
#define APR_WANT_MEMFUNC
#include "apr_want.h"
#include "apr_env.h"

#if APR_HAVE_STDLIB_H
#include <stdlib.h>     /* for malloc, free and abort */
#endif

#if APR_HAVE_UNISTD_H
#include <unistd.h>     /* for getpid and sysconf */
#endif

#if APR_HAS_THREADS
#include <pthread.h>    /* the list of parked allocators */
#endif


/*
 * Pools backed by reaps
 *
 * Every pool is a reap (libreap, reap.h): a region that can also free
 * single objects.  A subpool is a child reap of its parent's reap;
 * apr_palloc() is reap_malloc(), the new apr_pfree() is reap_free(), and
 * clearing a pool, after running the cleanups and destroying the
 * subpools as stock APR does, is reap_clear().  The apr_pool_t itself
 * lives in the reap's user area, which survives reap_clear(), as the
 * stock pool lives at the head of its first memnode.
 *
 * A reap's objects have no header: an object costs what stock APR rounds
 * it to (8 bytes, as the reap is set to 8-byte alignment), and apr_palloc()
 * bumps a pointer and records where the object starts, one bit in its
 * chunk's bitmap.  So a pool that never frees (pconf, most request pools)
 * holds what a stock one does, and a pool that frees uses the memory again
 * whenever its objects were allocated.  APR frees the storage it replaces
 * of its own accord too (a hash table's outgrown bucket array, a table
 * compress's scratch arrays, a failed apr_psprintf()'s buffer).
 *
 * The public allocator (apr_allocator_t, apr_memnode_t) is no longer what
 * pools draw from, but apr-util's bucket allocator and httpd's MPMs use
 * it directly, so it keeps its interface and its max_free behaviour; its
 * memnodes come from libreap's base allocator (reap_base_alloc()), where
 * stock APR takes them from malloc(), and nodes beyond max_free go back to
 * it, to be reused by any pool or allocator and returned to the OS after
 * a short decay (libreap/src/base/README.md).
 *
 * Pool debugging (--enable-pool-debug) is not supported: it turned every
 * allocation into a separate malloc() with its own bookkeeping, which
 * reaps replace (libreap checks every free).  Building with
 * APR_POOL_DEBUG set fails below.  --enable-allocator-guard-pages is
 * refused for the same reason.  --enable-allocator-uses-mmap only sets
 * the node granularity to the page size: the memory comes from libreap.
 */

#include "reap.h"

#if !defined(REAP_FRONTIER_VERSION) || REAP_FRONTIER_VERSION != 5
#error "this APR needs libreap's reap.h of blocks without headers (REAP_FRONTIER_VERSION 5)"
#endif

#ifndef REAP_HAS_CHUNK_SOURCE
#error "this APR needs libreap's reap.h with reap_create_from()"
#endif

#if APR_POOL_DEBUG
#error "pool debugging is not supported by reap-backed pools"
#endif

#if APR_ALLOCATOR_GUARD_PAGES
#error "allocator guard pages are not supported by reap-backed pools"
#endif

/*
 * Magic numbers
 */

/*
 * Memnodes handed out by apr_allocator_alloc() are multiples of
 * BOUNDARY_SIZE, at least MIN_ALLOC, as in stock APR, so that a caller
 * that sizes its requests by apr_allocator_align() gets what it expects.
 */
#define MIN_ALLOC (2 * BOUNDARY_SIZE)
#define MAX_INDEX   20

#if APR_ALLOCATOR_USES_MMAP && defined(_SC_PAGESIZE)
static unsigned int boundary_index;
static unsigned int boundary_size;
#define BOUNDARY_INDEX  boundary_index
#define BOUNDARY_SIZE   boundary_size
#else
#define BOUNDARY_INDEX 12
#define BOUNDARY_SIZE (1 << BOUNDARY_INDEX)
#endif

/*
 * apr_pvsprintf() formats into a buffer of this many bytes on the stack
 * first, so that a short string costs one exact-size allocation.
 */
#define PSPRINTF_STACK_SIZE 512

/* 
 * Timing constants for killing subprocesses
 * There is a total 3-second delay between sending a SIGINT 
 * and sending of the final SIGKILL.
 * TIMEOUT_INTERVAL should be set to TIMEOUT_USECS / 64
 * for the exponetial timeout alogrithm.
 */
#define TIMEOUT_USECS    3000000
#define TIMEOUT_INTERVAL   46875

/*
 * Allocator
 *
 * As in stock APR, an allocator keeps the memory given back to it on free
 * lists, up to max_free bytes, and takes from them first: memnodes for its
 * users (apr-util's bucket allocators, httpd's MPMs) and the chunks of the
 * reaps of the pools it serves (each reap's chunk source, reap.h).  So a
 * connection's memory stays with its allocator between requests, as it
 * does on stock APR, rather than in the caches of whichever threads ran
 * them (the event MPM's HTTP/1.1 peak RSS: 1.26-1.35x stock's before,
 * 1.02-1.06x with the lists), and MaxMemFree bounds what an allocator
 * keeps, as httpd documents it.  What comes in beyond max_free goes back
 * to libreap's base allocator (stock APR: free() or munmap()), which
 * returns it to the operating system after a short decay or mod_reap's
 * idle trim; that trim also empties the lists of the allocators whose
 * connections have ended ("Parked allocators", below).
 *
 * A reap takes a free node of exactly the size it asks; a memnode may
 * take a larger node, as in stock APR.  Chunk sizes that are not a
 * multiple of BOUNDARY_SIZE (a page size above REAP_CHUNK_GRAIN) bypass
 * the lists.
 *
 * @note The max_free_index and current_free_index fields are not really
 * indices, but quantities of BOUNDARY_SIZE big memory blocks.
 */

struct apr_allocator_t {
    /** largest used index into free[], always < MAX_INDEX */
    apr_size_t        max_index;
    /** Total size (in BOUNDARY_SIZE multiples) of unused memory before
     * blocks are given back. @see apr_allocator_max_free_set().
     * @note Initialized to APR_ALLOCATOR_MAX_FREE_UNLIMITED,
     * which means to never give back blocks.
     */
    apr_size_t        max_free_index;
    /**
     * Memory size (in BOUNDARY_SIZE multiples) that currently must be freed
     * before blocks are given back. Range: 0..max_free_index
     */
    apr_size_t        current_free_index;
#if APR_HAS_THREADS
    apr_thread_mutex_t *mutex;
#endif /* APR_HAS_THREADS */
    apr_pool_t         *owner;
    /** where the reaps of this allocator's pools take their chunks */
    reap_chunk_source_t chunks;
    /** bytes on free[]; read when the allocator is parked */
    apr_size_t          listed;
    /** on the list of parked allocators (atomic; see allocator_park()) */
    int                 parked;
    /** its listed bytes when parked, counted in parked_bytes */
    apr_size_t          parked_listed;
    apr_allocator_t    *park_prev, *park_next;
    /**
     * Lists of free nodes. Slot 0 is used for oversized nodes,
     * and the slots 1..MAX_INDEX-1 contain nodes of sizes
     * (i+1) * BOUNDARY_SIZE. Example for BOUNDARY_INDEX == 12:
     * slot  0: nodes larger than 81920
     * slot  1: size  8192
     * slot  2: size 12288
     * ...
     * slot 19: size 81920
     */
    apr_memnode_t      *free[MAX_INDEX];
};

#define SIZEOF_ALLOCATOR_T  APR_ALIGN_DEFAULT(sizeof(apr_allocator_t))


/*
 * Allocator
 */

/* The allocator's mutex, where one is set, also guards the lists of
 * child pools of the pools it serves (as in stock APR). */
static void allocator_unpark(apr_allocator_t *allocator);

/* Taking the lock also unparks the allocator (allocator_park()). */
static APR_INLINE
void allocator_lock(apr_allocator_t *allocator)
{
    if (__atomic_load_n(&allocator->parked, __ATOMIC_ACQUIRE))
        allocator_unpark(allocator);
#if APR_HAS_THREADS
    if (allocator->mutex)
        apr_thread_mutex_lock(allocator->mutex);
#endif /* APR_HAS_THREADS */
}

static APR_INLINE
void allocator_unlock(apr_allocator_t *allocator)
{
#if APR_HAS_THREADS
    if (allocator->mutex)
        apr_thread_mutex_unlock(allocator->mutex);
#endif /* APR_HAS_THREADS */
}

static APR_INLINE apr_size_t node_size(const apr_memnode_t *node)
{
    return (apr_size_t)(node->endp - (const char *)node);
}

/* Give a node back to the base allocator (stock APR: free()). */
static void node_free(apr_memnode_t *node)
{
    reap_base_free(node, node_size(node));
}

/* Bytes on every allocator's free lists (apr_allocator_lists_get()). */
static apr_size_t listed_bytes;

/* Add delta bytes to allocator's lists (negative: taken off).  Called
 * with the allocator locked, or parked_lock held with it parked. */
static APR_INLINE void allocator_listed_add(apr_allocator_t *allocator,
                                            apr_ssize_t delta)
{
    allocator->listed += delta;
    __atomic_fetch_add(&listed_bytes, delta, __ATOMIC_RELAXED);
}

/* node_free() every node of a list linked through next. */
static void nodes_free(apr_memnode_t *list)
{
    apr_memnode_t *node;

    while ((node = list) != NULL) {
        list = node->next;
        node_free(node);
    }
}

static void allocator_take_all(apr_allocator_t *allocator,
                               apr_memnode_t **freelist);

static void *allocator_chunk_alloc(void *ctx, apr_size_t size);
static void allocator_chunk_free(void *ctx, void *chunk, apr_size_t size);

APR_DECLARE(apr_status_t) apr_allocator_create(apr_allocator_t **allocator)
{
    apr_allocator_t *new_allocator;

    *allocator = NULL;

    if ((new_allocator = malloc(SIZEOF_ALLOCATOR_T)) == NULL)
        return APR_ENOMEM;

    memset(new_allocator, 0, SIZEOF_ALLOCATOR_T);
    new_allocator->max_free_index = APR_ALLOCATOR_MAX_FREE_UNLIMITED;
    new_allocator->chunks.alloc = allocator_chunk_alloc;
    new_allocator->chunks.free = allocator_chunk_free;
    new_allocator->chunks.ctx = new_allocator;

    *allocator = new_allocator;

    return APR_SUCCESS;
}

APR_DECLARE(void) apr_allocator_destroy(apr_allocator_t *allocator)
{
    apr_memnode_t *freelist = NULL;

    if (__atomic_load_n(&allocator->parked, __ATOMIC_ACQUIRE))
        allocator_unpark(allocator);

    /* As in stock APR: the nodes on the free lists go back; a node its
     * user still holds is the user's to give back first. */
    allocator_take_all(allocator, &freelist);
    nodes_free(freelist);

    free(allocator);
}

#if APR_HAS_THREADS
APR_DECLARE(void) apr_allocator_mutex_set(apr_allocator_t *allocator,
                                          apr_thread_mutex_t *mutex)
{
    allocator->mutex = mutex;
}

APR_DECLARE(apr_thread_mutex_t *) apr_allocator_mutex_get(
                                      apr_allocator_t *allocator)
{
    return allocator->mutex;
}
#endif /* APR_HAS_THREADS */

APR_DECLARE(void) apr_allocator_owner_set(apr_allocator_t *allocator,
                                          apr_pool_t *pool)
{
    allocator->owner = pool;
}

APR_DECLARE(apr_pool_t *) apr_allocator_owner_get(apr_allocator_t *allocator)
{
    return allocator->owner;
}

APR_DECLARE(void) apr_allocator_max_free_set(apr_allocator_t *allocator,
                                             apr_size_t in_size)
{
    apr_size_t max_free_index;
    apr_size_t size = in_size;

    allocator_lock(allocator);

    max_free_index = APR_ALIGN(size, BOUNDARY_SIZE) >> BOUNDARY_INDEX;
    allocator->current_free_index += max_free_index;
    allocator->current_free_index -= allocator->max_free_index;
    allocator->max_free_index = max_free_index;
    if (allocator->current_free_index > max_free_index)
        allocator->current_free_index = max_free_index;

    allocator_unlock(allocator);
}

static APR_INLINE
apr_size_t allocator_align(apr_size_t in_size)
{
    apr_size_t size = in_size;

    /* Round up the block size to the next boundary, but always
     * allocate at least a certain size (MIN_ALLOC).
     */
    size = APR_ALIGN(size + APR_MEMNODE_T_SIZE, BOUNDARY_SIZE);
    if (size < in_size) {
        return 0;
    }
    if (size < MIN_ALLOC) {
        size = MIN_ALLOC;
    }

    return size;
}

APR_DECLARE(apr_size_t) apr_allocator_align(apr_allocator_t *allocator,
                                            apr_size_t size)
{
    (void)allocator;
    return allocator_align(size);
}

/* Count a node leaving the free lists against max_free and in the
 * allocator's listed bytes.  Called with the allocator locked.
 */
static APR_INLINE
void allocator_count_out(apr_allocator_t *allocator, apr_memnode_t *node)
{
    allocator_listed_add(allocator, -(apr_ssize_t)node_size(node));
    allocator->current_free_index += node->index + 1;
    if (allocator->current_free_index > allocator->max_free_index)
        allocator->current_free_index = allocator->max_free_index;
}

/* Take a node of at least index (of exactly index, when exact) from the
 * free lists, or NULL.  Called with the allocator locked.
 */
static apr_memnode_t *allocator_take_free(apr_allocator_t *allocator,
                                          apr_size_t index, int exact)
{
    apr_memnode_t *node, **ref;
    apr_size_t max_index, i;

    if (index <= allocator->max_index) {
        /* Walk the free lists upwards from the requested size. */
        max_index = allocator->max_index;
        ref = &allocator->free[index];
        i = index;
        while (!exact && *ref == NULL && i < max_index) {
           ref++;
           i++;
        }

        if ((node = *ref) == NULL)
            return NULL;

        /* If we took the last node of the highest list, find the new
         * highest non-empty list.
         */
        if ((*ref = node->next) == NULL && i >= max_index) {
            do {
                ref--;
                max_index--;
            }
            while (*ref == NULL && max_index);

            allocator->max_index = max_index;
        }
    }
    else if (exact) {
        return NULL;
    }
    else {
        /* Seek the sink (at index 0) for an oversized node. */
        ref = &allocator->free[0];
        while ((node = *ref) != NULL && index > node->index)
            ref = &node->next;

        if (node == NULL)
            return NULL;

        *ref = node->next;
    }

    allocator_count_out(allocator, node);
    return node;
}

/* A new node of size bytes from the base allocator, or NULL. */
static apr_memnode_t *allocator_new_node(apr_size_t size, apr_size_t index)
{
    apr_memnode_t *node;

    if ((node = reap_base_alloc(size)) == NULL)
        return NULL;

    node->index = (apr_uint32_t)index;
    node->endp = (char *)node + size;

    return node;
}

static APR_INLINE
apr_memnode_t *allocator_alloc(apr_allocator_t *allocator, apr_size_t in_size)
{
    apr_memnode_t *node;
    apr_size_t size, index;

    /* Round up the block size to the next boundary, but always
     * allocate at least a certain size (MIN_ALLOC).
     */
    size = allocator_align(in_size);
    if (!size) {
        return NULL;
    }

    /* Find the index for this node size by
     * dividing its size by the boundary size
     */
    index = (size >> BOUNDARY_INDEX) - 1;

    if (index > APR_UINT32_MAX) {
        return NULL;
    }

    allocator_lock(allocator);
    node = allocator_take_free(allocator, index, 0);
    allocator_unlock(allocator);
    if (node == NULL)
        node = allocator_new_node(size, index);

    if (node == NULL)
        return NULL;

    node->next = NULL;
    node->first_avail = (char *)node + APR_MEMNODE_T_SIZE;

    return node;
}

static APR_INLINE
void allocator_free(apr_allocator_t *allocator, apr_memnode_t *node)
{
    apr_memnode_t *next, *freelist = NULL;
    apr_size_t index, max_index, listed = 0;
    apr_size_t max_free_index, current_free_index;

    allocator_lock(allocator);

    max_index = allocator->max_index;
    max_free_index = allocator->max_free_index;
    current_free_index = allocator->current_free_index;

    /* Walk the list of submitted nodes and free them one by one,
     * shoving them in the right 'size' buckets as we go, or onto
     * freelist, for the base allocator, once max_free is reached.
     */
    do {
        next = node->next;
        index = node->index;

        if (max_free_index != APR_ALLOCATOR_MAX_FREE_UNLIMITED
            && index + 1 > current_free_index) {
            node->next = freelist;
            freelist = node;
            continue;
        }

        if (index < MAX_INDEX) {
            /* Add the node to the appropriate 'size' bucket.  Adjust
             * the max_index when appropriate.
             */
            if ((node->next = allocator->free[index]) == NULL
                && index > max_index) {
                max_index = index;
            }
            allocator->free[index] = node;
        }
        else {
            /* This node is too large to keep in a specific size bucket,
             * just add it to the sink (at index 0).
             */
            node->next = allocator->free[0];
            allocator->free[0] = node;
        }
        listed += node_size(node);
        if (current_free_index >= index + 1)
            current_free_index -= index + 1;
        else
            current_free_index = 0;
    } while ((node = next) != NULL);

    allocator->max_index = max_index;
    allocator->current_free_index = current_free_index;
    allocator_listed_add(allocator, (apr_ssize_t)listed);

    allocator_unlock(allocator);

    nodes_free(freelist);
}

APR_DECLARE(apr_memnode_t *) apr_allocator_alloc(apr_allocator_t *allocator,
                                                 apr_size_t size)
{
    return allocator_alloc(allocator, size);
}

APR_DECLARE(void) apr_allocator_free(apr_allocator_t *allocator,
                                     apr_memnode_t *node)
{
    allocator_free(allocator, node);
}

/*
 * Parked allocators
 *
 * When the pool that owns an allocator is cleared (an MPM's connection
 * pool, as its connection closes), the allocator keeps its free lists for
 * the pool's next connection, as stock APR does, and is parked: the next
 * call that takes the allocator's lock unparks it, and until then
 * reap_base_trim() (mod_reap's idle release) gives its lists back to the
 * base allocator, which returns them to the operating system.  So a busy
 * server reuses a connection's memory as stock APR does, and a quiet one
 * does not keep the lists of all the connection pools it recycled: under
 * HTTP/2 they held 3-7 MB a child at idle (docs/measurements.md).
 *
 * An allocator with a mutex is never parked: threads share it, one may be
 * using it while its owner is cleared, and its mutex may have gone with
 * the owner's cleanups.
 */
static apr_allocator_t *parked_first;
static apr_size_t parked_bytes; /* their listed bytes, when parked */
#if APR_HAS_THREADS
static pthread_mutex_t parked_lock = PTHREAD_MUTEX_INITIALIZER;
#define PARKED_LOCK()   pthread_mutex_lock(&parked_lock)
#define PARKED_UNLOCK() pthread_mutex_unlock(&parked_lock)
#else
#define PARKED_LOCK()
#define PARKED_UNLOCK()
#endif

/* Take allocator off the list.  Called with parked_lock held. */
static void parked_unlink(apr_allocator_t *allocator)
{
    if (allocator->park_prev)
        allocator->park_prev->park_next = allocator->park_next;
    else
        parked_first = allocator->park_next;
    if (allocator->park_next)
        allocator->park_next->park_prev = allocator->park_prev;
    allocator->park_prev = allocator->park_next = NULL;
    __atomic_store_n(&parked_bytes, parked_bytes - allocator->parked_listed,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&allocator->parked, 0, __ATOMIC_RELEASE);
}

static void allocator_park(apr_allocator_t *allocator)
{
#if APR_HAS_THREADS
    if (allocator->mutex != NULL)
        return;
#endif
    PARKED_LOCK();
    if (!allocator->parked) {
        allocator->park_prev = NULL;
        allocator->park_next = parked_first;
        if (parked_first)
            parked_first->park_prev = allocator;
        parked_first = allocator;
        allocator->parked_listed = allocator->listed;
        __atomic_store_n(&parked_bytes, parked_bytes + allocator->listed,
                         __ATOMIC_RELAXED);
        __atomic_store_n(&allocator->parked, 1, __ATOMIC_RELEASE);
    }
    PARKED_UNLOCK();
}

static void allocator_unpark(apr_allocator_t *allocator)
{
    PARKED_LOCK();
    if (allocator->parked)
        parked_unlink(allocator);
    PARKED_UNLOCK();
}

/* Move every free node of allocator onto *freelist.  The caller holds the
 * allocator's lock, or parked_lock with the allocator parked. */
static void allocator_take_all(apr_allocator_t *allocator,
                               apr_memnode_t **freelist)
{
    apr_memnode_t *node;
    apr_size_t index;

    for (index = 0; index < MAX_INDEX; index++) {
        while ((node = allocator->free[index]) != NULL) {
            allocator->free[index] = node->next;
            allocator_count_out(allocator, node);
            node->next = *freelist;
            *freelist = node;
        }
    }
    allocator->max_index = 0;
}

/* reap_base_trim()'s hook: the parked allocators' lists go back to the
 * base allocator, which the same trim then returns to the OS. */
static void allocator_trim_parked(void *arg)
{
    apr_allocator_t *allocator;
    apr_memnode_t *freelist = NULL;

    (void)arg;
    PARKED_LOCK();
    while ((allocator = parked_first) != NULL) {
        allocator_take_all(allocator, &freelist);
        parked_unlink(allocator);
    }
    PARKED_UNLOCK();

    nodes_free(freelist);
}

APR_DECLARE(void) apr_allocator_lists_get(apr_size_t *bytes,
                                          apr_size_t *parked)
{
    if (bytes)
        *bytes = __atomic_load_n(&listed_bytes, __ATOMIC_RELAXED);
    if (parked)
        *parked = __atomic_load_n(&parked_bytes, __ATOMIC_RELAXED);
}

/* A reap's chunk of size bytes: a free node of exactly that size, else a
 * new block from the base allocator.  A larger node would serve too, but
 * a pool's chunks double from the size of its first, so a request pool
 * that started in a 16 KiB node would ask for 32 KiB next, and the chunks
 * of an HTTP/1.1 connection's requests crept up to the largest (the event
 * MPM's peak RSS rose by a third).  The node header is not kept: the reap
 * owns every byte of the chunk until it gives it back.
 */
static void *allocator_chunk_alloc(void *ctx, apr_size_t size)
{
    apr_allocator_t *allocator = ctx;
    apr_memnode_t *node = NULL;
    apr_size_t index = (size >> BOUNDARY_INDEX) - 1;

    if (index > 0 && index < MAX_INDEX && (size & (BOUNDARY_SIZE - 1)) == 0) {
        allocator_lock(allocator);
        node = allocator_take_free(allocator, index, 1);
        allocator_unlock(allocator);
    }
    return node ? (void *)node : reap_base_alloc(size);
}

/* A chunk back from a reap: a node on the free lists, or past max_free
 * (or of a size the lists do not take) back to the base allocator.
 */
static void allocator_chunk_free(void *ctx, void *chunk, apr_size_t size)
{
    apr_allocator_t *allocator = ctx;
    apr_memnode_t *node = chunk;

    if ((size & (BOUNDARY_SIZE - 1)) != 0 || size < MIN_ALLOC) {
        reap_base_free(chunk, size);
        return;
    }
    node->next = NULL;
    node->index = (apr_uint32_t)((size >> BOUNDARY_INDEX) - 1);
    node->endp = (char *)node + size;
    node->first_avail = (char *)node + APR_MEMNODE_T_SIZE;
    allocator_free(allocator, node);
}


/*
 * Structures
 */

typedef struct cleanup_t cleanup_t;

/** A list of processes */
struct process_chain {
    /** The process ID */
    apr_proc_t *proc;
    apr_kill_conditions_e kill_how;
    /** The next process in the list */
    struct process_chain *next;
};

/* The ref field in the apr_pool_t struct holds a
 * pointer to the pointer referencing this pool.
 * It is used for parent, child, sibling management.
 * Look at apr_pool_create_ex() and apr_pool_destroy()
 * to see how it is used.
 *
 * The struct lives in the user area of its reap (reap_user_area(reap) ==
 * pool), so it survives apr_pool_clear() and goes with reap_destroy().
 * The pool tree mirrors the reap tree: pool->parent->reap is the parent
 * of pool->reap, except for the global pool and unmanaged pools, whose
 * reaps are top-level.
 */
struct apr_pool_t {
    apr_pool_t           *parent;
    apr_pool_t           *child;
    apr_pool_t           *sibling;
    apr_pool_t          **ref;
    cleanup_t            *cleanups;
    cleanup_t            *free_cleanups;
    apr_allocator_t      *allocator;
    struct process_chain *subprocesses;
    apr_abortfunc_t       abort_fn;
    apr_hash_t           *user_data;
    const char           *tag;
    /** the reap holding this pool's memory; never NULL */
    struct reap          *reap;
#ifdef NETWARE
    apr_os_proc_t         owner_proc;
#endif /* defined(NETWARE) */
    cleanup_t            *pre_cleanups;
#if APR_POOL_CONCURRENCY_CHECK

#define                   IDLE        0
#define                   IN_USE      1
#define                   DESTROYED   2
    volatile apr_uint32_t in_use;
    apr_os_thread_t       in_use_by;
#endif /* APR_POOL_CONCURRENCY_CHECK */
};

#define SIZEOF_POOL_T       APR_ALIGN_DEFAULT(sizeof(apr_pool_t))


/*
 * Variables
 */

static apr_byte_t   apr_pools_initialized = 0;
static apr_pool_t  *global_pool = NULL;

static apr_allocator_t *global_allocator = NULL;

/*
 * Local functions
 */

static void run_cleanups(cleanup_t **c);
static void free_proc_chain(struct process_chain *procs);

/*
 * Initialization
 */

APR_DECLARE(apr_status_t) apr_pool_initialize(void)
{
    apr_status_t rv;

    if (apr_pools_initialized++)
        return APR_SUCCESS;

    reap_base_on_trim(allocator_trim_parked, NULL);

#if APR_ALLOCATOR_USES_MMAP && defined(_SC_PAGESIZE)
    boundary_size = sysconf(_SC_PAGESIZE);
    boundary_index = 12;
    while ( (1 << boundary_index) < boundary_size)
        boundary_index++;
    boundary_size = (1 << boundary_index);
#endif

    if ((rv = apr_allocator_create(&global_allocator)) != APR_SUCCESS) {
        apr_pools_initialized = 0;
        return rv;
    }

    if ((rv = apr_pool_create_ex(&global_pool, NULL, NULL,
                                 global_allocator)) != APR_SUCCESS) {
        apr_allocator_destroy(global_allocator);
        global_allocator = NULL;
        apr_pools_initialized = 0;
        return rv;
    }

    apr_pool_tag(global_pool, "apr_global_pool");

    /* This has to happen here because mutexes might be backed by
     * atomics.  It used to be snug and safe in apr_initialize().
     *
     * Warning: apr_atomic_init() must always be called, by any
     * means possible, from apr_initialize().
     */
    if ((rv = apr_atomic_init(global_pool)) != APR_SUCCESS) {
        return rv;
    }

#if APR_HAS_THREADS
    {
        apr_thread_mutex_t *mutex;

        if ((rv = apr_thread_mutex_create(&mutex,
                                          APR_THREAD_MUTEX_DEFAULT,
                                          global_pool)) != APR_SUCCESS) {
            return rv;
        }

        apr_allocator_mutex_set(global_allocator, mutex);
    }
#endif /* APR_HAS_THREADS */

    apr_allocator_owner_set(global_allocator, global_pool);

    return APR_SUCCESS;
}

APR_DECLARE(void) apr_pool_terminate(void)
{
    if (!apr_pools_initialized)
        return;

    if (--apr_pools_initialized)
        return;

    reap_base_on_trim(NULL, NULL);
    apr_pool_destroy(global_pool); /* This will also destroy the mutex */
    global_pool = NULL;

    global_allocator = NULL;
}

/*
 * Helpers to mark pool as in-use/free. Used for finding thread-unsafe
 * concurrent accesses from different threads.
 */
#if APR_POOL_CONCURRENCY_CHECK

static const char * const in_use_string[] = { "idle", "in use", "destroyed" };

static void pool_concurrency_abort(apr_pool_t *pool, apr_uint32_t new, apr_uint32_t old)
{
    fprintf(stderr, "pool concurrency check: pool %p(%s), thread cur %lx "
                    "in use by %lx, state %s -> %s \n",
                    pool, pool->tag, (unsigned long)apr_os_thread_current(),
                    (unsigned long)pool->in_use_by,
                    in_use_string[old], in_use_string[new]);
    abort();
}

static APR_INLINE void pool_concurrency_set_used(apr_pool_t *pool)
{
    apr_uint32_t old;

    old = apr_atomic_cas32(&pool->in_use, IN_USE, IDLE);

    if (old != IDLE)
        pool_concurrency_abort(pool, IN_USE, old);

    pool->in_use_by = apr_os_thread_current();
}

static APR_INLINE void pool_concurrency_set_idle(apr_pool_t *pool)
{
    apr_uint32_t old;

    old = apr_atomic_cas32(&pool->in_use, IDLE, IN_USE);

    if (old != IN_USE)
        pool_concurrency_abort(pool, IDLE, old);
}

static APR_INLINE void pool_concurrency_init(apr_pool_t *pool)
{
    pool->in_use = IDLE;
}

static APR_INLINE void pool_concurrency_set_destroyed(apr_pool_t *pool)
{
    apr_uint32_t old;

    old = apr_atomic_cas32(&pool->in_use, DESTROYED, IDLE);

    if (old != IDLE)
        pool_concurrency_abort(pool, DESTROYED, old);
    pool->in_use_by = apr_os_thread_current();
}
#else
static APR_INLINE void pool_concurrency_init(apr_pool_t *pool)          { }
static APR_INLINE void pool_concurrency_set_used(apr_pool_t *pool)      { }
static APR_INLINE void pool_concurrency_set_idle(apr_pool_t *pool)      { }
static APR_INLINE void pool_concurrency_set_destroyed(apr_pool_t *pool) { }
#endif /* APR_POOL_CONCURRENCY_CHECK */

/*
 * Memory allocation
 */

/* Report a failed allocation as stock APR does: through the abort
 * function, if the pool has one, and a NULL result.  Kept out of line so
 * that apr_palloc() stays reap_malloc_bump(), compiled in here, and a call
 * into libreap only when that cannot serve: it runs about 130 times per
 * request httpd serves.
 */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void *pool_out_of_memory(apr_pool_t *pool)
{
    if (pool->abort_fn)
        pool->abort_fn(APR_ENOMEM);

    return NULL;
}

/* apr_palloc's calls out, in a function of their own: the bump that
 * serves nearly every request then runs without a stack frame.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void *palloc_slow(apr_pool_t *pool, apr_size_t size)
{
    void *mem = reap_malloc(pool->reap, size);

    if (mem == NULL)
        return pool_out_of_memory(pool);

    return mem;
}

APR_DECLARE(void *) apr_palloc(apr_pool_t *pool, apr_size_t size)
{
    void *mem;

    pool_concurrency_set_used(pool);
    mem = reap_malloc_bump(pool->reap, size);
    if (mem == NULL)
        mem = palloc_slow(pool, size);
    pool_concurrency_set_idle(pool);

    return mem;
}

/* Provide an implementation of apr_pcalloc for backward compatibility
 * with code built before apr_pcalloc was a macro
 */

#ifdef apr_pcalloc
#undef apr_pcalloc
#endif

APR_DECLARE(void *) apr_pcalloc(apr_pool_t *pool, apr_size_t size);
APR_DECLARE(void *) apr_pcalloc(apr_pool_t *pool, apr_size_t size)
{
    void *mem;

    if ((mem = apr_palloc(pool, size)) != NULL) {
        memset(mem, 0, size);
    }

    return mem;
}

APR_DECLARE(void) apr_pfree(apr_pool_t *pool, void *mem)
{
    if (mem == NULL)
        return;

    /* libreap reports a double free or a foreign pointer, naming both,
     * before it changes anything, and aborts unless its misuse handler
     * (mod_reap's ReapMisuse leak) or REAP_MISUSE=report says to leave
     * the object alone.
     */
    pool_concurrency_set_used(pool);
    reap_free(pool->reap, mem);
    pool_concurrency_set_idle(pool);
}

APR_DECLARE(void *) apr_prealloc(apr_pool_t *pool, void *mem,
                                 apr_size_t size)
{
    void *new_mem;

    if (mem != NULL && size == 0) {
        apr_pfree(pool, mem);
        return NULL;
    }

    pool_concurrency_set_used(pool);
    new_mem = reap_realloc(pool->reap, mem, size);
    pool_concurrency_set_idle(pool);

    if (new_mem == NULL)
        return pool_out_of_memory(pool);

    return new_mem;
}

APR_DECLARE(struct reap *) apr_pool_reap_get(apr_pool_t *pool)
{
    return pool->reap;
}

/* apr_pool_walk() over reap_walk(): each reap of the tree holds its pool in
 * its user area.  A reap whose pool->reap is not the reap itself is passed
 * over: a pool still being made (pool_make() stores pool->reap last, after
 * libreap linked the reap and after pool->parent), or a reap someone made
 * directly under a pool's reap (its first chunk is larger than an
 * apr_pool_t, so the read stays in bounds).  Neither can have pools below
 * it, so depths stay right.  A pool handed to the callback has its parent,
 * allocator and reap set; the rest belongs to the thread using it.
 */
typedef struct pool_walk_t {
    int (*fn)(apr_pool_t *pool, unsigned int depth, void *data);
    void *data;
} pool_walk_t;

static int pool_walk_visit(struct reap *reap, unsigned int depth, void *arg)
{
    pool_walk_t *walk = arg;
    apr_pool_t *pool = reap_user_area(reap);

    if (pool == NULL || __atomic_load_n(&pool->reap, __ATOMIC_ACQUIRE) != reap)
        return 0;

    return walk->fn(pool, depth, walk->data);
}

APR_DECLARE(int) apr_pool_walk(apr_pool_t *root,
                               int (*fn)(apr_pool_t *pool,
                                         unsigned int depth, void *data),
                               void *data)
{
    pool_walk_t walk;

    if (root == NULL)
        root = global_pool;
    if (root == NULL)
        return 0;

    walk.fn = fn;
    walk.data = data;

    return reap_walk(root->reap, pool_walk_visit, &walk);
}


/*
 * Pool creation/destruction
 */

/* The first steps of clear and destroy, in the order stock APR takes
 * them: pre-cleanups, subpools (each detaches itself from this pool),
 * cleanups, subprocesses.
 */
static void pool_release(apr_pool_t *pool)
{
    /* Run pre destroy cleanups */
    run_cleanups(&pool->pre_cleanups);

    pool_concurrency_set_used(pool);
    pool->pre_cleanups = NULL;
    pool_concurrency_set_idle(pool);

    /* Destroy the subpools.  The subpools will detach themselves from
     * this pool thus this loop is safe and easy.
     */
    while (pool->child)
        apr_pool_destroy(pool->child);

    /* Run cleanups */
    run_cleanups(&pool->cleanups);
}

APR_DECLARE(void) apr_pool_clear(apr_pool_t *pool)
{
    pool_release(pool);

    pool_concurrency_set_used(pool);
    pool->cleanups = NULL;
    pool->free_cleanups = NULL;

    /* Free subprocesses */
    free_proc_chain(pool->subprocesses);
    pool->subprocesses = NULL;

    /* Clear the user data. */
    pool->user_data = NULL;

    /* Free every object at once; the pool struct, in the reap's user
     * area, stays.  The subpools' reaps went with the subpools.
     */
    reap_clear(pool->reap);

    /* The owner of an allocator is cleared when what it served ends (an
     * MPM's connection pool, when the connection closes): its allocator
     * keeps its lists for the next one, parked for an idle trim.
     */
    if (pool->allocator->owner == pool)
        allocator_park(pool->allocator);

    pool_concurrency_set_idle(pool);
}

APR_DECLARE(void) apr_pool_destroy(apr_pool_t *pool)
{
    apr_allocator_t *allocator;
    int owns_allocator;

    pool_release(pool);
    pool_concurrency_set_destroyed(pool);

    /* Free subprocesses */
    free_proc_chain(pool->subprocesses);

    /* Remove the pool from the parents child list */
    if (pool->parent) {
        allocator_lock(pool->parent->allocator);

        if ((*pool->ref = pool->sibling) != NULL)
            pool->sibling->ref = pool->ref;

        allocator_unlock(pool->parent->allocator);
    }

    /* Save the allocator, because the pool struct goes with the reap. */
    allocator = pool->allocator;
    owns_allocator = (apr_allocator_owner_get(allocator) == pool);

#if APR_HAS_THREADS
    if (owns_allocator) {
        /* Make sure to remove the lock, since it is highly likely to
         * be invalid now.
         */
        apr_allocator_mutex_set(allocator, NULL);
    }
#endif /* APR_HAS_THREADS */

    reap_destroy(pool->reap);

    /* If this pool happens to be the owner of the allocator, free
     * the allocator and its nodes.  Don't worry about destroying the
     * optional mutex in the allocator, it will have been destroyed by
     * the cleanup function.
     */
    if (owns_allocator) {
        apr_allocator_destroy(allocator);
    }
}

/* Make a pool in a new reap, a child of parent's reap (NULL: a top-level
 * reap); the other fields are zero.  The caller links it into parent's
 * list of subpools.
 */
static apr_pool_t *pool_make(apr_pool_t *parent,
                             apr_abortfunc_t abort_fn,
                             apr_allocator_t *allocator)
{
    reap_options_t options;
    struct reap *reap;
    apr_pool_t *pool;

    memset(&options, 0, sizeof(options));
    options.user_size = SIZEOF_POOL_T;

    if ((reap = reap_create_from(parent ? parent->reap : NULL, &options,
                                 &allocator->chunks)) == NULL)
        return NULL;

    /* APR's pools promise 8-byte alignment (APR_ALIGN_DEFAULT), so a
     * block need not round to 16: an object costs no more than apr_palloc()
     * of stock APR rounds it to.  A new reap accepts it.
     */
    (void)reap_set_alignment(reap, 8);

    pool = reap_user_area(reap);
    pool->parent = parent;
    pool->allocator = allocator;
    pool->abort_fn = abort_fn;

#ifdef NETWARE
    pool->owner_proc = (apr_os_proc_t)getnlmhandle();
#endif /* defined(NETWARE) */

    pool_concurrency_init(pool);

    /* Last: apr_pool_walk() takes the pool as made once it sees this. */
    __atomic_store_n(&pool->reap, reap, __ATOMIC_RELEASE);

    return pool;
}

APR_DECLARE(apr_status_t) apr_pool_create_ex(apr_pool_t **newpool,
                                             apr_pool_t *parent,
                                             apr_abortfunc_t abort_fn,
                                             apr_allocator_t *allocator)
{
    apr_pool_t *pool;

    *newpool = NULL;

    if (!parent)
        parent = global_pool;

    /* parent will always be non-NULL here except the first time a
     * pool is created, in which case allocator is guaranteed to be
     * non-NULL. */

    if (!abort_fn && parent)
        abort_fn = parent->abort_fn;

    if (allocator == NULL)
        allocator = parent->allocator;

    /* libreap locks the parent reap while it links the child, so that
     * subpools of a shared parent can be made from several threads.
     */
    pool = pool_make(parent, abort_fn, allocator);
    if (pool == NULL) {
        if (abort_fn)
            abort_fn(APR_ENOMEM);

        return APR_ENOMEM;
    }

    if (parent != NULL) {
        allocator_lock(parent->allocator);

        if ((pool->sibling = parent->child) != NULL)
            pool->sibling->ref = &pool->sibling;

        parent->child = pool;
        pool->ref = &parent->child;

        allocator_unlock(parent->allocator);
    }

    *newpool = pool;

    return APR_SUCCESS;
}

/* Deprecated. Renamed to apr_pool_create_unmanaged_ex
 */
APR_DECLARE(apr_status_t) apr_pool_create_core_ex(apr_pool_t **newpool,
                                                  apr_abortfunc_t abort_fn,
                                                  apr_allocator_t *allocator)
{
    return apr_pool_create_unmanaged_ex(newpool, abort_fn, allocator);
}

APR_DECLARE(apr_status_t) apr_pool_create_unmanaged_ex(apr_pool_t **newpool,
                                                  apr_abortfunc_t abort_fn,
                                                  apr_allocator_t *allocator)
{
    apr_pool_t *pool;
    apr_allocator_t *pool_allocator;

    *newpool = NULL;

    if (!apr_pools_initialized)
        return APR_ENOPOOL;
    if ((pool_allocator = allocator) == NULL) {
        if (apr_allocator_create(&pool_allocator) != APR_SUCCESS) {
            if (abort_fn)
                abort_fn(APR_ENOMEM);

            return APR_ENOMEM;
        }
    }

    if ((pool = pool_make(NULL, abort_fn, pool_allocator)) == NULL) {
        if (!allocator)
            apr_allocator_destroy(pool_allocator);
        if (abort_fn)
            abort_fn(APR_ENOMEM);

        return APR_ENOMEM;
    }

    if (!allocator)
        pool_allocator->owner = pool;

    *newpool = pool;

    return APR_SUCCESS;
}

/*
 * "Print" functions
 */

/*
 * apr_pvsprintf formats into a buffer on the stack; a string that
 * outgrows it moves into an object of the pool's reap, which doubles
 * (in place when the reap can) until the output fits.  The result is
 * one object of the pool, sized to the string, so apr_pfree() takes it
 * like any other.  Stock APR wrote straight into the pool's active
 * block instead, which a reap does not expose.
 */

struct psprintf_data {
    apr_vformatter_buff_t vbuff;
    apr_pool_t      *pool;
    /** the output so far; stack until it outgrows it, then a reap object */
    char            *buf;
    /** bytes at buf */
    apr_size_t       size;
    /** buf is an object of pool->reap (else it is stack) */
    int              on_reap;
    char             stack[PSPRINTF_STACK_SIZE];
};

static int psprintf_flush(apr_vformatter_buff_t *vbuff)
{
    struct psprintf_data *ps = (struct psprintf_data *)vbuff;
    struct reap *reap = ps->pool->reap;
    apr_size_t cur_len, size;
    char *buf;

    cur_len = ps->vbuff.curpos - ps->buf;
    size = ps->size * 2;
    if (size < ps->size)
        return -1;

    if (ps->on_reap) {
        /* On failure the old buffer stays ours to free. */
        if ((buf = reap_realloc(reap, ps->buf, size)) == NULL)
            return -1;
    }
    else {
        if ((buf = reap_malloc(reap, size)) == NULL)
            return -1;
        memcpy(buf, ps->buf, cur_len);
        ps->on_reap = 1;
    }

    ps->buf = buf;
    ps->size = size;
    ps->vbuff.curpos = buf + cur_len;
    ps->vbuff.endpos = buf + size - 1; /* Save a byte for NUL terminator */

    return 0;
}

/* Turn the finished output into an object of its exact size. */
static char *psprintf_finish(struct psprintf_data *ps)
{
    struct reap *reap = ps->pool->reap;
    apr_size_t len = ps->vbuff.curpos - ps->buf;
    char *strp;

    if (!ps->on_reap) {
        if ((strp = reap_malloc(reap, len)) != NULL)
            memcpy(strp, ps->buf, len);
        return strp;
    }

    /* Shrinking keeps the object where it is; if the reap cannot give
     * the tail back, the larger object is still a correct result.
     */
    if ((strp = reap_realloc(reap, ps->buf, len)) == NULL)
        strp = ps->buf;

    return strp;
}

APR_DECLARE(char *) apr_pvsprintf(apr_pool_t *pool, const char *fmt, va_list ap)
{
    struct psprintf_data ps;
    char *strp;

    pool_concurrency_set_used(pool);
    ps.pool = pool;
    ps.buf = ps.stack;
    ps.size = sizeof(ps.stack);
    ps.on_reap = 0;
    ps.vbuff.curpos = ps.buf;

    /* Save a byte for the NUL terminator */
    ps.vbuff.endpos = ps.buf + ps.size - 1;

    if (apr_vformatter(psprintf_flush, &ps.vbuff, fmt, ap) == -1)
        goto error;

    *ps.vbuff.curpos++ = '\0';

    if ((strp = psprintf_finish(&ps)) == NULL)
        goto error;

    pool_concurrency_set_idle(pool);
    return strp;

error:
    if (ps.on_reap)
        reap_free(pool->reap, ps.buf);
    pool_concurrency_set_idle(pool);
    return pool_out_of_memory(pool);
}

#ifdef NETWARE
void netware_pool_proc_cleanup ()
{
    apr_pool_t *pool = global_pool->child;
    apr_os_proc_t owner_proc = (apr_os_proc_t)getnlmhandle();

    while (pool) {
        if (pool->owner_proc == owner_proc) {
            apr_pool_destroy (pool);
            pool = global_pool->child;
        }
        else {
            pool = pool->sibling;
        }
    }
    return;
}
#endif /* defined(NETWARE) */


/*
 * "Print" functions (common)
 */

APR_DECLARE_NONSTD(char *) apr_psprintf(apr_pool_t *p, const char *fmt, ...)
{
    va_list ap;
    char *res;

    va_start(ap, fmt);
    res = apr_pvsprintf(p, fmt, ap);
    va_end(ap);
    return res;
}

/*
 * Pool Properties
 */

APR_DECLARE(void) apr_pool_abort_set(apr_abortfunc_t abort_fn,
                                     apr_pool_t *pool)
{
    pool->abort_fn = abort_fn;
}

APR_DECLARE(apr_abortfunc_t) apr_pool_abort_get(apr_pool_t *pool)
{
    return pool->abort_fn;
}

APR_DECLARE(apr_pool_t *) apr_pool_parent_get(apr_pool_t *pool)
{
#ifdef NETWARE
    /* On NetWare, don't return the global_pool, return the application pool 
       as the top most pool */
    if (pool->parent == global_pool)
        return pool;
    else
#endif
    return pool->parent;
}

APR_DECLARE(apr_allocator_t *) apr_pool_allocator_get(apr_pool_t *pool)
{
    return pool->allocator;
}

/* return TRUE if a is an ancestor of b
 * NULL is considered an ancestor of all pools
 */
APR_DECLARE(int) apr_pool_is_ancestor(apr_pool_t *a, apr_pool_t *b)
{
    if (a == NULL)
        return 1;

    while (b) {
        if (a == b)
            return 1;

        b = b->parent;
    }

    return 0;
}

/* The tag is stored and read atomically: apr_pool_walk() callbacks read
 * tags of pools that other threads use.  It also names the pool's reap in
 * libreap's allocation trace (REAP_TRACE), where creates, clears and
 * destroys are recorded by libreap itself.
 */
APR_DECLARE(void) apr_pool_tag(apr_pool_t *pool, const char *tag)
{
    __atomic_store_n(&pool->tag, tag, __ATOMIC_RELEASE);
    reap_trace_tag(pool->reap, tag);
}

APR_DECLARE(const char *) apr_pool_tag_get(apr_pool_t *pool)
{
    return __atomic_load_n(&pool->tag, __ATOMIC_ACQUIRE);
}


/*
 * User data management
 */

APR_DECLARE(apr_status_t) apr_pool_userdata_set(const void *data, const char *key,
                                                apr_status_t (*cleanup) (void *),
                                                apr_pool_t *pool)
{
    if (pool->user_data == NULL)
        pool->user_data = apr_hash_make(pool);

    if (apr_hash_get(pool->user_data, key, APR_HASH_KEY_STRING) == NULL) {
        char *new_key = apr_pstrdup(pool, key);
        apr_hash_set(pool->user_data, new_key, APR_HASH_KEY_STRING, data);
    }
    else {
        apr_hash_set(pool->user_data, key, APR_HASH_KEY_STRING, data);
    }

    if (cleanup)
        apr_pool_cleanup_register(pool, data, cleanup, cleanup);

    return APR_SUCCESS;
}

APR_DECLARE(apr_status_t) apr_pool_userdata_setn(const void *data,
                              const char *key,
                              apr_status_t (*cleanup)(void *),
                              apr_pool_t *pool)
{
    if (pool->user_data == NULL)
        pool->user_data = apr_hash_make(pool);

    apr_hash_set(pool->user_data, key, APR_HASH_KEY_STRING, data);

    if (cleanup)
        apr_pool_cleanup_register(pool, data, cleanup, cleanup);

    return APR_SUCCESS;
}

APR_DECLARE(apr_status_t) apr_pool_userdata_get(void **data, const char *key,
                                                apr_pool_t *pool)
{
    if (pool->user_data == NULL) {
        *data = NULL;
    }
    else {
        *data = apr_hash_get(pool->user_data, key, APR_HASH_KEY_STRING);
    }

    return APR_SUCCESS;
}


/*
 * Cleanup
 */

struct cleanup_t {
    struct cleanup_t *next;
    const void *data;
    apr_status_t (*plain_cleanup_fn)(void *data);
    apr_status_t (*child_cleanup_fn)(void *data);
};

APR_DECLARE(void) apr_pool_cleanup_register(apr_pool_t *p, const void *data,
                      apr_status_t (*plain_cleanup_fn)(void *data),
                      apr_status_t (*child_cleanup_fn)(void *data))
{
    cleanup_t *c = NULL;

    if (p != NULL) {
        if (p->free_cleanups) {
            /* reuse a cleanup structure */
            c = p->free_cleanups;
            p->free_cleanups = c->next;
        } else {
            c = apr_palloc(p, sizeof(cleanup_t));
        }
        c->data = data;
        c->plain_cleanup_fn = plain_cleanup_fn;
        c->child_cleanup_fn = child_cleanup_fn;
        c->next = p->cleanups;
        p->cleanups = c;
    }
}

APR_DECLARE(void) apr_pool_pre_cleanup_register(apr_pool_t *p, const void *data,
                      apr_status_t (*plain_cleanup_fn)(void *data))
{
    cleanup_t *c = NULL;

    if (p != NULL) {
        if (p->free_cleanups) {
            /* reuse a cleanup structure */
            c = p->free_cleanups;
            p->free_cleanups = c->next;
        } else {
            c = apr_palloc(p, sizeof(cleanup_t));
        }
        c->data = data;
        c->plain_cleanup_fn = plain_cleanup_fn;
        c->next = p->pre_cleanups;
        p->pre_cleanups = c;
    }
}

APR_DECLARE(void) apr_pool_cleanup_kill(apr_pool_t *p, const void *data,
                      apr_status_t (*cleanup_fn)(void *))
{
    cleanup_t *c, **lastp;

    if (p == NULL)
        return;

    c = p->cleanups;
    lastp = &p->cleanups;
    while (c) {
        if (c->data == data && c->plain_cleanup_fn == cleanup_fn) {
            *lastp = c->next;
            /* move to freelist */
            c->next = p->free_cleanups;
            p->free_cleanups = c;
            break;
        }

        lastp = &c->next;
        c = c->next;
    }

    /* Remove any pre-cleanup as well */
    c = p->pre_cleanups;
    lastp = &p->pre_cleanups;
    while (c) {
        if (c->data == data && c->plain_cleanup_fn == cleanup_fn) {
            *lastp = c->next;
            /* move to freelist */
            c->next = p->free_cleanups;
            p->free_cleanups = c;
            break;
        }

        lastp = &c->next;
        c = c->next;
    }
}

APR_DECLARE(void) apr_pool_child_cleanup_set(apr_pool_t *p, const void *data,
                      apr_status_t (*plain_cleanup_fn)(void *),
                      apr_status_t (*child_cleanup_fn)(void *))
{
    cleanup_t *c;

    if (p == NULL)
        return;

    c = p->cleanups;
    while (c) {
        if (c->data == data && c->plain_cleanup_fn == plain_cleanup_fn) {
            c->child_cleanup_fn = child_cleanup_fn;
            break;
        }

        c = c->next;
    }
}

APR_DECLARE(apr_status_t) apr_pool_cleanup_run(apr_pool_t *p, void *data,
                              apr_status_t (*cleanup_fn)(void *))
{
    apr_pool_cleanup_kill(p, data, cleanup_fn);
    return (*cleanup_fn)(data);
}

static void run_cleanups(cleanup_t **cref)
{
    cleanup_t *c = *cref;

    while (c) {
        *cref = c->next;
        (*c->plain_cleanup_fn)((void *)c->data);
        c = *cref;
    }
}

#if !defined(WIN32) && !defined(OS2)

static void run_child_cleanups(cleanup_t **cref)
{
    cleanup_t *c = *cref;

    while (c) {
        *cref = c->next;
        (*c->child_cleanup_fn)((void *)c->data);
        c = *cref;
    }
}

static void cleanup_pool_for_exec(apr_pool_t *p)
{
    run_child_cleanups(&p->cleanups);

    for (p = p->child; p; p = p->sibling)
        cleanup_pool_for_exec(p);
}

APR_DECLARE(void) apr_pool_cleanup_for_exec(void)
{
    cleanup_pool_for_exec(global_pool);
}

#else /* !defined(WIN32) && !defined(OS2) */

APR_DECLARE(void) apr_pool_cleanup_for_exec(void)
{
    /*
     * Don't need to do anything on NT or OS/2, because 
     * these platforms will spawn the new process - not
     * fork for exec. All handles that are not inheritable,
     * will be automajically closed. The only problem is
     * with file handles that are open, but there isn't
     * much that can be done about that (except if the
     * child decides to go out and close them, or the
     * developer quits opening them shared)
     */
    return;
}

#endif /* !defined(WIN32) && !defined(OS2) */

APR_DECLARE_NONSTD(apr_status_t) apr_pool_cleanup_null(void *data)
{
    /* do nothing cleanup routine */
    return APR_SUCCESS;
}

/* Subprocesses don't use the generic cleanup interface because
 * we don't want multiple subprocesses to result in multiple
 * three-second pauses; the subprocesses have to be "freed" all
 * at once.  If other resources are introduced with the same property,
 * we might want to fold support for that into the generic interface.
 * For now, it's a special case.
 */
APR_DECLARE(void) apr_pool_note_subprocess(apr_pool_t *pool, apr_proc_t *proc,
                                           apr_kill_conditions_e how)
{
    struct process_chain *pc = apr_palloc(pool, sizeof(struct process_chain));

    pc->proc = proc;
    pc->kill_how = how;
    pc->next = pool->subprocesses;
    pool->subprocesses = pc;
}

static void free_proc_chain(struct process_chain *procs)
{
    /* Dispose of the subprocesses we've spawned off in the course of
     * whatever it was we're cleaning up now.  This may involve killing
     * some of them off...
     */
    struct process_chain *pc;
    int need_timeout = 0;
    apr_time_t timeout_interval;

    if (!procs)
        return; /* No work.  Whew! */

    /* First, check to see if we need to do the SIGTERM, sleep, SIGKILL
     * dance with any of the processes we're cleaning up.  If we've got
     * any kill-on-sight subprocesses, ditch them now as well, so they
     * don't waste any more cycles doing whatever it is that they shouldn't
     * be doing anymore.
     */

#ifndef NEED_WAITPID
    /* Pick up all defunct processes */
    for (pc = procs; pc; pc = pc->next) {
        if (apr_proc_wait(pc->proc, NULL, NULL, APR_NOWAIT) != APR_CHILD_NOTDONE)
            pc->kill_how = APR_KILL_NEVER;
    }
#endif /* !defined(NEED_WAITPID) */

    for (pc = procs; pc; pc = pc->next) {
#ifndef WIN32
        if ((pc->kill_how == APR_KILL_AFTER_TIMEOUT)
            || (pc->kill_how == APR_KILL_ONLY_ONCE)) {
            /*
             * Subprocess may be dead already.  Only need the timeout if not.
             * Note: apr_proc_kill on Windows is TerminateProcess(), which is
             * similar to a SIGKILL, so always give the process a timeout
             * under Windows before killing it.
             */
            if (apr_proc_kill(pc->proc, SIGTERM) == APR_SUCCESS)
                need_timeout = 1;
        }
        else if (pc->kill_how == APR_KILL_ALWAYS) {
#else /* WIN32 knows only one fast, clean method of killing processes today */
        if (pc->kill_how != APR_KILL_NEVER) {
            need_timeout = 1;
            pc->kill_how = APR_KILL_ALWAYS;
#endif
            apr_proc_kill(pc->proc, SIGKILL);
        }
    }

    /* Sleep only if we have to. The sleep algorithm grows
     * by a factor of two on each iteration. TIMEOUT_INTERVAL
     * is equal to TIMEOUT_USECS / 64.
     */
    if (need_timeout) {
        timeout_interval = TIMEOUT_INTERVAL;
        apr_sleep(timeout_interval);

        do {
            /* check the status of the subprocesses */
            need_timeout = 0;
            for (pc = procs; pc; pc = pc->next) {
                if (pc->kill_how == APR_KILL_AFTER_TIMEOUT) {
                    if (apr_proc_wait(pc->proc, NULL, NULL, APR_NOWAIT)
                            == APR_CHILD_NOTDONE)
                        need_timeout = 1;		/* subprocess is still active */
                    else
                        pc->kill_how = APR_KILL_NEVER;	/* subprocess has exited */
                }
            }
            if (need_timeout) {
                if (timeout_interval >= TIMEOUT_USECS) {
                    break;
                }
                apr_sleep(timeout_interval);
                timeout_interval *= 2;
            }
        } while (need_timeout);
    }

    /* OK, the scripts we just timed out for have had a chance to clean up
     * --- now, just get rid of them, and also clean up the system accounting
     * goop...
     */
    for (pc = procs; pc; pc = pc->next) {
        if (pc->kill_how == APR_KILL_AFTER_TIMEOUT)
            apr_proc_kill(pc->proc, SIGKILL);
    }

    /* Now wait for all the signaled processes to die */
    for (pc = procs; pc; pc = pc->next) {
        if (pc->kill_how != APR_KILL_NEVER)
            (void)apr_proc_wait(pc->proc, NULL, NULL, APR_WAIT);
    }
}


/*
 * Pool creation/destruction stubs, for people who are running
 * mixed release/debug enviroments.
 */

APR_DECLARE(void *) apr_palloc_debug(apr_pool_t *pool, apr_size_t size,
                                     const char *file_line)
{
    return apr_palloc(pool, size);
}

APR_DECLARE(void *) apr_pcalloc_debug(apr_pool_t *pool, apr_size_t size,
                                      const char *file_line)
{
    return apr_pcalloc(pool, size);
}

APR_DECLARE(void) apr_pool_clear_debug(apr_pool_t *pool,
                                       const char *file_line)
{
    apr_pool_clear(pool);
}

APR_DECLARE(void) apr_pool_destroy_debug(apr_pool_t *pool,
                                         const char *file_line)
{
    apr_pool_destroy(pool);
}

APR_DECLARE(apr_status_t) apr_pool_create_ex_debug(apr_pool_t **newpool,
                                                   apr_pool_t *parent,
                                                   apr_abortfunc_t abort_fn,
                                                   apr_allocator_t *allocator,
                                                   const char *file_line)
{
    return apr_pool_create_ex(newpool, parent, abort_fn, allocator);
}

APR_DECLARE(apr_status_t) apr_pool_create_core_ex_debug(apr_pool_t **newpool,
                                                   apr_abortfunc_t abort_fn,
                                                   apr_allocator_t *allocator,
                                                   const char *file_line)
{
    return apr_pool_create_unmanaged_ex(newpool, abort_fn, allocator);
}

APR_DECLARE(apr_status_t) apr_pool_create_unmanaged_ex_debug(apr_pool_t **newpool,
                                                   apr_abortfunc_t abort_fn,
                                                   apr_allocator_t *allocator,
                                                   const char *file_line)
{
    return apr_pool_create_unmanaged_ex(newpool, abort_fn, allocator);
}

