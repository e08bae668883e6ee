/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_release.c - return of memory to the OS (libreap/src/base/heap.c,
 * release_excess): after a peak of small objects is freed, the global heap
 * keeps at most REAP_RETAIN bytes of empty superblocks and gives the
 * rest back (their pages) once they have stayed empty for the decay
 * period, so both the bytes held and the peak's resident pages fall;
 * rp_hoard_trim() (malloc_trim) forces it, and gives back the pages of
 * free blocks inside superblocks still in use, which the allocator still
 * holds; no empty superblock waits past REAP_RETAIN_MAX; and, with no
 * release thread, a heap whose last thread exits gives back at once.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/hoard.h"

#define PEAK (32u << 20)

static int setup(void **state)
{
    (void)state;
    setenv("REAP_SUPERBLOCK", "64k", 1);
    setenv("REAP_RETAIN", "256k", 1);
    setenv("REAP_K", "2", 1);
    setenv("REAP_DECAY_MS", "0", 1);
    setenv("REAP_RETAIN_MAX", "1g", 1);
    /* the in-line clocks alone: these tests change rp_hd_opt as they go,
     * which the release thread reads (test_release_thread.c tests it) */
    setenv("REAP_RELEASE", "off", 1);
    rp_hd_init();
    return 0;
}

/* The superblocks that held the last peak, and how many. */
static rp_hd_sb_t *peak_sb[PEAK / (64u << 10) + 64];
static size_t npeak_sb;

/* Bytes of the last peak's superblocks that are resident (mincore; an
 * unmapped one counts nothing).  Not the process's RSS: under
 * ThreadSanitizer that also holds the tool's shadow of those pages, which
 * it frees when memory is unmapped but not when its pages are returned
 * with madvise, as the allocator returns them. */
static size_t peak_resident(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), s = rp_hd_opt.sb_size, n = s / page, pages = 0;
    unsigned char *vec = malloc(n);
    assert_non_null(vec);
    for (size_t i = 0; i < npeak_sb; i++) {
        if (mincore(peak_sb[i], s, vec) != 0) {
            assert_int_equal(errno, ENOMEM);
            continue;
        }
        for (size_t j = 0; j < n; j++)
            pages += vec[j] & 1;
    }
    free(vec);
    return pages * page;
}

/* Adds the superblock of p to the peak's, once. */
static void note_peak_sb(void *p)
{
    rp_hd_sb_t *sb = rp_hd_hdr(p);
    for (size_t j = npeak_sb; j-- > 0;)
        if (peak_sb[j] == sb)
            return;
    assert_true(npeak_sb < sizeof peak_sb / sizeof peak_sb[0]);
    peak_sb[npeak_sb++] = sb;
}

/* Allocates n blocks of size bytes, each filled with (i & 0x7f) + 1 (so
 * its pages are resident), and notes their superblocks as the peak's. */
static char **peak_alloc(size_t n, size_t size)
{
    char **a = calloc(n, sizeof *a);
    assert_non_null(a);
    npeak_sb = 0;
    for (size_t i = 0; i < n; i++) {
        a[i] = rp_hoard_malloc(size);
        assert_non_null(a[i]);
        memset(a[i], (int)(i & 0x7f) + 1, size);
        note_peak_sb(a[i]);
    }
    return a;
}

/* Allocates PEAK bytes of 1000-byte blocks, frees them all and flushes
 * this thread's cache; fills *peak and *after, and the bytes of the
 * peak's superblocks resident at the peak and after. */
static void peak_and_free(rp_hoard_stats_t *peak, size_t *rss_peak, rp_hoard_stats_t *after,
                          size_t *rss_after)
{
    size_t n = PEAK / 1024;
    char **a = peak_alloc(n, 1000);
    rp_hoard_get_stats(peak);
    *rss_peak = peak_resident();
    assert_true(peak->held >= PEAK * 9 / 10);
    assert_true(*rss_peak >= PEAK * 9 / 10);
    for (size_t i = 0; i < n; i++)
        rp_hoard_free(a[i]);
    rp_hd_tcache_flush_all(rp_hd_tls);
    rp_hoard_get_stats(after);
    *rss_after = peak_resident();
    free(a);
}

/* With no decay, superblocks go back as soon as they have been seen empty. */
static void test_peak_then_release(void **state)
{
    (void)state;
    rp_hoard_stats_t peak, after;
    size_t rss_peak, rss_after;
    peak_and_free(&peak, &rss_peak, &after, &rss_after);
    assert_true(after.returned >= peak.returned + PEAK / 2);
    assert_true(after.held < peak.held / 4);
    assert_true(after.to_global > peak.to_global);
    assert_true(rss_after + PEAK / 2 < rss_peak);
    rp_hoard_trim();
    rp_hoard_get_stats(&after);
    assert_true(after.global_empty <= 256u << 10);
}

/* With a long decay, freed superblocks stay for reuse until trimmed. */
static void test_decay_then_trim(void **state)
{
    (void)state;
    rp_hd_opt.decay_ms = 3600000;
    rp_hoard_stats_t peak, after;
    size_t rss_peak, rss_after;
    peak_and_free(&peak, &rss_peak, &after, &rss_after);
    assert_true(after.global_empty >= PEAK / 2);
    assert_true(after.returned < peak.returned + PEAK / 4);
    rp_hoard_trim();
    rp_hoard_stats_t trimmed;
    rp_hoard_get_stats(&trimmed);
    assert_true(trimmed.global_empty <= 256u << 10);
    assert_true(trimmed.returned >= after.returned + PEAK / 2);
    assert_true(peak_resident() + PEAK / 2 < rss_peak);
}

/* Past retain_max, empties go back at once, decay or not. */
static void test_retain_max(void **state)
{
    (void)state;
    rp_hd_opt.decay_ms = 3600000;
    rp_hd_opt.retain_max = 2u << 20;
    rp_hoard_stats_t peak, after;
    size_t rss_peak, rss_after;
    peak_and_free(&peak, &rss_peak, &after, &rss_after);
    assert_true(after.global_empty <= (2u << 20));
    assert_true(after.returned >= peak.returned + PEAK / 2);
}

/* A trim also gives back the pages of free blocks inside superblocks that
 * still hold live ones: after every other 8 KiB block of a peak is freed,
 * no superblock empties, yet most of the freed pages leave the resident
 * set, while the live blocks keep their bytes and the freed ones can be
 * handed out and written again. */
static void test_trim_purges_free_blocks(void **state)
{
    (void)state;
    size_t total = PEAK / 2, n = total / 8192;
    char **a = peak_alloc(n, 8000);
    size_t rss_peak = peak_resident();
    for (size_t i = 0; i < n; i += 2) {
        rp_hoard_free(a[i]);
        a[i] = NULL;
    }
    rp_hd_tcache_flush_all(rp_hd_tls);
    size_t rss_freed = peak_resident();
    rp_hoard_stats_t before, after;
    rp_hoard_get_stats(&before);
    rp_hoard_trim();
    rp_hoard_get_stats(&after);
    size_t rss_trimmed = peak_resident();
    print_message("8 KiB blocks, half freed: resident %zu KiB at the peak, %zu after "
                  "the frees, %zu after the trim\n",
                  rss_peak >> 10, rss_freed >> 10, rss_trimmed >> 10);
    /* A freed block's first page holds its link and key, and its last is
     * shared with the next block: one page in two of the freed half can
     * go, about total / 4. */
    assert_true(rss_freed + total / 8 > rss_peak);
    assert_true(rss_trimmed + total / 8 < rss_freed);
    assert_true(after.returned >= before.returned + total / 8);
    for (size_t i = 1; i < n; i += 2)
        for (size_t j = 0; j < 8000; j += 1000)
            assert_int_equal(a[i][j], (char)((i & 0x7f) + 1));
    for (size_t i = 0; i < n; i += 2) {
        a[i] = rp_hoard_malloc(8000);
        assert_non_null(a[i]);
        memset(a[i], 0x55, 8000);
    }
    /* The pages went back in place: the superblocks are still held, and
     * handing their blocks out again carves nothing, so held may not have
     * fallen below what is handed out (it did, by the purged bytes, at
     * every trim). */
    rp_hoard_stats_t reused;
    rp_hoard_get_stats(&reused);
    print_message("held %zu KiB, in use %zu KiB after the freed blocks are used again\n",
                  (size_t)(reused.held >> 10), (size_t)(reused.in_use >> 10));
    assert_true(reused.held >= reused.in_use);
    for (size_t i = 0; i < n; i++)
        rp_hoard_free(a[i]);
    rp_hd_tcache_flush_all(rp_hd_tls);
    free(a);
}

/* Every heap, the global one included, passes the invariant walker. */
static void assert_heaps_consistent(void)
{
    for (uint32_t i = 0; i <= rp_hd_nheaps; i++)
        assert_true(rp_hd_heap_check(&rp_hd_heaps[i]));
}

static bool page_resident(const void *p)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char v = 0;
    assert_int_equal(mincore((void *)((uintptr_t)p & ~(uintptr_t)(page - 1)), page, &v), 0);
    return v & 1;
}

/* A trim gives back free blocks of a page and more whole (hoard.h,
 * RP_HD_PARK_MAX): the page where a free block starts goes too, once the
 * block before it is free as well, where it used to stay for the free
 * list's link and key.  In every superblock of 8000-byte blocks all but
 * the last block are freed; the blocks go out again afterwards. */
static void test_trim_parks_free_blocks(void **state)
{
    (void)state;
    size_t n = 64, size = rp_hd_sc.size[rp_hd_sc_of(8000)];
    char **a = peak_alloc(n, 8000);
    bool *live = calloc(n, sizeof *live);
    assert_non_null(live);
    for (size_t i = 0; i < n; i++) { /* the highest block of each superblock stays */
        live[i] = true;
        for (size_t j = 0; j < n; j++)
            if (rp_hd_hdr(a[j]) == rp_hd_hdr(a[i]) && a[j] > a[i])
                live[i] = false;
    }
    for (size_t i = 0; i < n; i++)
        if (!live[i])
            rp_hoard_free(a[i]);
    rp_hoard_trim(); /* flushes this thread's cache first */
    assert_heaps_consistent();
    size_t starts = 0, resident = 0;
    for (size_t i = 0; i < n; i++) {
        if (live[i] || (size_t)(a[i] - (char *)rp_hd_hdr(a[i])) < RP_HD_HDR + size)
            continue; /* the first block's page holds the header */
        starts++;
        resident += page_resident(a[i]);
    }
    print_message("blocks of %zu bytes: %zu of %zu free blocks that follow a free one "
                  "keep the page they start in\n", size, resident, starts);
    assert_true(starts >= n / 2);
    assert_int_equal(resident, 0);
    for (size_t i = 0; i < n; i++)
        if (live[i])
            for (size_t j = 0; j < 8000; j += 1000)
                assert_int_equal(a[i][j], (char)((i & 0x7f) + 1));
    for (size_t i = 0; i < n; i++) /* the parked blocks go out again, distinct */
        if (!live[i]) {
            a[i] = rp_hoard_malloc(8000);
            assert_non_null(a[i]);
            memset(a[i], (int)(i & 0x7f) + 1, 8000);
        }
    assert_heaps_consistent();
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < 8000; j += 1000)
            assert_int_equal(a[i][j], (char)((i & 0x7f) + 1));
    for (size_t i = 0; i < n; i++)
        rp_hoard_free(a[i]);
    rp_hd_tcache_flush_all(rp_hd_tls);
    free(live);
    free(a);
}

/* A thread that allocates a peak and a large object, frees them and
 * exits, the last of its heap. */
static void *exit_worker(void *arg)
{
    (void)arg;
    size_t n = PEAK / 1024;
    char **a = peak_alloc(n, 1000);
    for (size_t i = 0; i < n; i++)
        rp_hoard_free(a[i]);
    free(a);
    char *big = rp_hoard_malloc(1u << 20);
    if (!big)
        return NULL;
    memset(big, 1, 1u << 20);
    rp_hoard_free(big); /* into the large cache */
    return big;
}

/* Without the release thread no clock runs again for a heap whose last
 * thread has exited, so its exit gives back at once: its empties go to
 * the global heap, which keeps REAP_RETAIN of them, their pages given
 * back too, and the large cache goes. */
static void test_exit_gives_back(void **state)
{
    (void)state;
    rp_hd_opt.decay_ms = 3600000; /* no clock gives anything back */
    rp_hd_opt.retain_max = 1u << 30;
    rp_hoard_stats_t before, after;
    rp_hoard_get_stats(&before);
    pthread_t t;
    void *ok = NULL;
    assert_int_equal(pthread_create(&t, NULL, exit_worker, NULL), 0);
    assert_int_equal(pthread_join(t, &ok), 0);
    assert_non_null(ok);
    rp_hoard_get_stats(&after);
    assert_true(after.returned >= before.returned + PEAK / 2);
    assert_true(after.global_empty <= 256u << 10);
    assert_true(peak_resident() < PEAK / 8);
    assert_int_equal(after.large_cached, 0);
    assert_heaps_consistent();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peak_then_release),
        cmocka_unit_test(test_decay_then_trim),
        cmocka_unit_test(test_retain_max),
        cmocka_unit_test(test_trim_purges_free_blocks),
        cmocka_unit_test(test_trim_parks_free_blocks),
        cmocka_unit_test(test_exit_gives_back),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
