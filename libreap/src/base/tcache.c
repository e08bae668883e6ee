/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * tcache.c - per-thread caches in front of the heaps, and the binding of
 * threads to heaps.
 *
 * A thread's first allocation binds it to the heap with the fewest threads
 * and gives it a cache: per class, a LIFO list of free blocks taken from or
 * freed to that heap, at most tcache_bytes per class (more for classes
 * that overflow, out of a per-thread budget: rp_hd_tcache_overflow), so
 * most mallocs and frees take no lock.  A cache holds only blocks whose
 * superblock its heap owned when they were freed, so a thread never
 * reuses a block from a cache line another heap allocates from (no
 * passive false sharing).
 * Blocks of other heaps go to the outbox and are given back to their own
 * superblocks in batches, one lock per owning heap.
 *
 * The cache pointer is TLS (default model, dlopen-safe, except in the
 * preload-only libreap-malloc.so: see hoard.h) and
 * a pthread key flushes the cache when the thread exits; the cache is
 * then free for the next thread, so thread churn maps nothing new.
 * After its exit flush a thread uses rp_hd_nocache, a cache that keeps nothing.
 * Caches are carved side by side from 64 KiB slabs with only the bins of
 * the classes in use (slot_take, rp_hd_tcache_bytes): a server of hundreds
 * of threads pays about 3 KiB a thread, not the two pages a whole
 * rp_hd_tcache_t would take.  A trim releases the caches of the threads
 * that wait for work (parked) and gives back the pages that hold no live
 * thread's cache, so an idle server pays nothing for them: httpd's h2
 * children, 243 threads each, held 700 KB of caches each when idle.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/annotate.h"
#include "hoard.h"

rp_hd_tcache_t rp_hd_none;
__thread rp_hd_tcache_t *rp_hd_tls RP_HD_TLS_MODEL = &rp_hd_none;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static rp_hd_tcache_t *live; /* caches of live threads, linked by live_next */
static uint32_t trim_gen;    /* passes of rp_hd_tcache_flush_parked (pool lock) */
static pthread_key_t exit_key;
/* A cache of caps 0, for a thread without one of its own (before its first
 * tcache_after calls, and exiting): every operation takes the locked path. */
rp_hd_tcache_t rp_hd_nocache;

#define REFILL_MAX 128

/* Slabs, the mappings caches are carved from, and the state of every slot
 * in them, kept here rather than in the caches so that a slot's pages can
 * go back to the OS: a slot is owned (a live thread's cache), released
 * (taken from a parked thread by a trim; the thread gives it up when it
 * wakes, and only then is it free) or free (for the next thread).
 * Slabs are never unmapped; a slab's pages that hold no owned slot are
 * given back by each trim (purge_slabs).  All under the pool lock. */
#define SLAB_BYTES (64u << 10)
#define SLAB_SLOTS 64    /* slots a slab may hold: a cache is at least 1 KiB */
#define MAX_SLABS 4096   /* about 90,000 threads; past them a thread gets rp_hd_nocache */
typedef struct slab {
    char *base;
    uint32_t carved;     /* slots carved so far, from the start */
    uint32_t purged;     /* bit i: page i is given back and not written since */
    uint64_t free, released; /* bit i: slot i's state; owned when neither */
} slab_t;
static slab_t slabs[MAX_SLABS];
static uint32_t nslabs;

/* ---- binding ---------------------------------------------------------------- */

static rp_hd_heap_t *least_loaded_heap(void)
{
    rp_hd_heap_t *best = &rp_hd_heaps[1];
    for (uint32_t i = 2; i <= rp_hd_nheaps; i++)
        if (rp_hd_heaps[i].nthreads < best->nthreads)
            best = &rp_hd_heaps[i];
    return best;
}

static void set_caps(rp_hd_tcache_t *tc)
{
    for (uint32_t c = 0; c < rp_hd_sc.n; c++) {
        size_t size = rp_hd_sc.size[c];
        size_t cap = rp_hd_opt.tcache_bytes / size;
        if (rp_hd_opt.tcache_bytes && cap < 2)
            cap = 2; /* reap chunks of up to S/2: a pair stays local */
        tc->bin[c].cap = (uint32_t)(cap > RP_HD_CAP_MAX ? RP_HD_CAP_MAX : cap);
        tc->bin[c].size = (uint32_t)size;
    }
    tc->grow_left = rp_hd_opt.tcache_bytes ? rp_hd_opt.tcache_grow : 0;
}

/* What all threads' caps may still grow by (tcache_grow_total): a thread
 * takes its growth from here as well as from its own budget, and gives it
 * back when it exits.  Without it a server's hundreds of threads could
 * each keep tcache_grow: httpd's h2 children (96 threads) peaked at 1.5-2x
 * the RSS they have with no growth at all. */
static _Atomic size_t grow_pool;

/* Up to want bytes, whole blocks of size, from the process's budget. */
static size_t take_growth(size_t want, size_t size)
{
    size_t avail = atomic_load_explicit(&grow_pool, memory_order_relaxed), take;
    do {
        take = (want < avail ? want : avail) / size * size;
        if (take == 0)
            return 0;
    } while (!atomic_compare_exchange_weak_explicit(&grow_pool, &avail, avail - take,
                                                    memory_order_relaxed, memory_order_relaxed));
    return take;
}

/* Doubles the bin's cap (at most RP_HD_CAP_MAX blocks) as far as the
 * thread's growth budget and the process's last; returns whether it grew. */
static bool grow_cap(rp_hd_tcache_t *tc, rp_hd_bin_t *bin, size_t size)
{
    size_t add = bin->cap < RP_HD_CAP_MAX - bin->cap ? bin->cap : RP_HD_CAP_MAX - bin->cap;
    if (add * size > tc->grow_left)
        add = tc->grow_left / size;
    size_t bytes = take_growth(add * size, size);
    bin->cap += (uint32_t)(bytes / size);
    tc->grow_left -= bytes;
    tc->grown += bytes;
    return bytes > 0;
}

/* The bytes of a cache: its bins stop after the last class in use (and
 * the always empty bin of malloc(0)), so the bins past rp_hd_sc.n are not
 * there and nothing may touch them (every other bin index is a class).  Only the two
 * static caches, rp_hd_none and rp_hd_nocache, are whole. */
size_t rp_hd_tcache_bytes(void)
{
    /* and the empty bin of malloc(0), rp_hd_sc_small(0) */
    return offsetof(rp_hd_tcache_t, bin) + ((size_t)rp_hd_sc.n + 1) * sizeof(rp_hd_bin_t);
}

/* ---- slabs ------------------------------------------------------------------- */

/* The slab and slot of a cache carved from a slab. */
static slab_t *slab_of(const rp_hd_tcache_t *tc, uint32_t *slot)
{
    const char *p = (const char *)tc;
    for (uint32_t i = 0; i < nslabs; i++)
        if (p >= slabs[i].base && p < slabs[i].base + SLAB_BYTES) {
            *slot = (uint32_t)((size_t)(p - slabs[i].base) / rp_hd_tcache_bytes());
            return &slabs[i];
        }
    abort(); /* every cache but rp_hd_none and rp_hd_nocache is carved from a slab */
}

/* Bit p set for the pages p of a slab from first up to, not including, end. */
static uint32_t page_bits(size_t first, size_t end)
{
    return (uint32_t)((1ull << end) - (1ull << first));
}

/* The pages of a slab that slot i lies on. */
static uint32_t slot_pages(uint32_t i)
{
    size_t n = rp_hd_tcache_bytes(), page = rp_hd_os_page();
    return page_bits(i * n / page, ((i + 1) * n - 1) / page + 1);
}

/* A slot for a new cache, lowest slab first, or NULL; the pool lock. */
static rp_hd_tcache_t *slot_take(void)
{
    size_t n = rp_hd_tcache_bytes();
    slab_t *s = NULL;
    uint32_t i = 0;
    for (uint32_t k = 0; k < nslabs && !s; k++)
        if (slabs[k].free) {
            s = &slabs[k];
            i = (uint32_t)__builtin_ctzll(s->free);
            s->free &= s->free - 1;
        }
    if (!s && nslabs > 0 && slabs[nslabs - 1].carved < SLAB_SLOTS &&
        (slabs[nslabs - 1].carved + 1) * n <= SLAB_BYTES) {
        s = &slabs[nslabs - 1];
        i = s->carved++;
    }
    if (!s) {
        if (nslabs == MAX_SLABS)
            return NULL;
        char *base = rp_hd_os_map(SLAB_BYTES, rp_hd_os_page());
        if (!base)
            return NULL;
        s = &slabs[nslabs++];
        *s = (slab_t){.base = base, .carved = 1};
        i = 0;
    }
    s->purged &= ~slot_pages(i); /* written again from now on */
    return (rp_hd_tcache_t *)(void *)(s->base + i * n);
}

/* Gives back every page of the slabs that no owned slot lies on and that
 * is not given back already; the pool lock, so no slot on them can be
 * taken meanwhile. */
static void purge_slabs(void)
{
    size_t page = rp_hd_os_page();
    uint32_t npages = (uint32_t)(SLAB_BYTES / page);
    if (npages > 32) /* pages under 2 KiB: the masks have no room */
        return;
    for (uint32_t k = 0; k < nslabs; k++) {
        slab_t *s = &slabs[k];
        uint32_t keep = s->purged; /* pages to leave alone */
        uint64_t owned = ~(s->free | s->released);
        for (uint32_t i = 0; i < s->carved; i++)
            if (owned >> i & 1)
                keep |= slot_pages(i);
        /* the pages wholly past the carved slots were never written */
        keep |= page_bits((s->carved * rp_hd_tcache_bytes() + page - 1) / page, npages);
        for (uint32_t p = 0; p < npages;) {
            if (keep >> p & 1) {
                p++;
                continue;
            }
            uint32_t q = p;
            while (q < npages && !(keep >> q & 1))
                q++;
            if (rp_hd_os_purge_in_place(s->base + p * page, (q - p) * page))
                s->purged |= page_bits(p, q);
            p = q;
        }
    }
}

void rp_hd_tcache_census(rp_hd_tcache_census_t *out)
{
    *out = (rp_hd_tcache_census_t){0};
    pthread_mutex_lock(&pool_lock);
    for (uint32_t k = 0; k < nslabs; k++) {
        const slab_t *s = &slabs[k];
        uint64_t carved = s->carved == SLAB_SLOTS ? ~0ull : (1ull << s->carved) - 1;
        out->free += (size_t)__builtin_popcountll(s->free);
        out->released += (size_t)__builtin_popcountll(s->released);
        out->owned += (size_t)__builtin_popcountll(carved & ~(s->free | s->released));
        out->purged += (size_t)__builtin_popcount(s->purged) * rp_hd_os_page();
    }
    pthread_mutex_unlock(&pool_lock);
}

/* ---- caches ------------------------------------------------------------------- */

static rp_hd_tcache_t *tcache_create(void)
{
    pthread_mutex_lock(&pool_lock);
    rp_hd_tcache_t *tc = slot_take();
    if (!tc) {
        pthread_mutex_unlock(&pool_lock);
        return &rp_hd_nocache;
    }
    rp_hd_heap_t *h = least_loaded_heap();
    h->nthreads++;
    pthread_mutex_unlock(&pool_lock);
    memset(tc, 0, rp_hd_tcache_bytes());
    tc->heap = h;
    atomic_store_explicit(&tc->park, RP_HD_RUNNING, memory_order_relaxed);
    set_caps(tc);
    pthread_mutex_lock(&pool_lock);
    tc->live_next = live;
    if (live)
        live->live_prev = tc;
    live = tc;
    pthread_mutex_unlock(&pool_lock);
    rp_hd_tls = tc; /* before setspecific, which may call malloc */
    pthread_setspecific(exit_key, tc);
    return tc;
}

/* A flushed cache leaves its thread: off the list of live caches and its
 * heap's threads, what its caps grew by back to the process's budget, and
 * its slot free (the thread has exited) or released (taken from a parked
 * thread by a trim: RELEASED, for the thread to find when it wakes). */
static void retire(rp_hd_tcache_t *tc, bool released)
{
    pthread_mutex_lock(&pool_lock);
    atomic_fetch_add_explicit(&grow_pool, tc->grown, memory_order_relaxed);
    tc->grown = 0;
    if (tc->live_prev)
        tc->live_prev->live_next = tc->live_next;
    else
        live = tc->live_next;
    if (tc->live_next)
        tc->live_next->live_prev = tc->live_prev;
    rp_hd_heap_t *h = tc->heap;
    bool last = --h->nthreads == 0;
    uint32_t i;
    slab_t *s = slab_of(tc, &i);
    if (released) {
        s->released |= 1ull << i;
        /* release: the thread reads nothing of it after seeing RELEASED */
        atomic_store_explicit(&tc->park, RP_HD_RELEASED, memory_order_release);
    } else {
        s->free |= 1ull << i;
    }
    pthread_mutex_unlock(&pool_lock);
    if (last)
        rp_hd_heap_orphaned(h);
}

/* The owner gives up a cache a trim released: its slot is free from now
 * on, and nothing of it is read again (its pages may read as zeros). */
static void give_up(rp_hd_tcache_t *tc)
{
    uint32_t i;
    pthread_mutex_lock(&pool_lock);
    slab_t *s = slab_of(tc, &i);
    RP_ASSERT(s->released >> i & 1);
    s->released &= ~(1ull << i);
    s->free |= 1ull << i;
    pthread_mutex_unlock(&pool_lock);
}

static bool take_back(rp_hd_tcache_t *tc);

static void thread_exit(void *arg)
{
    rp_hd_tcache_t *tc = arg;
    rp_hd_tls = &rp_hd_nocache; /* frees from later destructors go the locked way */
    if (!take_back(tc)) /* cancelled while parked, and released since */
        return;
    rp_ann_quiet_begin(); /* walks links inside blocks reaps gave back */
    rp_hd_tcache_flush_all(tc);
    rp_ann_quiet_end();
    retire(tc, false);
}

/* ---- parked threads ---------------------------------------------------------- */

/* The owner, not parked or done waiting: true with tc RUNNING again, or
 * false when a trim released it (waited out while the trim flushes it),
 * which the owner has then given up. */
static bool take_back(rp_hd_tcache_t *tc)
{
    for (;;) {
        uint32_t s = RP_HD_PARKED; /* acquire: the cache as a trim left it */
        if (atomic_compare_exchange_weak_explicit(&tc->park, &s, RP_HD_RUNNING,
                                                  memory_order_acquire, memory_order_relaxed))
            return true;
        if (s == RP_HD_RUNNING) /* unpark without park */
            return true;
        if (s == RP_HD_RELEASED) {
            give_up(tc);
            return false;
        }
        sched_yield(); /* a trim is flushing it: a few list splices */
    }
}

/* Calls this thread has made without a cache.  A server's threads mostly
 * wait for work and draw on their pools' memory, not on this allocator:
 * at 64 connections, 59 of the 65 caches of an httpd child had refilled
 * four times in a whole run and never overflowed, 2.8 KB each for
 * nothing.  So a thread takes the heap lock for its first tcache_after
 * calls and gets a cache only then (rp_hd_tcache_get). */
static __thread uint32_t uncached_calls RP_HD_TLS_MODEL;

/* The calling thread has no cache after its cache was released: it starts
 * again as a new thread does, without one for its first tcache_after
 * calls (rp_hd_tcache_get), so a server that fell quiet makes caches again
 * only for the threads that allocate. */
static void unbound(void)
{
    rp_hd_tls = &rp_hd_none;
    uncached_calls = 0;
    pthread_setspecific(exit_key, NULL); /* nothing to flush at exit */
}

void rp_hd_thread_park(void)
{
    rp_hd_tcache_t *tc = rp_hd_tls;
    if (!rp_hd_own_cache(tc))
        return;
    /* A second park without unpark may find the cache released already. */
    uint32_t s = atomic_load_explicit(&tc->park, memory_order_acquire);
    if (s == RP_HD_RUNNING) /* release: the cache as this thread left it */
        atomic_store_explicit(&tc->park, RP_HD_PARKED, memory_order_release);
    else if (s != RP_HD_PARKED && !take_back(tc))
        unbound();
}

void rp_hd_thread_unpark(void)
{
    rp_hd_tcache_t *tc = rp_hd_tls;
    if (rp_hd_own_cache(tc) && !take_back(tc))
        unbound();
}

/* Claims up to n parked caches that this pass has not flushed yet. */
static size_t claim_parked(rp_hd_tcache_t **out, size_t n, uint32_t gen)
{
    size_t got = 0;
    pthread_mutex_lock(&pool_lock);
    for (rp_hd_tcache_t *tc = live; tc && got < n; tc = tc->live_next) {
        uint32_t s = RP_HD_PARKED;
        if (tc->trim_gen != gen &&
            atomic_compare_exchange_strong_explicit(&tc->park, &s, RP_HD_FLUSHING,
                                                    memory_order_acquire, memory_order_relaxed)) {
            tc->trim_gen = gen;
            out[got++] = tc;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return got;
}

void rp_hd_tcache_flush_parked(void)
{
    rp_hd_tcache_t *batch[64];
    pthread_mutex_lock(&pool_lock);
    uint32_t gen = ++trim_gen;
    pthread_mutex_unlock(&pool_lock);
    size_t n;
    /* A claimed cache's thread is asleep or waits in take_back for it, so
     * it cannot exit or allocate meanwhile; the heap locks the flush
     * takes are never taken under the pool lock. */
    while ((n = claim_parked(batch, sizeof batch / sizeof batch[0], gen)) > 0) {
        for (size_t i = 0; i < n; i++) {
            rp_hd_tcache_flush_all(batch[i]);
            retire(batch[i], true);
        }
    }
    pthread_mutex_lock(&pool_lock);
    purge_slabs();
    pthread_mutex_unlock(&pool_lock);
}

rp_hd_tcache_t *rp_hd_tcache_get(void)
{
    rp_hd_tcache_t *tc = rp_hd_tls;
    if (tc != &rp_hd_none)
        return tc;
    if (uncached_calls < rp_hd_opt.tcache_after) {
        uncached_calls++;
        return &rp_hd_nocache; /* rp_hd_tls stays rp_hd_none: the next call counts too */
    }
    return tcache_create();
}

void rp_hd_tcache_init(void)
{
    rp_hd_nocache.heap = &rp_hd_heaps[1];
    atomic_store_explicit(&grow_pool, rp_hd_opt.tcache_grow_total, memory_order_relaxed);
    pthread_key_create(&exit_key, thread_exit);
}

/* ---- refill and flush ------------------------------------------------------- */

/* Prefers a piece of never-used blocks (the usual case after a superblock
 * empties and is reset): taken under the lock in O(1) and kept as the
 * bin's range, which malloc hands out in address order.  Linking the
 * piece into the list instead was 94% of the refill's time in threadtest:
 * its stores missed the cache, each on a block the program was about to
 * write anyway.  Otherwise the whole free list of the fullest superblock when the
 * bin can hold it (O(1) too: the fullest has the fewest free blocks), and
 * only failing that a batch cut off free lists, which walks them block by
 * block under the heap lock (blocks freed long ago: a cache miss each,
 * while the threads freeing into this heap wait; prodcons's producers
 * spent 15% of their time there). */
void *rp_hd_tcache_refill(rp_hd_tcache_t *tc, uint32_t cls)
{
    rp_hd_bin_t *bin = &tc->bin[cls]; /* empty */
    size_t want = bin->cap / 2 + 1;
    if (want > REFILL_MAX)
        want = REFILL_MAX;
    char *start = NULL;
    void *chain = NULL;
    size_t got = 0, range = 0;
    bool own = want > 1; /* false only for rp_hd_nocache (cap 0): its bins stay empty, and are shared */
    pthread_mutex_lock(&tc->heap->lock);
    if (own)
        range = rp_hd_heap_take_range(tc->heap, cls, want, &start);
    if (range == 0) /* rp_hd_nocache: cap 0, so never a whole list */
        got = rp_hd_heap_take_chain(tc->heap, cls, want, bin->cap, &chain);
    pthread_mutex_unlock(&tc->heap->lock);
    if (own)
        bin->dry = 1; /* its next overflow may grow it (rp_hd_tcache_overflow) */
    if (range > 0) {
        bin->next = start + bin->size;
        bin->end = start + range * bin->size;
        return start;
    }
    if (got == 0) {
        errno = ENOMEM;
        return NULL;
    }
    if (got > 1) { /* never for rp_hd_nocache, which threads share */
        bin->head = *(void **)chain;
        bin->count = (uint32_t)(got - 1);
        bin->run_sb = NULL;
    }
    ((uint64_t *)chain)[1] = 0; /* handed out: not the key (rp_hd_sb_t.key) */
    return chain;
}

/* Blocks of one superblock gathered by give_owned or gather: head..tail
 * linked, k of them. */
typedef struct gather {
    rp_hd_sb_t *sb;
    void *head, *tail;
    uint32_t k;
} gather_t;

#define GATHER 32 /* slots, a power of two; a superblock's slot is fixed by its address */

static void gather_clear(gather_t *g)
{
    for (uint32_t i = 0; i < GATHER; i++)
        g[i].sb = NULL;
}

/* Cuts the run at the head of *list (non-empty): its consecutive blocks
 * of one superblock, at most max of them, unlinked from the rest. */
static gather_t cut_run(void **list, size_t max)
{
    void *head = *list, *tail = head, *next = *(void **)head;
    rp_hd_sb_t *sb = rp_hd_hdr(head);
    uint32_t k = 1;
    while (k < max && next && rp_hd_hdr(next) == sb) {
        tail = next;
        next = *(void **)next;
        k++;
    }
    *list = next;
    return (gather_t){sb, head, tail, k};
}

/* The slot of sb in g. */
static gather_t *slot_of(gather_t *g, const rp_hd_sb_t *sb)
{
    unsigned shift = (unsigned)__builtin_ctzl(rp_hd_opt.sb_size);
    return &g[((uintptr_t)sb >> shift) & (GATHER - 1)];
}

/* Puts run in front of the blocks its slot s has gathered of the same
 * superblock (s->sb == run.sb). */
static void slot_add(gather_t *s, gather_t run)
{
    *(void **)run.tail = s->head;
    s->head = run.head;
    s->k += run.k;
}

/* Gives back the first n blocks of list (all of it when shorter): those
 * whose superblock h owns to h (locked), the others (another heap's, or
 * moved to the global heap since they were cached) are linked onto
 * *other; returns the rest of list.  One walk: consecutive blocks of one
 * superblock are taken as a run without relinking them, and the runs of
 * each superblock are chained together in a small table indexed by its
 * address (a superblock taking a slot another holds gives that one back
 * first) before each is given back once.  Remote frees come in short runs
 * from a few dozen superblocks (a producer's recent allocations): giving
 * back every run on its own cost a fullness-group move per run, and the
 * neighbours' headers that move touches, for nearly every block
 * (prodcons, mstress). */
static void *give_owned(rp_hd_heap_t *h, void *list, size_t n, void **other)
{
    gather_t g[GATHER];
    gather_clear(g);
    while (n > 0 && list) {
        gather_t run = cut_run(&list, n);
        n -= run.k;
        gather_t *s = slot_of(g, run.sb);
        if (s->sb == run.sb) {
            slot_add(s, run);
        } else if (atomic_load_explicit(&run.sb->owner, memory_order_relaxed) != h) {
            *(void **)run.tail = *other;
            *other = run.head;
        } else {
            if (s->sb)
                rp_hd_heap_give_chain(h, s->sb, s->head, s->tail, s->k);
            *s = run;
        }
    }
    for (uint32_t i = 0; i < GATHER; i++)
        if (g[i].sb)
            rp_hd_heap_give_chain(h, g[i].sb, g[i].head, g[i].tail, g[i].k);
    return list;
}

/* Sorts list into g (all slots empty) by superblock, without a lock: runs
 * as in give_owned; a run whose slot another superblock holds goes to the
 * returned list, for another round. */
static void *gather(gather_t *g, void *list)
{
    void *rest = NULL;
    while (list) {
        gather_t run = cut_run(&list, SIZE_MAX);
        gather_t *s = slot_of(g, run.sb);
        if (s->sb == run.sb) {
            slot_add(s, run);
        } else if (!s->sb) {
            *s = run;
        } else {
            *(void **)run.tail = rest;
            rest = run.head;
        }
    }
    return rest;
}

/* Gives back a list of blocks of any heaps' superblocks (an outbox, or
 * what a flush found that its heap no longer owns).  The list is sorted
 * by superblock first, with no lock held: walking it misses the cache on
 * nearly every block (they were freed long ago), and with the walk under
 * the owner's lock mstress's threads slept on each other's heap locks.
 * Then each owning heap is locked once and takes its superblocks' blocks
 * in one splice each. */
static void give_list(void *list)
{
    gather_t g[GATHER];
    while (list) {
        gather_clear(g);
        list = gather(g, list);
        for (uint32_t i = 0; i < GATHER; i++) {
            if (!g[i].sb)
                continue;
            rp_hd_heap_t *h = rp_hd_lock_owner(g[i].sb);
            for (uint32_t j = i; j < GATHER; j++) {
                if (g[j].sb && atomic_load_explicit(&g[j].sb->owner, memory_order_relaxed) == h) {
                    rp_hd_heap_give_chain(h, g[j].sb, g[j].head, g[j].tail, g[j].k);
                    g[j].sb = NULL;
                }
            }
            rp_hd_heap_balance(h);
            pthread_mutex_unlock(&h->lock);
        }
    }
}

/* Gives back the run (see rp_hd_bin_t) in O(1), without walking it, when
 * it holds at least the count - keep blocks to give and its superblock is
 * still h's; true when done.  h locked. */
static bool give_run(rp_hd_heap_t *h, rp_hd_bin_t *bin, uint32_t keep)
{
    rp_hd_sb_t *sb = bin->run_sb;
    if (!sb || sb == RP_HD_RUN_BROKEN || bin->count <= bin->run_base ||
        bin->count - bin->run_base < bin->count - keep ||
        atomic_load_explicit(&sb->owner, memory_order_relaxed) != h)
        return false;
    void *rest = *(void **)bin->run_first; /* give_chain relinks run_first */
    rp_hd_heap_give_chain(h, sb, bin->head, bin->run_first, bin->count - bin->run_base);
    bin->head = rest;
    bin->count = bin->run_base;
    bin->run_sb = NULL;
    return true;
}

/* Gives back at least the newest count - keep blocks: the whole run when
 * it covers them (frees come in runs: no walk), else exactly those, cut
 * off the head in the one walk that giving them back needs anyway. */
static void *flush_locked(rp_hd_heap_t *h, rp_hd_bin_t *bin, uint32_t keep)
{
    void *other = NULL;
    if (bin->count > keep && !give_run(h, bin, keep)) {
        bin->head = give_owned(h, bin->head, bin->count - keep, &other);
        bin->count = keep;
        bin->run_sb = NULL; /* the next free starts a run */
    }
    return other;
}

void rp_hd_tcache_flush_bin(rp_hd_tcache_t *tc, uint32_t cls, uint32_t keep)
{
    rp_hd_bin_t *bin = &tc->bin[cls];
    if (bin->count <= keep)
        return;
    rp_hd_heap_t *h = tc->heap;
    pthread_mutex_lock(&h->lock);
    void *other = flush_locked(h, bin, keep);
    rp_hd_heap_balance(h);
    pthread_mutex_unlock(&h->lock);
    if (other)
        give_list(other);
}

/* A bin that fills up is flushed to half its cap, and one that runs dry
 * is refilled to half, so under a random mix of mallocs and frees (a
 * server's, or mstress's) its count walks at random and reaches either end
 * about every (cap/2)^2 operations.  With the base caps (tcache_bytes per
 * class, but at least 2 blocks) the medium classes, 1 to 16 KiB, took a
 * lock nearly every time.  So a bin that overflows grows first, doubling,
 * out of a per-thread budget (tcache_grow bytes), and is flushed only when
 * the budget is spent or its cap is RP_HD_CAP_MAX (shbench 8-12% faster,
 * mstress 2-5%: see README).  Only a bin that both runs dry and overflows
 * grows, once per overflow after a refill: a thread filling its working
 * set underflows every class it touches, and growing then spent the
 * budget on classes that never overflow again; a thread that only frees
 * a class (a consumer) overflows it again and again, and growing then
 * kept what its heap's other threads were about to allocate (prodcons's
 * blowup reached 1.54 with a 2 MiB budget).  Caps never shrink: the
 * budget bounds what the thread can keep (hoard.h). */
void rp_hd_tcache_overflow(rp_hd_tcache_t *tc, uint32_t cls)
{
    rp_hd_bin_t *bin = &tc->bin[cls];
    bool dry = bin->dry;
    bin->dry = 0;
    if (dry && tc->grow_left && grow_cap(tc, bin, rp_hd_sc.size[cls]))
        return;
    rp_hd_tcache_flush_bin(tc, cls, bin->cap / 2);
}

/* Gives every block of the outbox back, one lock per owning heap. */
static void flush_outbox(rp_hd_tcache_t *tc)
{
    void *list = tc->outbox;
    tc->outbox = NULL;
    tc->outbox_bytes = 0;
    if (list)
        give_list(list);
}

void rp_hd_tcache_free_remote(rp_hd_tcache_t *tc, rp_hd_sb_t *sb, void *p)
{
    if (rp_hd_opt.outbox_bytes == 0) { /* rp_hd_nocache never comes here: free_slow */
        rp_hd_free_locked(sb, p);
        return;
    }
    *(void **)p = tc->outbox;
    tc->outbox = p;
    tc->outbox_bytes += sb->size;
    if (tc->outbox_bytes >= rp_hd_opt.outbox_bytes)
        flush_outbox(tc);
}

/* Empties a bin, its range too, for the thread's exit or a trim: one
 * round under the thread's heap's lock.  The range goes back whole to its
 * superblock (usually that superblock's last carve, so its bump pointer
 * just moves back and the never-used blocks, perhaps on pages never
 * touched, stay unwritten); when that superblock has left the heap since
 * the refill, to its owner now. */
static void flush_whole_bin(rp_hd_heap_t *h, rp_hd_bin_t *bin)
{
    rp_hd_sb_t *range_sb = bin->next < bin->end ? rp_hd_hdr(bin->next) : NULL;
    if (!range_sb && bin->count == 0)
        return;
    pthread_mutex_lock(&h->lock);
    if (range_sb && atomic_load_explicit(&range_sb->owner, memory_order_relaxed) == h) {
        rp_hd_heap_give_range(h, range_sb, bin->next, bin->end);
        range_sb = NULL;
    }
    void *other = flush_locked(h, bin, 0);
    rp_hd_heap_balance(h);
    pthread_mutex_unlock(&h->lock);
    if (range_sb)
        rp_hd_free_range(range_sb, bin->next, bin->end);
    bin->next = bin->end;
    if (other)
        give_list(other);
}

void rp_hd_tcache_flush_all(rp_hd_tcache_t *tc)
{
    for (uint32_t c = 0; c < rp_hd_sc.n; c++)
        flush_whole_bin(tc->heap, &tc->bin[c]);
    flush_outbox(tc);
}

void rp_hd_tcache_fork(int phase)
{
    rp_hd_lock_fork(&pool_lock, phase);
}
