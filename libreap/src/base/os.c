/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * os.c - the allocator's only contact with the kernel: aligned mappings
 * and their counters, the mutexes of its locks (and their fork
 * handling), and the coarse clock of the decay periods (rp_hd_decay_tick).
 * Every other file of the allocator builds on these; this one uses nothing
 * of theirs but the options (rp_hd_opt).
 *
 * Contract: rp_hd_os_map(len, align) returns len bytes of fresh zeroed
 * memory at an address that is a multiple of align, or NULL; pages are not
 * touched, so they cost no RSS until used.  rp_hd_os_unmap() gives any
 * page-aligned part of a mapping back.  Both keep the mapping counters of
 * rp_hd_cnt (defined here, read by hoard_stats.c).  Alignment is obtained
 * by mapping align - page bytes more and unmapping the ragged ends;
 * rp_hd_os_map_loose() leaves them mapped (never touched, so no RSS) for a
 * caller that unmaps the whole mapping at once later (large objects): one
 * system call instead of three, each of which takes the process's mmap
 * lock for writing and stalls the other threads' page faults (where
 * mstress at 2 threads slept most).  Under ASan a mapping is unpoisoned
 * when made and before it goes back: blocks freed to reaps' base allocator
 * are poisoned (../util/annotate.h), and the kernel may hand the same
 * addresses to anyone next.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../util/annotate.h"
#include "hoard.h"

rp_hd_counters_t rp_hd_cnt;

static size_t page_size;

size_t rp_hd_os_page(void)
{
    if (!page_size)
        page_size = (size_t)sysconf(_SC_PAGESIZE);
    return page_size;
}

static void count_held(size_t len)
{
    uint64_t now = atomic_fetch_add_explicit(&rp_hd_cnt.mapped, len, memory_order_relaxed) + len;
    uint64_t peak = atomic_load_explicit(&rp_hd_cnt.peak_mapped, memory_order_relaxed);
    while (now > peak && !atomic_compare_exchange_weak(&rp_hd_cnt.peak_mapped, &peak, now))
        ;
}

/* Maps len bytes plus the slack that aligning the start to *align (raised
 * to the page size) may need; *total is the mapping's length.  NULL with
 * errno ENOMEM on failure. */
static char *map_padded(size_t len, size_t *align, size_t *total)
{
    size_t page = rp_hd_os_page();
    if (*align < page)
        *align = page;
    size_t extra = *align - page;
    if (len > SIZE_MAX - extra) {
        errno = ENOMEM;
        return NULL;
    }
    char *p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        errno = ENOMEM;
        return NULL;
    }
    *total = len + extra;
    return p;
}

static char *align_up(char *p, size_t align)
{
    return (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
}

/* Maps len bytes at a multiple of align, unmapping the ragged ends. */
static char *map_aligned(size_t len, size_t align)
{
    size_t total;
    char *p = map_padded(len, &align, &total);
    if (!p)
        return NULL;
    char *q = align_up(p, align);
    if (q > p)
        munmap(p, (size_t)(q - p));
    if (q + len < p + total)
        munmap(q + len, (size_t)(p + total - (q + len)));
    return q;
}

static void count_mapping(void) { atomic_fetch_add_explicit(&rp_hd_cnt.maps, 1, memory_order_relaxed); }

void rp_hd_os_count_carve(void *p, size_t len)
{
    count_held(len);
    rp_ann_fresh(p, len);
}

void *rp_hd_os_reserve(size_t len, size_t align)
{
    char *q = map_aligned(len, align);
    if (q)
        count_mapping();
    return q;
}

void *rp_hd_os_map(size_t len, size_t align)
{
    char *q = rp_hd_os_reserve(len, align);
    if (q)
        rp_hd_os_count_carve(q, len); /* held whole, at once */
    return q;
}

/* ---- the region -------------------------------------------------------------------- */

rp_hd_region_t rp_hd_region;
static size_t region_used; /* bytes of the region reserves took; the space lock */

/* Sizes tried for the region, largest first: a process whose address
 * space is limited (RLIMIT_AS) gets a smaller one, or none. */
static const size_t region_sizes[] = {(size_t)64 << 30, (size_t)8 << 30, (size_t)1 << 30};

void rp_hd_os_region_init(void)
{
    size_t align = rp_hd_opt.sb_size;
    for (size_t i = 0; i < sizeof region_sizes / sizeof region_sizes[0]; i++) {
        size_t cap = region_sizes[i];
        char *p = mmap(NULL, cap + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            continue;
        char *q = align_up(p, align);
        if (q > p)
            munmap(p, (size_t)(q - p));
        munmap(q + cap, (size_t)(p + align - q));
        rp_hd_region.cap = cap;
        atomic_store_explicit(&rp_hd_region.base, (uintptr_t)q, memory_order_relaxed);
        return;
    }
}

/* Reserves come from the region, in address order and without gaps, each
 * made readable and writable (mprotect) when taken, so that everything
 * from the base to base + len may be read; past the region, from mmap. */
void *rp_hd_os_reserve_space(size_t len, size_t align)
{
    uintptr_t base = atomic_load_explicit(&rp_hd_region.base, memory_order_relaxed);
    size_t off = (region_used + align - 1) & ~(align - 1);
    if (base != 0 && off <= rp_hd_region.cap && len <= rp_hd_region.cap - off &&
        mprotect((char *)base + region_used, off + len - region_used, PROT_READ | PROT_WRITE) == 0) {
        region_used = off + len;
        count_mapping();
        /* release: a header written in it is read only after a handover */
        atomic_store_explicit(&rp_hd_region.len, region_used, memory_order_release);
        return (char *)base + off;
    }
    return rp_hd_os_reserve(len, align);
}

/* Inside the region the addresses stay readable (free reads headers
 * there without asking the map): only the pages go. */
void rp_hd_os_unreserve(void *p, size_t len)
{
    if (rp_hd_in_region(p))
        madvise(p, len, MADV_DONTNEED);
    else
        munmap(p, len);
}

/* A give-back of len bytes to the OS. */
static void count_returned(size_t len)
{
    atomic_fetch_add_explicit(&rp_hd_cnt.unmaps, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&rp_hd_cnt.returned, len, memory_order_relaxed);
}

/* A give-back that also takes the memory out of the allocator: mapped falls.
 * Pages purged in place (rp_hd_os_purge_in_place) stay in superblocks the
 * allocator keeps and hands out again without a carve, so they are only
 * returned, not released: subtracting them made mapped fall below in_use
 * after each idle trim, and a superblock purged in place and later given
 * back whole was subtracted twice. */
static void count_released(size_t len)
{
    atomic_fetch_sub_explicit(&rp_hd_cnt.mapped, len, memory_order_relaxed);
    count_returned(len);
}

bool rp_hd_os_purge(void *p, size_t len)
{
    rp_ann_undefined(p, len);
    if (madvise(p, len, MADV_DONTNEED) != 0)
        return false;
    count_released(len);
    return true;
}

bool rp_hd_os_purge_in_place(void *p, size_t len)
{
    if (madvise(p, len, MADV_DONTNEED) != 0)
        return false;
    count_returned(len);
    return true;
}

void *rp_hd_os_map_loose(size_t len, size_t align, char **base, size_t *map_len)
{
    size_t total;
    char *p = map_padded(len, &align, &total);
    if (!p)
        return NULL;
    *base = p;
    *map_len = total;
    count_mapping();
    rp_hd_os_count_carve(p, total);
    return align_up(p, align);
}

void rp_hd_os_unmap(void *p, size_t len)
{
#ifdef RP_ASAN
    rp_ann_undefined(p, len);
#endif
    munmap(p, len);
    count_released(len);
}

void rp_hd_lock_init(pthread_mutex_t *lock)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(lock, &attr);
    pthread_mutexattr_destroy(&attr);
}

void rp_hd_lock_fork(pthread_mutex_t *lock, int phase)
{
    if (phase == 0)
        pthread_mutex_lock(lock);
    else if (phase == 1)
        pthread_mutex_unlock(lock);
    else
        rp_hd_lock_init(lock);
}

bool rp_hd_decay_tick(rp_hd_decay_t *d, uint32_t *stale)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    if (now - d->start < rp_hd_opt.decay_ms)
        return false;
    *stale = d->epoch++;
    d->start = now;
    return true;
}
