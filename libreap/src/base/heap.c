/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * heap.c - Hoard's heaps: superblocks in fullness groups, the emptiness
 * invariant, and the global heap.
 *
 * Heaps 1..n serve threads (through their caches, tcache.c); heap 0 is the
 * global heap, which holds superblocks given up by the others and the empty
 * superblocks kept for reuse by any class.  A heap allocates from its
 * fullest superblock of the class, takes from the global heap when it has
 * none, and maps new superblocks only when the global heap has none either.
 * After frees, rp_hd_heap_balance() restores, for every size class c,
 *     u_c >= a_c - K*S  or  u_c >= (1 - f) * a_c
 * (u_c: bytes of class c handed out, a_c: bytes of the class's non-empty
 * superblocks) by moving superblocks at least f empty to the global heap,
 * and keeps at most K empty superblocks, which is what bounds blowup
 * (Hoard's theorem 1, per class), once the heap holds more than
 * heap_slack bytes it has not handed out (see rp_hd_heap_balance).
 * Beyond Hoard, the global heap gives empty superblocks back to the OS
 * (their pages; space.c keeps the addresses) once it holds more than
 * retain_bytes of them.
 * Every function here expects the named heap's lock to be held.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hoard.h"

rp_hd_heap_t *rp_hd_heaps;
uint32_t rp_hd_nheaps;

static inline size_t sb_bytes(void) { return rp_hd_opt.sb_size; }
static inline rp_hd_heap_t *global_heap(void) { return &rp_hd_heaps[0]; }

/* ---- lists ---------------------------------------------------------------- */

static rp_hd_sb_t **slot_of(rp_hd_heap_t *h, rp_hd_sb_t *sb)
{
    return sb->group == 0 ? &h->empty : &h->group[sb->cls][sb->group];
}

/* Lists sb where its use says: empty list or its fullness group, in front. */
static void file_sb(rp_hd_heap_t *h, rp_hd_sb_t *sb)
{
    if (sb->used == 0) {
        sb->group = 0;
        sb->empty_epoch = h->decay.epoch;
        h->nempty++;
    } else {
        sb->group = rp_hd_sb_group(sb);
        h->ca[sb->cls] += sb_bytes();
    }
    rp_hd_sb_list_push(slot_of(h, sb), sb);
}

static void unfile_sb(rp_hd_heap_t *h, rp_hd_sb_t *sb)
{
    rp_hd_sb_list_unlink(slot_of(h, sb), sb);
    if (sb->group == 0)
        h->nempty--;
    else
        h->ca[sb->cls] -= sb_bytes();
}

/* Counts n blocks of sb's class as handed out (n > 0) or back (n < 0). */
static void count_use(rp_hd_heap_t *h, const rp_hd_sb_t *sb, long n)
{
    size_t bytes = (size_t)(n < 0 ? -n : n) * sb->size;
    if (n < 0) {
        h->u -= bytes;
        h->cu[sb->cls] -= bytes;
    } else {
        h->u += bytes;
        h->cu[sb->cls] += bytes;
    }
}

/* ---- ownership ---------------------------------------------------------- */

static void adopt(rp_hd_heap_t *h, rp_hd_sb_t *sb)
{
    atomic_store_explicit(&sb->owner, h, memory_order_release);
    h->a += sb_bytes();
    h->nsb++;
    count_use(h, sb, sb->used);
    file_sb(h, sb);
}

static void drop(rp_hd_heap_t *h, rp_hd_sb_t *sb)
{
    unfile_sb(h, sb);
    h->a -= sb_bytes();
    h->nsb--;
    count_use(h, sb, -(long)sb->used);
}

rp_hd_heap_t *rp_hd_lock_owner(rp_hd_sb_t *sb)
{
    for (;;) {
        rp_hd_heap_t *h = atomic_load_explicit(&sb->owner, memory_order_acquire);
        pthread_mutex_lock(&h->lock);
        if (h == atomic_load_explicit(&sb->owner, memory_order_relaxed))
            return h;
        pthread_mutex_unlock(&h->lock);
    }
}

/* ---- the global heap ------------------------------------------------------ */

/* Return to the OS.  The global heap keeps retain_bytes of empty
 * superblocks (the most recently emptied ones) for reuse.  Beyond that, an
 * empty superblock goes back once it has stayed empty through a whole
 * decay period, so a program that frees and reallocates its working set
 * in a loop does not pay page faults every time, while a server's
 * footprint falls within about 2 * decay_ms after a peak (at the next
 * operation of the global heap, or the release thread's next period;
 * rp_hoard_trim() forces it).  Past retain_max bytes of empties nothing
 * waits for the decay: they go back at once, or, with the release thread
 * running, as soon as it wakes (release_excess_inline).  Global heap
 * locked. */

static void give_back_sb(rp_hd_heap_t *g, rp_hd_sb_t *sb)
{
    drop(g, sb);
    rp_hd_space_give(sb, sb_bytes());
}

/* Gives back the empties after the `keep' newest that pass the test. */
static void give_back_older(rp_hd_heap_t *g, size_t keep, bool all, uint32_t before)
{
    rp_hd_sb_t *sb = g->empty;
    for (size_t i = 0; sb && i < keep; i++)
        sb = sb->next;
    while (sb) {
        rp_hd_sb_t *next = sb->next;
        if (all || sb->empty_epoch < before)
            give_back_sb(g, sb);
        sb = next;
    }
}

static void release_excess(rp_hd_heap_t *g, bool force)
{
    size_t s = sb_bytes(), keep = rp_hd_opt.retain_bytes / s;
    if (g->nempty <= keep)
        return;
    if (force) {
        give_back_older(g, keep, true, 0);
        return;
    }
    if (g->nempty > rp_hd_opt.retain_max / s) {
        /* Over the cap: drop the newest at once.  Walking past the kept
         * ones instead cost a walk of the whole cap on every release. */
        while (g->nempty > rp_hd_opt.retain_max / s)
            give_back_sb(g, g->empty);
        return;
    }
    uint32_t stale;
    if (rp_hd_decay_tick(&g->decay, &stale))
        give_back_older(g, keep, false, stale); /* empty since before the last period began */
}

/* The release thread gives back what decays; without it the in-line
 * clocks and a thread's exit do. */
static bool release_thread_runs(void)
{
    return atomic_load_explicit(&rp_hd_bg.state, memory_order_relaxed) == RP_HD_BG_RUNNING;
}

/* The free path's share.  While the release thread runs, nothing goes
 * back from here: the thread runs the clock every period, and empties
 * past retain_max poke it at once (once, until it has given them back),
 * so a free that empties hundreds of superblocks is not held up by their
 * system calls and TLB flushes, jemalloc's choice with its background
 * thread.  Without the thread, the clock runs here.  Global heap locked. */
static void release_excess_inline(rp_hd_heap_t *g)
{
    if (!release_thread_runs()) {
        release_excess(g, false);
        return;
    }
    if (!g->cap_poked && g->nempty > rp_hd_opt.retain_max / sb_bytes()) {
        g->cap_poked = true;
        rp_hd_release_wake_slow();
    }
}

/* The thread's share of the cap (rp_hd_heap_decay): the newest empties
 * past retain_max go back in batches, the lock let go around each batch's
 * system calls so that the frees filling the heap meanwhile do not wait
 * for them.  Meanwhile the batch is in no heap and not yet in the space:
 * g->giving says so, and a fork waits until it is back to false
 * (rp_hd_heaps_lock_all), or the child would hold up to a batch of
 * superblocks (1 MiB by default) that nothing owns.  Global heap locked
 * on entry and on return. */
static void release_over_cap(rp_hd_heap_t *g)
{
    size_t s = sb_bytes(), cap = rp_hd_opt.retain_max / s;
    while (g->nempty > cap) {
        rp_hd_sb_t *batch = NULL;
        for (int i = 0; i < 16 && g->nempty > cap; i++) {
            rp_hd_sb_t *sb = g->empty;
            drop(g, sb);
            sb->next = batch;
            batch = sb;
        }
        g->giving = true;
        pthread_mutex_unlock(&g->lock);
        while (batch) {
            rp_hd_sb_t *next = batch->next;
            rp_hd_space_give(batch, s);
            batch = next;
        }
        pthread_mutex_lock(&g->lock);
        g->giving = false;
    }
    g->cap_poked = false;
}

/* Carves a batch of superblocks (fewer when the lowest free span is
 * shorter): returns one, files the rest as empty in the global heap
 * (locked).  Untouched pages of the batch cost no RSS. */
static rp_hd_sb_t *map_superblocks(rp_hd_heap_t *g)
{
    size_t s = sb_bytes(), got;
    char *p = rp_hd_space_take(rp_hd_opt.batch * s, s, &got);
    if (!p)
        return NULL;
    size_t n = got / s;
    for (size_t i = 1; i < n; i++) {
        rp_hd_sb_t *sb = (rp_hd_sb_t *)(p + i * s); /* zeroed: used == 0 */
        adopt(g, sb);
    }
    return (rp_hd_sb_t *)p;
}

/* A superblock for class cls moved from the global heap to h (both locks
 * held while the owner changes), or a new one; NULL when out of memory. */
static rp_hd_sb_t *fetch_global(rp_hd_heap_t *h, uint32_t cls)
{
    rp_hd_heap_t *g = global_heap();
    rp_hd_sb_t *sb = NULL;
    pthread_mutex_lock(&g->lock);
    for (int grp = RP_HD_FULL - 1; grp >= 1 && !sb; grp--)
        sb = g->group[cls][grp];
    if (!sb)
        sb = g->empty;
    if (sb) {
        drop(g, sb);
        h->from_global++;
    } else {
        sb = map_superblocks(g);
    }
    if (sb)
        atomic_store_explicit(&sb->owner, h, memory_order_release);
    pthread_mutex_unlock(&g->lock);
    return sb;
}

/* Moves sb from h to the global heap (h locked). */
static void transfer_out(rp_hd_heap_t *h, rp_hd_sb_t *sb)
{
    rp_hd_heap_t *g = global_heap();
    drop(h, sb);
    h->to_global++;
    pthread_mutex_lock(&g->lock);
    adopt(g, sb);
    if (sb->used == 0)
        release_excess_inline(g);
    pthread_mutex_unlock(&g->lock);
}

/* ---- allocation ------------------------------------------------------------ */

static rp_hd_sb_t *fullest(rp_hd_heap_t *h, uint32_t cls)
{
    for (int grp = RP_HD_FULL - 1; grp >= 1; grp--)
        if (h->group[cls][grp])
            return h->group[cls][grp];
    return NULL;
}

/* A superblock of h with a free block of class cls, or NULL (no memory). */
static rp_hd_sb_t *find_space(rp_hd_heap_t *h, uint32_t cls)
{
    rp_hd_sb_t *sb = fullest(h, cls);
    if (sb)
        return sb;
    if (h->empty && h != global_heap()) {
        sb = h->empty;
        unfile_sb(h, sb);
    } else {
        sb = fetch_global(h, cls);
        if (!sb)
            return NULL;
        h->a += sb_bytes();
        h->nsb++;
        count_use(h, sb, sb->used);
    }
    if (sb->used == 0 && (sb->magic != RP_HD_SB_MAGIC || sb->cls != cls))
        rp_hd_sb_format(sb, cls);
    file_sb(h, sb);
    return sb;
}

/* Blocks never handed out from sb (its bump space). */
static size_t unbumped(const rp_hd_sb_t *sb) { return (size_t)(sb->end - sb->bump) / sb->size; }

/* An operation of h (locked), for the release thread: counted, and the
 * thread woken if it sleeps (release.c). */
static void note_op(rp_hd_heap_t *h)
{
    atomic_store_explicit(&h->ops, atomic_load_explicit(&h->ops, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    rp_hd_release_wake();
}

/* Counts k blocks just taken from sb (unfiled) and files it again. */
static void took(rp_hd_heap_t *h, rp_hd_sb_t *sb, size_t k)
{
    note_op(h);
    sb->used += (uint32_t)k;
    RP_ASSERT(sb->used <= sb->nblocks && sb->bump <= sb->end);
    count_use(h, sb, (long)k);
    file_sb(h, sb);
}

/* Up to n of sb's parked blocks, linked on at *link (which moves to the
 * last one's link): their pages fault in again as the links are written,
 * as they would when the program writes them. */
static size_t unpark(rp_hd_sb_t *sb, size_t n, void ***link)
{
    uint32_t parked = atomic_load_explicit(&sb->parked, memory_order_relaxed);
    char *base = rp_hd_sb_blocks(sb);
    size_t got = 0;
    for (; got < n && parked; got++) {
        char *b = base + (size_t)__builtin_ctz(parked) * sb->size;
        parked &= parked - 1;
        **link = b;
        *link = (void **)b;
    }
    atomic_store_explicit(&sb->parked, parked, memory_order_relaxed);
    if (!parked)
        rp_hd_sb_set_divc(sb); /* frees may take the fast path again */
    return got;
}

size_t rp_hd_heap_take_chain(rp_hd_heap_t *h, uint32_t cls, size_t n, size_t whole_max, void **chain)
{
    void *first = NULL, **link = &first;
    size_t got = 0;
    while (got < n) {
        rp_hd_sb_t *sb = find_space(h, cls);
        if (!sb)
            break;
        unfile_sb(h, sb);
        size_t before = got;
        void *p = sb->free;
        if (p && got == 0) {
            size_t nfree = sb->nblocks - sb->used - unbumped(sb) - rp_hd_sb_nparked(sb);
            if (nfree <= whole_max) { /* the whole list, NULL-ended: no walk */
                sb->free = NULL;
                took(h, sb, nfree);
                *chain = p;
                return nfree;
            }
        }
        if (p) { /* splice a prefix of the free list: no link rewritten */
            *link = p;
            for (got++; got < n && *(void **)p; got++)
                p = *(void **)p;
            sb->free = *(void **)p;
            link = (void **)p;
        }
        char *bump = sb->bump;
        for (; got < n && bump < sb->end; got++) {
            *link = bump;
            link = (void **)bump;
            bump += sb->size;
        }
        rp_hd_sb_set_bump(sb, bump);
        if (got < n && atomic_load_explicit(&sb->parked, memory_order_relaxed))
            got += unpark(sb, n - got, &link);
        took(h, sb, got - before);
    }
    *link = NULL;
    *chain = first;
    return got;
}

size_t rp_hd_heap_take_range(rp_hd_heap_t *h, uint32_t cls, size_t n, char **start)
{
    rp_hd_sb_t *sb = find_space(h, cls);
    if (!sb || sb->free || sb->bump >= sb->end)
        return 0;
    size_t room = unbumped(sb);
    size_t k = n < room ? n : room;
    unfile_sb(h, sb);
    *start = sb->bump;
    rp_hd_sb_set_bump(sb, sb->bump + k * sb->size);
    took(h, sb, k);
    return k;
}

/* ---- free ------------------------------------------------------------------ */

/* Counts n blocks of sb (unfiled) as given back and files it again. */
static void gave(rp_hd_heap_t *h, rp_hd_sb_t *sb, uint32_t n)
{
    RP_ASSERT(n <= sb->used);
    note_op(h);
    sb->used -= n;
    count_use(h, sb, -(long)n);
    h->dirty |= (uint64_t)1 << sb->cls;
    if (sb->used == 0) /* forget the scattered free list: bump from the start again */
        rp_hd_sb_reset(sb);
    file_sb(h, sb); /* to the front of its group: Hoard's move-to-front */
    if (sb->used == 0 && h == global_heap())
        release_excess_inline(h);
}

void rp_hd_heap_give_chain(rp_hd_heap_t *h, rp_hd_sb_t *sb, void *head, void *tail, uint32_t n)
{
    unfile_sb(h, sb);
    *(void **)tail = sb->free;
    sb->free = head;
    gave(h, sb, n);
}

void rp_hd_heap_give_range(rp_hd_heap_t *h, rp_hd_sb_t *sb, char *start, char *end)
{
    uint32_t n = (uint32_t)((size_t)(end - start) / sb->size);
    if (n == 0)
        return;
    unfile_sb(h, sb);
    if (sb->bump == end) { /* the superblock's last carve: bump back over it */
        rp_hd_sb_set_bump(sb, start);
    } else {
        char *last = end - sb->size;
        for (char *p = start; p < last; p += sb->size)
            *(void **)p = p + sb->size;
        *(void **)last = sb->free;
        sb->free = start;
    }
    gave(h, sb, n);
}

/* A superblock of class c at least f empty, emptiest groups first; NULL
 * if none. */
static rp_hd_sb_t *victim(rp_hd_heap_t *h, uint32_t c)
{
    for (int grp = 1; grp < RP_HD_FULL; grp++)
        for (rp_hd_sb_t *sb = h->group[c][grp]; sb; sb = sb->next)
            if ((size_t)(sb->nblocks - sb->used) * 100 >= rp_hd_opt.empty_pct * sb->nblocks)
                return sb;
    return NULL;
}

/* Hoard's emptiness threshold, crossed: u < a - K*S and u < (1 - f) * a. */
static bool too_empty(size_t u, size_t a)
{
    size_t slack = rp_hd_opt.k_slack * sb_bytes();
    return a > slack && u < a - slack && u * 100 < (100 - rp_hd_opt.empty_pct) * a;
}

/* Bytes of h's superblocks not handed out (free blocks and empties) above
 * what the heap may keep whatever its classes: heap_slack. */
static bool over_slack(const rp_hd_heap_t *h) { return h->a - h->u > rp_hd_opt.heap_slack; }

/* Empties beyond K unused through a whole decay period (the list is LIFO
 * and the newest are reused first) go to the global heap, and from there
 * back to the OS, at the heap's next balance: a heap whose traffic falls
 * after a peak sheds them.  A heap whose threads stopped freeing (they
 * went idle or exited) is swept by the others (shed_idle_heaps); only in
 * a process where no thread frees at all do they stay until
 * rp_hoard_trim(). */
static void shed_stale_empties(rp_hd_heap_t *h)
{
    uint32_t stale;
    if (h->nempty <= rp_hd_opt.k_slack || !rp_hd_decay_tick(&h->decay, &stale))
        return;
    for (rp_hd_sb_t *sb = h->empty, *next; sb && h->nempty > rp_hd_opt.k_slack; sb = next) {
        next = sb->next;
        if (sb->empty_epoch < stale)
            transfer_out(h, sb);
    }
}

/* Every SWEEP_EVERY-th balance of a heap also sheds the stale empties of
 * the other heaps it can lock without waiting (h locked), then lets the
 * global heap's clock run, so that empties it got and nobody fetched go
 * back to the OS too (release_excess runs otherwise only when the global
 * heap is used).  trylock keeps the lock order: this thread waits for no
 * heap while it holds one; the global heap comes last.  An idle heap's
 * empties go within two sweeps a decay period apart (the first sweep
 * may end the period they were stamped in), and from the global heap
 * beyond retain_bytes within two more. */
#define SWEEP_EVERY 64

static void shed_idle_heaps(rp_hd_heap_t *h)
{
    for (uint32_t i = 1; i <= rp_hd_nheaps; i++) {
        rp_hd_heap_t *o = &rp_hd_heaps[i];
        if (o != h && pthread_mutex_trylock(&o->lock) == 0) {
            shed_stale_empties(o);
            pthread_mutex_unlock(&o->lock);
        }
    }
    rp_hd_heap_t *g = global_heap();
    pthread_mutex_lock(&g->lock);
    release_excess_inline(g);
    pthread_mutex_unlock(&g->lock);
}

/* Hoard states the invariant per size class (its theorem holds class by
 * class), and so do we: a heap with a few blocks in each of many classes
 * keeps one partly used superblock per class instead of shuttling them to
 * the global heap.  Empty superblocks belong to no class: a heap keeps K.
 *
 * Both apply only while the heap holds more than heap_slack bytes it has
 * not handed out, which adds H * heap_slack to the bound and nothing per
 * class.  Without that slack a thread that frees its working set and
 * builds it again sends its superblocks to the global heap and fetches
 * them straight back (threadtest at 2 threads: about 48 each way per
 * iteration), and two threads sharing a heap leave superblocks partly
 * used that the invariant then moves (at 8 threads, 7-8 victims 20% used
 * per thread and iteration, whose cached blocks then go back through the
 * outbox).  So, after every balance: a - u <= heap_slack, or the invariant
 * holds for every class and nempty <= K. */
void rp_hd_heap_balance(rp_hd_heap_t *h)
{
    RP_ASSERT(rp_hd_heap_check(h)); /* the full walk: debug builds only */
    if (h == global_heap())
        return;
    shed_stale_empties(h);
    if (++h->balances % SWEEP_EVERY == 0)
        shed_idle_heaps(h);
    while (h->nempty > rp_hd_opt.k_slack && over_slack(h))
        transfer_out(h, h->empty);
    RP_ASSERT(h->nempty <= rp_hd_opt.k_slack || !over_slack(h));
    /* A class leaves the dirty set only once it keeps the invariant (or
     * has no victim): under the slack it stays dirty, so that the balance
     * after the heap next crosses the slack still looks at it. */
    while (h->dirty) {
        uint32_t c = (uint32_t)__builtin_ctzll(h->dirty);
        while (too_empty(h->cu[c], h->ca[c])) {
            if (!over_slack(h))
                return;
            rp_hd_sb_t *sb = victim(h, c);
            if (!sb)
                break;
            transfer_out(h, sb);
        }
        h->dirty &= h->dirty - 1;
    }
}


/* ---- trim: pages of free blocks back to the OS, in place ------------------------- */

#define PURGE_MAX_PAGES 256 /* S / page; larger superblocks are not purged in place */

/* Marks the pages that bytes [from, to) of sb touch as ones to keep. */
static void keep_pages(uint64_t *keep, const rp_hd_sb_t *sb, const char *from, const char *to,
                       size_t page)
{
    size_t first = (size_t)(from - (const char *)sb) / page;
    size_t last = (size_t)(to - 1 - (const char *)sb) / page;
    for (size_t i = first; i <= last; i++)
        keep[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Moves every block of sb's free list to its parked bitmap
 * (hoard.h, RP_HD_PARK_MAX). */
static void park_free_blocks(rp_hd_sb_t *sb)
{
    uint32_t parked = atomic_load_explicit(&sb->parked, memory_order_relaxed);
    for (void *p = sb->free; p; p = *(void **)p)
        parked |= (uint32_t)1 << rp_hd_sb_index(sb, p);
    sb->free = NULL;
    atomic_store_explicit(&sb->parked, parked, memory_order_relaxed);
    rp_hd_sb_set_divc(sb); /* before the pages and their keys go */
}

/* Gives back to the OS every page of sb that holds nothing anyone reads:
 * no byte of a block that is out (with the program, a thread cache or an
 * outbox), of the header, or of a free block's first two words (its link
 * and the key that catches double frees).  Pages past the bump pointer,
 * the inside of free blocks and the whole of parked ones go, whatever
 * they held; the addresses stay, and the next use of a page faults in a
 * zeroed one.  The owner's lock is held, so no block changes hands
 * meanwhile. */
static void purge_free_pages(rp_hd_sb_t *sb)
{
    size_t page = rp_hd_os_page(), npages = sb_bytes() / page;
    if (npages > PURGE_MAX_PAGES || sb->used == sb->nblocks)
        return;
    if (sb->nblocks <= RP_HD_PARK_MAX && sb->free)
        park_free_blocks(sb);
    uint64_t keep[PURGE_MAX_PAGES / 64] = {0};
    uint64_t isfree[RP_HD_MAX_SB / 16 / 64] = {0}; /* one bit per block */
    char *base = rp_hd_sb_blocks(sb);
    uint32_t nfree = 0;
    for (void *p = sb->free; p && nfree < sb->nblocks; p = *(void **)p, nfree++) {
        size_t i = rp_hd_sb_index(sb, p);
        isfree[i / 64] |= (uint64_t)1 << (i % 64);
    }
    keep_pages(keep, sb, (char *)sb, base, page);
    size_t nbumped = (size_t)(sb->bump - base) / sb->size;
    uint32_t parked = atomic_load_explicit(&sb->parked, memory_order_relaxed); /* they keep nothing */
    for (size_t i = 0; i < nbumped; i++) {
        char *b = base + i * sb->size;
        if (i < RP_HD_PARK_MAX && (parked >> i & 1))
            continue;
        bool f = isfree[i / 64] >> (i % 64) & 1;
        keep_pages(keep, sb, b, b + (f ? 2 * sizeof(void *) : sb->size), page);
    }
    for (size_t i = 0; i < npages;) {
        if (keep[i / 64] >> (i % 64) & 1) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < npages && !(keep[j / 64] >> (j % 64) & 1))
            j++;
        rp_hd_os_purge_in_place((char *)sb + i * page, (j - i) * page);
        i = j;
    }
}

/* purge_free_pages on every superblock of h (locked) with a free byte. */
static void purge_heap(rp_hd_heap_t *h)
{
    for (uint32_t c = 0; c < rp_hd_sc.n; c++)
        for (uint32_t g = 1; g < RP_HD_FULL; g++)
            for (rp_hd_sb_t *sb = h->group[c][g]; sb; sb = sb->next)
                purge_free_pages(sb);
    for (rp_hd_sb_t *sb = h->empty; sb; sb = sb->next)
        purge_free_pages(sb);
}

/* h's empty superblocks to the global heap; with purge, the pages of its
 * other superblocks that hold nothing go back too. */
static void shed_empties(rp_hd_heap_t *h, bool purge)
{
    pthread_mutex_lock(&h->lock);
    while (h->empty)
        transfer_out(h, h->empty);
    if (purge)
        purge_heap(h);
    pthread_mutex_unlock(&h->lock);
}

/* The global heap keeps retain_bytes of its empties, decay or not, and
 * gives back the rest; the pages of what it keeps go back in place (the
 * addresses stay for reuse), and with all, those of its other
 * superblocks too. */
static void global_give_back(bool all)
{
    rp_hd_heap_t *g = global_heap();
    pthread_mutex_lock(&g->lock);
    release_excess(g, true);
    if (all)
        purge_heap(g);
    else
        for (rp_hd_sb_t *sb = g->empty; sb; sb = sb->next)
            purge_free_pages(sb);
    pthread_mutex_unlock(&g->lock);
}

/* The last thread bound to h has gone: its empties go to the global heap,
 * where the next thread of any heap finds them.  A program whose threads
 * have finished should not keep their peak: while the release thread
 * runs, its decay and idle trim give it back, as they do any other
 * empties (the frees that emptied them were operations, so the thread is
 * not asleep: the idle trim is due after them).  Without it no clock
 * would run again, so all but retain_bytes go back now, the kept ones'
 * pages too, and the large cache with them.  Doing that while the
 * thread ran purged the global heap's kept empties at every thread exit,
 * and the next thread faulted them in again: mstress at 2 threads, where
 * threads come and go, took 37,000 page faults against mimalloc's 3,600. */
void rp_hd_heap_orphaned(rp_hd_heap_t *h)
{
    shed_empties(h, false);
    if (release_thread_runs())
        return;
    global_give_back(false);
    rp_hd_large_trim();
}

void rp_hd_heap_trim(void)
{
    for (uint32_t i = 1; i <= rp_hd_nheaps; i++)
        shed_empties(&rp_hd_heaps[i], true);
    global_give_back(true);
}

bool rp_hd_heap_decay(void)
{
    bool pending = false;
    for (uint32_t i = 1; i <= rp_hd_nheaps; i++) {
        rp_hd_heap_t *h = &rp_hd_heaps[i];
        pthread_mutex_lock(&h->lock);
        shed_stale_empties(h);
        pending |= h->nempty > rp_hd_opt.k_slack;
        pthread_mutex_unlock(&h->lock);
    }
    rp_hd_heap_t *g = global_heap();
    pthread_mutex_lock(&g->lock);
    release_over_cap(g);
    release_excess(g, false);
    pending |= g->nempty > rp_hd_opt.retain_bytes / sb_bytes();
    pthread_mutex_unlock(&g->lock);
    return pending;
}

void rp_hd_free_range(rp_hd_sb_t *sb, char *start, char *end)
{
    rp_hd_heap_t *h = rp_hd_lock_owner(sb);
    rp_hd_heap_give_range(h, sb, start, end);
    rp_hd_heap_balance(h);
    pthread_mutex_unlock(&h->lock);
}

void rp_hd_free_locked(rp_hd_sb_t *sb, void *p)
{
    rp_hd_free_range(sb, p, (char *)p + sb->size);
}

/* ---- invariant walker (tests, and every balance under --enable-debug) ---- */

/* Free blocks of sb: its free list (bounded walk) plus the bump space. */
static bool sb_consistent(const rp_hd_sb_t *sb)
{
    uint32_t nfree = 0;
    for (void *p = sb->free; p; p = *(void **)p) {
        if (++nfree > sb->nblocks || rp_hd_hdr(p) != sb)
            return false;
    }
    return sb->used + nfree + unbumped(sb) + rp_hd_sb_nparked(sb) == sb->nblocks;
}

static bool list_ok(const rp_hd_heap_t *h, const rp_hd_sb_t *head, int grp, size_t *cu, size_t *ca,
                    size_t *nsb)
{
    const rp_hd_sb_t *prev = NULL;
    for (const rp_hd_sb_t *sb = head; sb; prev = sb, sb = sb->next) {
        if (sb->prev != prev || atomic_load(&sb->owner) != h || sb->group != grp)
            return false;
        if (grp == 0 ? sb->used != 0
                     : (sb->magic != RP_HD_SB_MAGIC || rp_hd_sb_group(sb) != grp || !sb_consistent(sb)))
            return false;
        if (grp != 0) {
            cu[sb->cls] += (size_t)sb->used * sb->size;
            ca[sb->cls] += sb_bytes();
        }
        (*nsb)++;
    }
    return true;
}

bool rp_hd_heap_check(const rp_hd_heap_t *h)
{
    size_t cu[RP_HD_MAX_CLASSES] = {0}, ca[RP_HD_MAX_CLASSES] = {0}, nsb = 0, u = 0;
    if (!list_ok(h, h->empty, 0, cu, ca, &nsb) || nsb != h->nempty)
        return false;
    for (uint32_t c = 0; c < rp_hd_sc.n; c++) {
        for (int grp = 1; grp <= RP_HD_FULL; grp++) {
            if (h->group[c][grp] && h->group[c][grp]->cls != c)
                return false;
            if (!list_ok(h, h->group[c][grp], grp, cu, ca, &nsb))
                return false;
        }
        if (cu[c] != h->cu[c] || ca[c] != h->ca[c])
            return false;
        u += cu[c];
    }
    return nsb == h->nsb && h->a == nsb * sb_bytes() && u == h->u;
}

/* ---- setup and fork -------------------------------------------------------- */

static uint32_t default_heaps(void)
{
    cpu_set_t set;
    int cpus = 1;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = CPU_COUNT(&set);
    uint32_t n = 4;
    while (n < 2u * (uint32_t)cpus && n < RP_HD_MAX_HEAPS)
        n *= 2;
    return n;
}

void rp_hd_heaps_init(void)
{
    rp_hd_nheaps = rp_hd_opt.heaps ? (uint32_t)rp_hd_opt.heaps : default_heaps();
    size_t bytes = (rp_hd_nheaps + 1) * sizeof(rp_hd_heap_t);
    size_t page = rp_hd_os_page();
    bytes = (bytes + page - 1) & ~(page - 1);
    rp_hd_heaps = rp_hd_os_map(bytes, page); /* zeroed */
    if (!rp_hd_heaps) {
        static const char msg[] = "reap: cannot map the allocator's heaps\n";
        (void)!write(2, msg, sizeof msg - 1);
        abort();
    }
    for (uint32_t i = 0; i <= rp_hd_nheaps; i++) {
        rp_hd_lock_init(&rp_hd_heaps[i].lock);
        rp_hd_heaps[i].index = i;
    }
}

void rp_hd_heaps_lock_all(void)
{
    for (uint32_t i = 1; i <= rp_hd_nheaps; i++)
        pthread_mutex_lock(&rp_hd_heaps[i].lock);
    rp_hd_heap_t *g = &rp_hd_heaps[0];
    pthread_mutex_lock(&g->lock);
    /* a batch the release thread is giving back would be no one's in a
     * child: let it finish (it needs no lock held here but g's) */
    while (g->giving) {
        pthread_mutex_unlock(&g->lock);
        sched_yield();
        pthread_mutex_lock(&g->lock);
    }
}

void rp_hd_heaps_unlock_all(bool reinit)
{
    for (uint32_t i = 0; i <= rp_hd_nheaps; i++) {
        if (reinit)
            rp_hd_lock_init(&rp_hd_heaps[i].lock);
        else
            pthread_mutex_unlock(&rp_hd_heaps[i].lock);
    }
}
