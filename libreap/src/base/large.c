/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * large.c - objects above S/2: a piece of address space each, plus a
 * small cache.
 *
 * A large object's mapping carries the same header as a superblock (magic
 * RP_HD_LARGE_MAGIC) at an S-aligned address, so rp_hd_hdr() finds it from
 * any pointer into the object's first S bytes, like a superblock's.  With
 * alignment up to a page the header has the mapping's first page to itself
 * and the object follows at +page, so a request of whole pages fits
 * exactly; such an object is carved from the address space superblocks
 * come from (space.c), in whole superblocks (the rounding is never
 * touched), and given back there.  With alignment A above a page the
 * object starts at +A (A <= S) or the header sits S bytes before an
 * A-aligned object (A > S), in a mapping of its own, aligned loosely
 * (rp_hd_os_map_loose): the untouched pages before and after the aligned
 * part stay mapped until the object is unmapped.
 *
 * Reaps ask for the same chunk sizes again and again, and programs often
 * free and reallocate buffers of one size, so freed default-aligned
 * mappings are kept (up to large_cache bytes, or as many as the other live
 * large objects take when that is more: cache_limit; best fit, see cache_take)
 * instead of being given back at once; the rest go straight back to the
 * OS.  Like the global heap's empty superblocks, a cached mapping that
 * stays unused through some decay periods (decay_periods) goes back at the
 * next large operation or the release thread's tick, so the cache holds what the program recycles now, not the
 * most it ever freed (a server's footprint falls after a peak).  A cached
 * mapping's header says RP_HD_CACHED_MAGIC, so freeing its object again
 * is reported as a double free instead of caching it twice.  The address
 * map (addrmap.c) leads every granule of a live or cached object back to
 * its header.
 */
#define _GNU_SOURCE /* PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP */
#include <pthread.h>
#include <string.h>

#include "../util/annotate.h"
#include "hoard.h"

#define CACHE_MAX 128

/* The cache is an array in the library's data, not a list linked through
 * the cached mappings' headers (a lookup would chase up to 128 cold
 * header lines), sorted by size: a lookup is a binary search for the
 * smallest entry that fits.  Scanning all of them for the best fit took
 * 4% of mstress's time at 2 threads, nearly all of it in the loop's
 * unpredictable branches. */
typedef struct cached {
    size_t usable;    /* h->usable, copied so the search touches no header */
    rp_hd_sb_t *h;    /* also the mapping's start (only carved ones are cached) */
    size_t len;       /* h->map_len, copied so finding a neighbour touches none */
    uint32_t epoch;   /* decay period it was cached in */
} cached_t;

static pthread_mutex_t large_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP; /* see rp_hd_lock_init */
static cached_t cache[CACHE_MAX]; /* [0, cache_n): freed mappings, by ascending usable */
static uint32_t cache_n;    /* <= CACHE_MAX */
static rp_hd_decay_t decay;  /* stamps the entries; large_lock */

/* Bytes of a mapping that can have been touched: header to object end
 * (its loose ragged ends never are). */
static size_t span(const rp_hd_sb_t *h) { return (size_t)(h->end - (const char *)h); }

/* The statistics, kept without a read-modify-write of a line other threads
 * share on every large malloc and free: one served by the cache changes
 * only the cache's two sums (stored under large_lock, read without it by
 * rp_hoard_get_stats); large_mapped changes with mmap and munmap. */
static _Atomic size_t cache_bytes;    /* sum of the entries' span() <= rp_hd_opt.large_cache */
static _Atomic size_t cache_maplen;   /* sum of their map_len */
static _Atomic uint64_t large_mapped; /* map_len of every large mapping, live or cached */
static _Atomic uint64_t large_ops;    /* allocations and frees (the release thread's activity) */

/* A large allocation or free: counted, and the release thread woken if it
 * sleeps (the seq_cst add orders the count before the flag's load). */
static void note_op(void)
{
    atomic_fetch_add_explicit(&large_ops, 1, memory_order_seq_cst);
    rp_hd_release_wake();
}

uint64_t rp_hd_large_ops(void) { return atomic_load_explicit(&large_ops, memory_order_seq_cst); }

/* Counts h into the cache (in) or out of it.  large_lock held. */
static void cache_count(const rp_hd_sb_t *h, bool in)
{
    size_t b = atomic_load_explicit(&cache_bytes, memory_order_relaxed);
    size_t m = atomic_load_explicit(&cache_maplen, memory_order_relaxed);
    atomic_store_explicit(&cache_bytes, in ? b + span(h) : b - span(h), memory_order_relaxed);
    atomic_store_explicit(&cache_maplen, in ? m + h->map_len : m - h->map_len, memory_order_relaxed);
}

uint64_t rp_hd_large_cached(void) { return atomic_load_explicit(&cache_bytes, memory_order_relaxed); }

uint64_t rp_hd_large_in_use(void)
{
    uint64_t cached = atomic_load_explicit(&cache_maplen, memory_order_relaxed);
    uint64_t mapped = atomic_load_explicit(&large_mapped, memory_order_relaxed);
    return mapped > cached ? mapped - cached : 0;
}

/* Takes entry i out of the cache, keeping the counts; returns its mapping.
 * large_lock held. */
static rp_hd_sb_t *cache_remove(uint32_t i)
{
    rp_hd_sb_t *h = cache[i].h;
    memmove(&cache[i], &cache[i + 1], (cache_n - i - 1) * sizeof cache[0]);
    cache_n--;
    cache_count(h, false);
    return h;
}

/* The index of the first entry of at least `size' usable bytes (cache_n
 * if none).  large_lock held. */
static uint32_t cache_find(size_t size)
{
    uint32_t lo = 0, hi = cache_n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cache[mid].usable < size)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Decay periods a cached mapping stays unused before it goes back: four
 * (200-250 ms by default), where an empty superblock waits one.  A
 * program recycles its large objects far less often than its small ones:
 * malloc-large allocates one every 3 ms, so a mapping of a size the next
 * few requests did not ask for went back within 50-100 ms and the request
 * that wanted it faulted a new one in (1.3 M page faults against 0.8 M
 * with four periods).  When the program goes quiet, the release thread's
 * trim (REAP_IDLE_MS) gives back all of the cache anyway.  With
 * REAP_DECAY_MS=0 nothing waits. */
static uint32_t decay_periods(void) { return rp_hd_opt.decay_ms ? 4 : 1; }

/* Starts a new decay period when the current one is over and moves the
 * entries unused through decay_periods() whole periods to out[]; returns
 * how many.  large_lock held. */
static uint32_t cache_expire(rp_hd_sb_t **out)
{
    uint32_t stale, n = 0;
    if (!rp_hd_decay_tick(&decay, &stale))
        return 0;
    uint32_t kept = 0, periods = decay_periods();
    for (uint32_t i = 0; i < cache_n; i++) { /* one pass, keeping the order */
        if (cache[i].epoch + periods <= stale) {
            out[n++] = cache[i].h;
            cache_count(cache[i].h, false);
        } else {
            cache[kept++] = cache[i];
        }
    }
    cache_n = kept;
    return n;
}

/* Default-aligned objects start one page into their mapping, so that a
 * request of a multiple of the page size (reap chunks) is met exactly. */
static size_t default_off(void) { return rp_hd_os_page(); }

/* Default-aligned objects are carved from the address space (space.c) in
 * whole superblocks; over-aligned ones are mapped on their own. */
static bool is_carved(const rp_hd_sb_t *h) { return h->end - h->usable == (const char *)h + default_off(); }

/* Gives back mappings taken out of the cache, or not kept (no lock held). */
static void give_back_all(rp_hd_sb_t **list, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        rp_hd_sb_t *h = list[i];
        bool carved = is_carved(h);
        char *base = h->map_base;
        size_t len = h->map_len;
        h->magic = 0;
        atomic_fetch_sub_explicit(&large_mapped, len, memory_order_relaxed);
        if (carved) {
            rp_hd_map_large(h, h->end, false);
            rp_hd_space_give(base, len);
        } else {
            rp_hd_map_set(base, len, 0);
            rp_hd_os_unmap(base, len);
        }
    }
}

static size_t page_up(size_t n)
{
    size_t page = rp_hd_os_page();
    return (n + page - 1) & ~(page - 1);
}

size_t rp_hd_large_usable(size_t size) { return page_up(size); }

/* A cached mapping serves any request it fits (best fit: the smallest
 * that is big enough).  Above 1.5x the request it is split: the object
 * keeps its request's whole superblocks, and the rest becomes a cached
 * mapping of its own, its pages still resident for the next request that
 * fits it (or, past the cache's limit, goes back to the OS).  Freed
 * neighbours in the cache are joined again (cache_put), so pieces do not
 * stay pieces.  Reuse within 1.5x only missed most of the time when a
 * program's large objects vary in size (mimalloc-bench's malloc-large:
 * 5-25 MiB), and every miss faulted a whole new object in page by page;
 * purging the rest in place instead of splitting it still faulted it in
 * again for the next, larger request.  The pages of the object's last
 * superblock past its request are purged: a live object holds at most
 * half its size again resident, and at most a superblock and a page more
 * address space, than it asked for. */
#define PURGE_ABOVE(size) ((size) + (size) / 2)

/* Files h in the cache, in order of usable size.  large_lock held, room
 * checked. */
static void cache_insert(rp_hd_sb_t *h)
{
    uint32_t i = cache_find(h->usable);
    memmove(&cache[i + 1], &cache[i], (cache_n - i) * sizeof cache[0]);
    cache[i] = (cached_t){h->usable, h, h->map_len, decay.epoch};
    h->magic = RP_HD_CACHED_MAGIC; /* freeing it again is a double free */
    cache_n++;
    cache_count(h, true);
}

/* What the cache may hold: large_cache, or as many bytes as the other
 * live large objects take when that is more.  A program that keeps many
 * large buffers and replaces them (mimalloc-bench's malloc-large: 20 of
 * 5-25 MiB) frees them faster than a fixed few tens of MiB can keep, and
 * each one it could not keep was faulted in page by page again.  Half the
 * live bytes was still too little there: 485,000 page faults against
 * 136,000 with the whole live size (1.2 s of system time against 0.4),
 * and the peak RSS fell from 559 to 525 MB.
 * Giving back the oldest entries to make room instead of the one freed
 * did not help (440,000-495,000).  The decay gives back whatever goes
 * unused for a few periods, so a larger cache costs memory only while it
 * is being reused: at most the live large bytes again, for 200-250 ms. */
static size_t cache_limit(const rp_hd_sb_t *freed)
{
    uint64_t live = rp_hd_large_in_use(), mine = freed->map_len;
    uint64_t others = live > mine ? live - mine : 0;
    return others > rp_hd_opt.large_cache ? (size_t)others : rp_hd_opt.large_cache;
}

/* Whether the cache has room for h, counted in the live bytes until now
 * (cache_limit).  large_lock held. */
static bool cache_room(const rp_hd_sb_t *h)
{
    return cache_n < CACHE_MAX && rp_hd_large_cached() + span(h) <= cache_limit(h);
}

/* A carved mapping of len bytes at h, free, with its header written and
 * its granules from `from' on (the ones it did not lead to before) led
 * to it. */
static rp_hd_sb_t *free_mapping(char *h, size_t len, const char *from)
{
    rp_hd_sb_t *t = (rp_hd_sb_t *)h;
    /* a split puts the header page where an object was, which ASan and
     * Valgrind builds closed when it was freed (rp_base_free) */
    rp_ann_metadata(h, default_off());
    atomic_store_explicit(&t->owner, NULL, memory_order_relaxed);
    t->map_base = h;
    t->map_len = len;
    t->end = h + len;
    t->usable = len - default_off();
    rp_hd_map_large_from(t, from, t->end);
    return t;
}

/* Cuts the cached mapping h, just taken for an object of size bytes, to
 * that object's superblocks, and returns the rest (NULL if none), filed
 * in the cache when there is room (*rest_kept).  large_lock held. */
static rp_hd_sb_t *split(rp_hd_sb_t *h, size_t size, bool *rest_kept)
{
    size_t s = rp_hd_opt.sb_size, keep = (default_off() + page_up(size) + s - 1) & ~(s - 1);
    rp_hd_sb_t *rest = NULL;
    *rest_kept = false;
    if (keep < h->map_len) {
        rest = free_mapping((char *)h + keep, h->map_len - keep, (char *)h + keep);
        h->map_len = keep;
        if ((*rest_kept = cache_room(rest)))
            cache_insert(rest);
    }
    h->end = (char *)h + default_off() + page_up(size);
    h->usable = page_up(size);
    return rest;
}

/* Best cached mapping for size (default alignment), removed; or NULL. */
static rp_hd_sb_t *cache_take(size_t size)
{
    rp_hd_sb_t *best = NULL, *rest = NULL, *expired[CACHE_MAX];
    char *old_end = NULL;
    bool rest_kept = false;
    pthread_mutex_lock(&large_lock);
    uint32_t nexp = cache_expire(expired);
    uint32_t i = cache_find(size);
    if (i < cache_n) {
        best = cache_remove(i);
        best->magic = RP_HD_LARGE_MAGIC;
        old_end = best->end;
        if (best->usable > PURGE_ABOVE(size))
            rest = split(best, size, &rest_kept);
    }
    pthread_mutex_unlock(&large_lock);
    give_back_all(expired, nexp);
    if (rest && !rest_kept)
        give_back_all(&rest, 1);
    if (best) { /* the object's own pages past its request; the rest's stay */
        char *cut = (char *)best + best->map_len;
        if (cut > old_end)
            cut = old_end;
        if (cut > best->end)
            rp_hd_os_purge_in_place(best->end, (size_t)(cut - best->end));
    }
    return best;
}


/* Joins the freed mapping h with the cached mappings right before and
 * after it, taken out of the cache; returns the joined mapping's header
 * (the lowest).  Only the copies in the array are read to find them, so
 * no header of a mapping another thread may be giving back is touched.
 * large_lock held. */
static rp_hd_sb_t *join(rp_hd_sb_t *h)
{
    uint32_t prev = CACHE_MAX, next = CACHE_MAX;
    for (uint32_t j = 0; j < cache_n; j++) {
        if ((char *)cache[j].h == (char *)h + h->map_len)
            next = j;
        else if ((char *)cache[j].h + cache[j].len == (char *)h)
            prev = j;
    }
    if (prev == CACHE_MAX && next == CACHE_MAX)
        return h;
    size_t len = h->map_len;
    rp_hd_sb_t *first = h, *n = NULL;
    if (next != CACHE_MAX) {
        n = cache[next].h;
        len += cache[next].len;
    }
    if (prev != CACHE_MAX) {
        first = cache[prev].h;
        len += cache[prev].len;
    }
    if (prev != CACHE_MAX)
        cache_remove(prev);
    if (next != CACHE_MAX)
        cache_remove(next - (prev < next)); /* one down if prev was before it */
    char *end = (char *)first + len;
    if (n) { /* inside the joined mapping now */
        n->magic = 0;
        rp_hd_map_large_from(first, n, end);
    }
    if (first != h) {
        h->magic = 0;
        rp_hd_map_large_from(first, h, end);
    }
    return free_mapping((char *)first, len, end);
}

static bool cache_put(rp_hd_sb_t *h)
{
    bool kept = false;
    rp_hd_sb_t *expired[CACHE_MAX];
    pthread_mutex_lock(&large_lock);
    uint32_t nexp = cache_expire(expired);
    if ((kept = cache_room(h))) /* else h alone goes back, its neighbours stay */
        cache_insert(join(h));
    pthread_mutex_unlock(&large_lock);
    give_back_all(expired, nexp);
    return kept;
}

void *rp_hd_large_alloc(size_t size, size_t align, bool *fresh)
{
    size_t s = rp_hd_opt.sb_size;
    note_op();
    bool carved = align <= default_off(); /* and cached when freed */
    if (carved) {
        rp_hd_sb_t *h = cache_take(size);
        if (h) {
            *fresh = false;
            rp_hd_large_guard_set((char *)h + default_off());
            return (char *)h + default_off();
        }
    }
    size_t off = carved ? default_off() : align;
    size_t hdr_off = align <= s ? 0 : align - s;
    if (size > SIZE_MAX / 2 || off > SIZE_MAX / 4)
        return NULL;
    size_t len = page_up(off + size);
    char *map_base;
    size_t map_len;
    char *base;
    if (carved) {
        size_t span_len = (len + s - 1) & ~(s - 1);
        base = map_base = rp_hd_space_take(span_len, span_len, &map_len);
    } else {
        base = rp_hd_os_map_loose(len, align > s ? align : s, &map_base, &map_len);
        if (base && !rp_hd_map_set(map_base, map_len, 1)) {
            rp_hd_os_unmap(map_base, map_len);
            base = NULL;
        }
    }
    if (!base)
        return NULL;
    rp_hd_sb_t *h = (rp_hd_sb_t *)(base + hdr_off);
    h->magic = RP_HD_LARGE_MAGIC;
    atomic_store_explicit(&h->owner, NULL, memory_order_relaxed);
    h->map_base = map_base;
    h->map_len = map_len;
    h->usable = len - off;
    h->end = base + len;
    rp_hd_map_large(h, h->end, true); /* interior pointers find h */
    atomic_fetch_add_explicit(&large_mapped, h->map_len, memory_order_relaxed);
    *fresh = true;
    rp_hd_large_guard_set(base + off);
    rp_hd_release_maybe_start(); /* the allocator grew: no lock held */
    return base + off;
}

void rp_hd_large_free(rp_hd_sb_t *h)
{
    note_op();
    if (!(is_carved(h) && cache_put(h)))
        give_back_all(&h, 1);
}

void rp_hd_large_fork(int phase)
{
    rp_hd_lock_fork(&large_lock, phase);
}

void rp_hd_large_trim(void)
{
    rp_hd_sb_t *list[CACHE_MAX];
    uint32_t n = 0;
    pthread_mutex_lock(&large_lock);
    while (cache_n > 0)
        list[n++] = cache_remove(cache_n - 1);
    pthread_mutex_unlock(&large_lock);
    give_back_all(list, n);
}

bool rp_hd_large_decay(void)
{
    rp_hd_sb_t *expired[CACHE_MAX];
    pthread_mutex_lock(&large_lock);
    uint32_t n = cache_expire(expired);
    bool pending = cache_n > 0;
    pthread_mutex_unlock(&large_lock);
    give_back_all(expired, n);
    return pending;
}
