/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * space.c - the address space superblocks and large objects are carved
 * from, and taken back into.
 *
 * Mapping every batch of superblocks and every large object on its own
 * cost an mmap each (and, to align a batch, up to two munmaps), and giving
 * memory back cost a munmap that split the kernel's mapping.  Each of
 * those calls takes the process's mmap lock for writing, and every other
 * thread's page fault waits for it: in mstress at 2 threads most of the
 * times a thread slept were there, about 830 such calls in 50 ms.
 *
 * So memory is carved from spans of free address space, kept in an array
 * sorted by address: S-aligned, multiples of S (a large object's mapping
 * is rounded up to S; the rounding is address space only, never touched).
 * A carve takes the lowest span that fits (address-ordered first fit:
 * few spans, a compact heap).  When none fits, a reserve is mapped and
 * becomes a span: 1 MiB first, each next one twice the last, up to
 * 64 MiB, so a small program maps little, and untouched pages cost no RSS
 * anyway.  Memory given back goes to the OS with madvise(MADV_DONTNEED),
 * which frees its pages (RSS falls at once, as with munmap) but splits no
 * mapping and lets page faults go on, and its addresses become a span
 * again, merged with free neighbours, for the next carve; a carve of
 * given-back pages gets zeroed pages, like a fresh mapping.  Only when
 * the array is full is memory given back unmapped instead.
 *
 * The counters of rp_hd_cnt: `mapped' counts carved bytes not given back
 * (a reserve's uncarved rest is not memory the allocator holds), `maps'
 * the reserves mapped, `unmaps' and `returned' every give-back.
 * space_lock is a leaf: taken under heap locks, never the other way.
 * Every reserve is in the address map (addrmap.c) from its mapping to
 * its unmapping, so a lookup may read any granule's start inside it.
 */
#define _GNU_SOURCE /* PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP */
#include <pthread.h>
#include <string.h>

#include "hoard.h"

#define SPAN_MAX RP_HD_SPAN_MAX /* past it, give-backs are unmapped */
#define RESERVE_MIN ((size_t)1 << 20)
#define RESERVE_MAX ((size_t)64 << 20)

typedef struct span {
    char *start, *end;
} span_t;

static pthread_mutex_t space_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP; /* see rp_hd_lock_init */
static span_t spans[SPAN_MAX]; /* [0, nspans): sorted, disjoint, never adjacent */
static uint32_t nspans;
static size_t reserve_len = RESERVE_MIN; /* the next reserve's size */

/* The index of the first span starting at or after p. */
static uint32_t first_from(const char *p)
{
    uint32_t lo = 0, hi = nspans;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (spans[mid].start < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void remove_at(uint32_t i)
{
    memmove(&spans[i], &spans[i + 1], (nspans - i - 1) * sizeof *spans);
    nspans--;
}

/* Adds start..end (free, not in any span) to the spans, merged with the
 * spans it touches; returns the index of the span now holding it, or
 * SPAN_MAX when the array is full. */
static uint32_t add_span(char *start, char *end)
{
    uint32_t i = first_from(start);
    bool left = i > 0 && spans[i - 1].end == start;
    bool right = i < nspans && spans[i].start == end;
    if (left && right) {
        spans[i - 1].end = spans[i].end;
        remove_at(i);
        return i - 1;
    }
    if (left) {
        spans[i - 1].end = end;
        return i - 1;
    }
    if (right) {
        spans[i].start = start;
        return i;
    }
    if (nspans == SPAN_MAX)
        return SPAN_MAX;
    memmove(&spans[i + 1], &spans[i], (nspans - i) * sizeof *spans);
    spans[i] = (span_t){start, end};
    nspans++;
    return i;
}

/* Address space that holds nothing goes back to the kernel, and out of
 * the map first: nothing may read it now. */
static void unreserve(void *p, size_t len)
{
    rp_hd_map_set(p, len, 0);
    rp_hd_os_unreserve(p, len);
}

/* Maps a reserve of at least want bytes and adds it to the spans;
 * returns its span's index, or SPAN_MAX (nothing mapped, or the array
 * full: then the reserve is unmapped again).  space_lock held. */
static uint32_t add_reserve(size_t want, size_t s)
{
    size_t len = reserve_len > want ? reserve_len : want;
    char *p = rp_hd_os_reserve_space(len, s);
    if (!p && len > want)
        p = rp_hd_os_reserve_space(len = want, s);
    if (!p)
        return SPAN_MAX;
    if (reserve_len < RESERVE_MAX)
        reserve_len *= 2;
    uint32_t i = rp_hd_map_set(p, len, 1) ? add_span(p, p + len) : SPAN_MAX;
    if (i == SPAN_MAX)
        unreserve(p, len);
    return i;
}

void *rp_hd_space_take(size_t want, size_t min, size_t *got)
{
    size_t s = rp_hd_opt.sb_size;
    pthread_mutex_lock(&space_lock);
    uint32_t i = 0;
    while (i < nspans && (size_t)(spans[i].end - spans[i].start) < min)
        i++;
    if (i == nspans)
        i = add_reserve(want, s);
    if (i == SPAN_MAX) {
        pthread_mutex_unlock(&space_lock);
        return NULL;
    }
    char *p = spans[i].start;
    size_t len = (size_t)(spans[i].end - p);
    size_t take = want < len ? want : len;
    spans[i].start += take;
    if (spans[i].start == spans[i].end)
        remove_at(i);
    pthread_mutex_unlock(&space_lock);
    rp_hd_os_count_carve(p, take);
    *got = take;
    return p;
}

void rp_hd_space_give(void *p, size_t len)
{
    rp_hd_map_set(p, len, 1); /* plain mapped memory again, whatever it held */
    /* Purged before it is a span: a carve may hand it out at once.  If the
     * kernel refuses, unmapping still returns the pages. */
    if (!rp_hd_os_purge(p, len)) {
        rp_hd_map_set(p, len, 0);
        rp_hd_os_unmap(p, len);
        return;
    }
    pthread_mutex_lock(&space_lock);
    uint32_t i = add_span(p, (char *)p + len);
    pthread_mutex_unlock(&space_lock);
    if (i == SPAN_MAX)
        unreserve(p, len);
}

size_t rp_hd_space_spans(size_t *bytes)
{
    pthread_mutex_lock(&space_lock);
    size_t n = nspans;
    if (bytes) {
        *bytes = 0;
        for (uint32_t i = 0; i < nspans; i++)
            *bytes += (size_t)(spans[i].end - spans[i].start);
    }
    pthread_mutex_unlock(&space_lock);
    return n;
}

void rp_hd_space_fork(int phase)
{
    rp_hd_lock_fork(&space_lock, phase);
}
