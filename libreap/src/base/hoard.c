/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * hoard.c - the entry points of the Hoard-style allocator: malloc-like
 * calls for malloc.c, the rp_base_* interface of base.h for reaps, lazy
 * initialisation and fork safety.
 *
 * Small requests (up to S/2) are served from the thread's cache, refilled
 * from its heap; larger ones by large.c.  free() finds the header from the
 * address: a block goes to the thread's cache when its superblock belongs
 * to the thread's heap, otherwise to the outbox that gives it back to its
 * own superblock.  Before that, every free checks in release builds that
 * the pointer starts a block and that the block is not already free
 * (the superblock's key in its second word, docs/misuse.md); a misuse is
 * one line on stderr and an abort, or with REAP_MISUSE=report is ignored.
 * Initialisation happens on the first call, must not
 * allocate (it can run inside a program's first malloc) and registers the
 * pthread_atfork handlers that keep every allocator lock consistent
 * across fork().
 *
 * In ASan and Valgrind builds (../util/annotate.h) a block given to a reap is
 * open to the program and one it gives back is poisoned, so a use after
 * reap_destroy is reported; the allocator's own walks of its free lists
 * run quiet.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/annotate.h"
#include "../util/misuse.h"
#include "base.h"
#include "hoard.h"

/* Read by every malloc that misses the small fast path: a cache line of
 * its own, beside nothing another thread writes. */
rp_hd_once_t rp_hd_once;

/* ---- initialisation and fork --------------------------------------------------- */

static void fork_prepare(void)
{
    rp_hd_tcache_fork(0);
    rp_hd_heaps_lock_all();
    rp_hd_large_fork(0);
    rp_hd_space_fork(0); /* a leaf: taken under the others */
    rp_hd_release_fork(0);
}

static void fork_parent(void)
{
    rp_hd_release_fork(1);
    rp_hd_space_fork(1);
    rp_hd_large_fork(1);
    rp_hd_heaps_unlock_all(false);
    rp_hd_tcache_fork(1);
}

static void fork_child(void)
{
    rp_hd_space_fork(2);
    rp_hd_large_fork(2);
    rp_hd_heaps_unlock_all(true);
    rp_hd_tcache_fork(2);
    rp_hd_release_fork(2); /* last: it may start the child's thread, which allocates */
}

void rp_hd_init(void)
{
    if (RP_LIKELY(atomic_load_explicit(&rp_hd_once.ready, memory_order_acquire)))
        return;
    int expected = 0;
    if (atomic_compare_exchange_strong(&rp_hd_once.claimed, &expected, 1)) {
        rp_hd_options_init();
        rp_hd_sb_keys_init();
        rp_hd_sb_mask = ~(rp_hd_opt.sb_size - 1);
        rp_hd_map_init();
        rp_hd_os_region_init();
        rp_hd_sc_init(rp_hd_opt.sb_size);
        rp_hd_heaps_init();
        rp_hd_tcache_init();
        rp_hd_release_init();
        atomic_store_explicit(&rp_hd_once.ready, 1, memory_order_release);
        /* after `ready': registering may itself call malloc */
        pthread_atfork(fork_prepare, fork_parent, fork_child);
        return;
    }
    while (!atomic_load_explicit(&rp_hd_once.ready, memory_order_acquire))
        sched_yield();
}

/* ---- small blocks ---------------------------------------------------------------- */

/* The allocator's growth is where the release thread starts (release.c):
 * an allocation's slow path, no lock held. */
__attribute__((noinline)) static void *small_refill(uint32_t cls)
{
    void *p = rp_hd_tcache_refill(rp_hd_tcache_get(), cls);
    rp_hd_release_maybe_start();
    return p;
}

static inline void *small_alloc(uint32_t cls)
{
    void *p = rp_hd_bin_take(&rp_hd_tls->bin[cls]);
    if (RP_LIKELY(p != NULL))
        return p;
    return small_refill(cls);
}

/* ---- misuse ----------------------------------------------------------------------- */

/* What a pointer passed to free or realloc is (classify): ZERO is a
 * malloc(0)'s (zero.c), CORRUPT a large object whose guard bytes were
 * overwritten. */
enum { LIVE, FREED, FOREIGN, INTERIOR, ZERO, CORRUPT };

/* One line on stderr naming the misuse and the pointer (and, for an
 * interior pointer, its block), then abort unless REAP_MISUSE=report. */
RP_COLD static void misuse(const char *op, int what, const void *p, const void *block)
{
    rp_line_t l = {.len = 0};
    rp_line_str(&l, RP_HD_NAME ": ");
    if (what == FREED) {
        rp_line_str(&l, op[0] == 'f' ? "double free of " : op);
        if (op[0] != 'f')
            rp_line_str(&l, " of a freed pointer ");
    } else if (what == CORRUPT) {
        rp_line_str(&l, op);
        rp_line_str(&l, " of a block whose guard bytes before it were overwritten: ");
    } else {
        rp_line_str(&l, op);
        rp_line_str(&l, what == INTERIOR ? " of an interior pointer " : " of a pointer it did not hand out: ");
    }
    rp_line_ptr(&l, p);
    if (what == INTERIOR) {
        rp_line_str(&l, " (block ");
        rp_line_ptr(&l, block);
        rp_line_str(&l, ")");
    }
    rp_line_write(&l);
    if (rp_misuse_mode != RP_MISUSE_REPORT)
        abort();
}

static bool in_list(void *list, const void *b)
{
    for (; list; list = *(void **)list)
        if (list == b)
            return true;
    return false;
}

/* Whether block b of sb, whose word 1 holds sb's key, is free: in this
 * thread's cache or outbox, on sb's free list, or never handed out.  A
 * block in another thread's cache or outbox is not seen (nor is a block
 * of a superblock that emptied since it was freed: its key changed). */
/* The same of a block that is in no thread's cache or outbox; the
 * owner of sb locked. */
static bool block_free_locked(const rp_hd_sb_t *sb, const void *b)
{
    return (const char *)b >= sb->bump || in_list(sb->free, b) || rp_hd_sb_is_parked(sb, b);
}

RP_COLD static bool block_free(rp_hd_sb_t *sb, const void *b)
{
    rp_hd_tcache_t *tc = rp_hd_tls;
    rp_hd_bin_t *bin = &tc->bin[sb->cls];
    if (in_list(bin->head, b) || in_list(tc->outbox, b) ||
        ((const char *)b >= bin->next && (const char *)b < bin->end))
        return true;
    rp_hd_heap_t *h = rp_hd_lock_owner(sb);
    bool found = block_free_locked(sb, b);
    pthread_mutex_unlock(&h->lock);
    return found;
}

/* What p is, with the header of its granule in *hdr (NULL when the
 * allocator holds no memory there) and the start of its block or large
 * object in *block.  The address map says first whether the header may
 * be read (addrmap.c): a stack, static, far or wild pointer is FOREIGN
 * without a read at it, and an interior pointer of a large object finds
 * the object's header through the map. */
static int classify(const void *p, rp_hd_sb_t **hdr, void **block)
{
    rp_hd_sb_t *sb = (rp_hd_sb_t *)rp_hd_map_header((const char *)p - 1);
    *hdr = sb;
    *block = NULL;
    if (sb == NULL)
        return rp_hd_zero_has(p) ? ZERO : FOREIGN;
    if (sb->magic == RP_HD_LARGE_MAGIC || sb->magic == RP_HD_CACHED_MAGIC) {
        *block = sb->end - sb->usable;
        if (p != *block)
            return INTERIOR;
        if (sb->magic == RP_HD_CACHED_MAGIC)
            return FREED;
        return rp_hd_large_guard_ok(p) ? LIVE : CORRUPT;
    }
    if (sb->magic != RP_HD_SB_MAGIC)
        return FOREIGN;
    if ((uint64_t)((uintptr_t)p - (uintptr_t)rp_hd_sb_blocks(sb)) >= (uint64_t)sb->nblocks * sb->size)
        return FOREIGN;
    *block = rp_hd_sb_misplaced(sb, p) ? rp_hd_sb_block_of(sb, (void *)p) : (void *)p;
    if (*block != p && !atomic_load_explicit(&sb->interior, memory_order_relaxed))
        return INTERIOR;
    /* a parked block is free and has no key (hoard.h, RP_HD_PARK_MAX); a
     * thread without a cache frees straight to superblocks, which may
     * empty and take a new key at once, so for it the whole check */
    if ((((uint64_t *)*block)[1] == sb->key || rp_hd_sb_is_parked(sb, *block) ||
         !rp_hd_own_cache(rp_hd_tls)) &&
        block_free(sb, *block))
        return FREED;
    return LIVE;
}

bool rp_hoard_check(const void *p, const char *op)
{
    rp_hd_sb_t *sb;
    void *block;
    int what = classify(p, &sb, &block);
    if (what == LIVE || what == ZERO)
        return true;
    misuse(op, what, p, block);
    return false;
}

/* ---- free ----------------------------------------------------------------------------- */

/* A free by a thread without a cache (rp_hd_nocache) goes straight to its
 * superblock, which may then empty and take a new key, so a second free
 * of the block would not carry the key rp_hoard_free() looks for: the
 * whole check is made here instead, under the lock the free takes anyway. */
RP_COLD static void free_nocache(rp_hd_sb_t *sb, void *p)
{
    rp_hd_heap_t *h = rp_hd_lock_owner(sb);
    bool freed = block_free_locked(sb, p);
    if (!freed) {
        rp_hd_heap_give_range(h, sb, p, (char *)p + sb->size);
        rp_hd_heap_balance(h);
    }
    pthread_mutex_unlock(&h->lock);
    if (freed)
        misuse("free", FREED, p, NULL);
}

__attribute__((noinline)) static void free_slow(rp_hd_tcache_t *tc, rp_hd_sb_t *sb, void *p)
{
    if (tc == &rp_hd_none) {
        rp_hd_init(); /* a thread's first call may be a free */
        tc = rp_hd_tcache_get();
    }
    if (tc == &rp_hd_nocache) {
        free_nocache(sb, p);
        return;
    }
    if (atomic_load_explicit(&sb->owner, memory_order_relaxed) != tc->heap) {
        rp_hd_tcache_free_remote(tc, sb, p);
        return;
    }
    rp_hd_bin_t *bin = &tc->bin[sb->cls];
    if (bin->cap == 0) {
        rp_hd_free_locked(sb, p);
        return;
    }
    rp_hd_tcache_overflow(tc, sb->cls);
    rp_hd_bin_push(bin, sb, p);
}

/* A block past its superblock's bump pointer: never handed out, so a
 * free of it is of a pointer the allocator did not hand out.  (A block of
 * a thread's refill range, below the bump pointer but not handed out
 * either, is not told from a live one: that would cost every free two
 * loads and a compare, 4-10% of larson's and threadtest's time.) */
RP_COLD static void free_unborn(void *p) { misuse("free", FOREIGN, p, NULL); }

/* Block p of superblock sb, known to be handed out, back to this thread's
 * cache when its heap owns sb and the bin has room (no lock), else
 * through free_slow (always for rp_hd_none, whose heap is no superblock's
 * owner).  It carries sb's key from now until it is handed out again. */
static inline void free_owned(rp_hd_sb_t *sb, void *p)
{
    ((uint64_t *)p)[1] = sb->key;
    rp_hd_tcache_t *tc = rp_hd_tls;
    if (atomic_load_explicit(&sb->owner, memory_order_relaxed) == tc->heap) {
        rp_hd_bin_t *bin = &tc->bin[sb->cls];
        if (RP_LIKELY(bin->count < bin->cap)) {
            rp_hd_bin_push(bin, sb, p);
            return;
        }
    }
    free_slow(tc, sb, p);
}

/* The block carries the key: free already, unless the program stored
 * those eight bytes there (or a freed block sits in another thread's
 * cache, which is not seen). */
RP_COLD static void free_suspect(rp_hd_sb_t *sb, void *p)
{
    if (block_free(sb, p))
        misuse("free", FREED, p, NULL);
    else
        free_owned(sb, p);
}

/* Large objects, pointers from aligned allocations, bad pointers. */
__attribute__((noinline)) static void free_unusual(void *p)
{
    rp_hd_sb_t *sb;
    void *block;
    int what = classify(p, &sb, &block);
    if (what == ZERO) /* nothing to give back */
        return;
    if (what != LIVE)
        misuse("free", what, p, block);
    else if (sb->magic == RP_HD_LARGE_MAGIC)
        rp_hd_large_free(sb);
    else
        free_owned(sb, block); /* sb->interior: p may point inside */
}

/* The checks every free makes, in release builds too: p's header lies in
 * the region (hoard.h: a subtract and a compare, before the header is
 * read; any other pointer goes to free_unusual, which asks the address
 * map, so one that is not the allocator's is reported, never followed),
 * p is the start of a
 * block of a superblock (a magic, a multiply and a compare: no
 * division), and the block does not carry its superblock's key, which
 * every freed block carries until it is handed out again (one load of a
 * line the free writes anyway). */
void rp_hoard_free(void *p)
{
    if (RP_UNLIKELY(p == NULL))
        return;
    rp_hd_sb_t *sb = rp_hd_hdr(p);
    if (RP_UNLIKELY(!rp_hd_in_region((const char *)p - 1)) || RP_UNLIKELY(sb->magic != RP_HD_SB_MAGIC) ||
        RP_UNLIKELY(rp_hd_sb_misplaced(sb, p))) {
        free_unusual(p);
        return;
    }
    if (RP_UNLIKELY(((uint64_t *)p)[1] == sb->key)) {
        free_suspect(sb, p);
        return;
    }
    if (RP_UNLIKELY(rp_hd_sb_unborn(sb, p))) {
        free_unborn(p);
        return;
    }
    free_owned(sb, p);
}

/* ---- malloc-like entry points ------------------------------------------------------ */

static void *large_malloc(size_t size, bool *zeroed)
{
    void *p = rp_hd_large_alloc(size, RP_HD_MIN_ALIGN, zeroed);
    if (!p)
        errno = ENOMEM;
    return p;
}

/* malloc(0): an address of its own in the zero region, where any read or
 * write faults (zero.c); a 16-byte block once that is used up. */
static void *zero_malloc(void)
{
    void *p = rp_hd_zero_alloc();
    return p ? p : small_alloc(rp_hd_sc_small(1));
}

/* Everything but a pop from an initialised thread's cache, out of line
 * so that malloc's fast path needs no stack frame. */
__attribute__((noinline)) static void *malloc_slow(size_t size)
{
    rp_hd_init();
    if (RP_UNLIKELY(size == 0))
        return zero_malloc();
    if (size <= rp_hd_sc_max())
        return small_alloc(rp_hd_sc_of(size));
    bool zeroed;
    return large_malloc(size, &zeroed);
}

/* A thread has a cache with blocks only after rp_hd_init() returned to it
 * (acquire), so a pop needs no check of rp_hd_once.ready; before, rp_hd_tls is
 * rp_hd_none, whose bins are empty, whatever class rp_hd_sc_small() says. */
void *rp_hoard_malloc(size_t size)
{
    if (RP_LIKELY(size <= 1024)) {
        void *p = rp_hd_bin_take(&rp_hd_tls->bin[rp_hd_sc_small(size)]);
        if (RP_LIKELY(p != NULL))
            return p;
    }
    return malloc_slow(size);
}

void *rp_hoard_malloc_z(size_t size, bool *zeroed)
{
    *zeroed = false;
    if (RP_UNLIKELY(!atomic_load_explicit(&rp_hd_once.ready, memory_order_acquire)))
        rp_hd_init();
    if (RP_UNLIKELY(size == 0)) {
        *zeroed = true; /* nothing to clear */
        return zero_malloc();
    }
    if (size <= rp_hd_sc_max())
        return small_alloc(rp_hd_sc_of(size));
    return large_malloc(size, zeroed);
}

void *rp_hoard_memalign(size_t align, size_t size)
{
    if (align <= RP_HD_MIN_ALIGN)
        return rp_hoard_malloc(size);
    rp_hd_init();
    size_t max = rp_hd_sc_max();
    if (align <= 64 && size <= max) /* classes that are multiples of 64 */
        return small_alloc(rp_hd_sc.aligned64[rp_hd_sc_of(size)]);
    if (size <= max && align <= max - size) {
        char *p = small_alloc(rp_hd_sc_of(size + align - RP_HD_MIN_ALIGN));
        if (p && ((uintptr_t)p & (align - 1))) {
            atomic_store_explicit(&rp_hd_hdr(p)->interior, 1, memory_order_relaxed);
            atomic_store_explicit(&rp_hd_hdr(p)->divc, 0, memory_order_relaxed); /* frees: unusual */
            p = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
        }
        return p;
    }
    bool zeroed;
    void *p = rp_hd_large_alloc(size, align, &zeroed);
    if (!p)
        errno = ENOMEM;
    return p;
}

size_t rp_hoard_usable_size(const void *p)
{
    if (!p || rp_hd_zero_has(p))
        return 0;
    rp_hd_sb_t *sb = (rp_hd_sb_t *)rp_hd_map_header((const char *)p - 1);
    if (sb && sb->magic == RP_HD_LARGE_MAGIC && (const char *)p < sb->end)
        return (size_t)(sb->end - (const char *)p);
    if (!sb || sb->magic != RP_HD_SB_MAGIC) {
        misuse("malloc_usable_size", FOREIGN, p, NULL);
        return 0;
    }
    char *block = rp_hd_sb_block_of(sb, (void *)p);
    return sb->size - (size_t)((const char *)p - block);
}

void rp_hoard_trim(void)
{
    rp_hd_init();
    rp_hd_tcache_t *tc = rp_hd_tls;
    if (tc != &rp_hd_none)
        rp_hd_tcache_flush_all(tc);
    rp_hd_tcache_flush_parked();
    rp_hd_heap_trim();
    rp_hd_large_trim();
}

/* ---- base.h: the interface reaps use ------------------------------------------------ */

static void *base_alloc_plain(size_t size)
{
    rp_hd_init();
    if (size <= rp_hd_sc_max())
        return small_alloc(rp_hd_sc.aligned64[rp_hd_sc_of(size)]);
    bool zeroed;
    void *p = rp_hd_large_alloc(size, RP_BASE_ALIGN, &zeroed);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *rp_base_alloc(size_t size)
{
    rp_ann_quiet_begin();
    void *p = base_alloc_plain(size);
    rp_ann_quiet_end();
    if (RP_ANNOTATE && p)
        rp_ann_undefined(p, rp_base_usable(size));
    return p;
}

void rp_base_free(void *p, size_t size)
{
    rp_ann_noaccess(p, rp_base_usable(size));
    rp_ann_quiet_begin();
    rp_hoard_free(p); /* the header knows the size */
    rp_ann_quiet_end();
}

static void (*_Atomic trim_hook)(void *);
static void *_Atomic trim_hook_arg;

void rp_base_on_trim(void (*fn)(void *arg), void *arg)
{
    atomic_store_explicit(&trim_hook_arg, arg, memory_order_relaxed);
    atomic_store_explicit(&trim_hook, fn, memory_order_release);
}

/* The hook first: what it gives back is returned by the same trim. */
void rp_base_trim(void)
{
    void (*fn)(void *) = atomic_load_explicit(&trim_hook, memory_order_acquire);
    if (fn)
        fn(atomic_load_explicit(&trim_hook_arg, memory_order_relaxed));
    rp_ann_quiet_begin();
    rp_hoard_trim();
    rp_ann_quiet_end();
}

void rp_base_idle_release(size_t ms)
{
    rp_hd_init();
    rp_hd_release_set_idle(ms);
}

/* The map says whether the header may be read; a superblock's block is
 * found by multiplying with the reciprocal of its size (the offset is
 * below S, far from where the product's high word could be off). */
void *rp_base_block_of(const void *p, size_t *size)
{
    uint8_t m = rp_base_map_get(p);
    if (m & RP_BASE_MAP_ALIGNED) { /* the header's slot is no block */
        uintptr_t b = (uintptr_t)p & ((uintptr_t)-1 << (m & 0x3f));
        *size = (size_t)1 << (m & 0x3f);
        return (b & ~rp_hd_sb_mask) ? (void *)b : NULL;
    }
    const rp_hd_sb_t *h = rp_hd_map_header(p);
    if (RP_UNLIKELY(h == NULL))
        return NULL;
    if (RP_LIKELY(h->magic == RP_HD_SB_MAGIC)) {
        uint64_t off = (uint64_t)((uintptr_t)p - (uintptr_t)rp_hd_sb_blocks(h));
        if (off >= (uint64_t)h->nblocks * h->size)
            return NULL;
        uint64_t i = (uint64_t)(((unsigned __int128)off * h->recip) >> 64);
        *size = h->size;
        return rp_hd_sb_blocks(h) + i * h->size;
    }
    if (h->magic == RP_HD_LARGE_MAGIC) {
        char *b = h->end - h->usable;
        if ((const char *)p < b || (const char *)p >= h->end)
            return NULL;
        *size = h->usable;
        return b;
    }
    return NULL;
}

void rp_base_wait_begin(void) { rp_hd_thread_park(); }

void rp_base_wait_end(void) { rp_hd_thread_unpark(); }

void rp_base_init(void) { rp_hd_init(); }

size_t rp_base_usable(size_t size)
{
    rp_hd_init();
    if (size <= rp_hd_sc_max())
        return rp_hd_sc.size[rp_hd_sc.aligned64[rp_hd_sc_of(size)]];
    return rp_hd_large_usable(size);
}
