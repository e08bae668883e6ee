/*
 * test_release.c - return of memory to the OS (libreap/src/base/heap.c,
 * release_excess): after a peak of small objects is freed, the global heap
 * keeps at most REAP_RETAIN bytes of empty superblocks and unmaps the
 * rest once they have stayed empty for the decay period, so both the bytes
 * held and the resident set fall; rp_hoard_trim() (malloc_trim) forces
 * it; and no empty superblock waits past REAP_RETAIN_MAX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    rp_hd_init();
    return 0;
}

static size_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu %lu", &size, &resident), 2);
    fclose(f);
    return resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* Allocates PEAK bytes of 1000-byte blocks, frees them all and flushes
 * this thread's cache; fills *peak and *after. */
static void peak_and_free(rp_hoard_stats_t *peak, size_t *rss_peak, rp_hoard_stats_t *after,
                          size_t *rss_after)
{
    size_t n = PEAK / 1024;
    char **a = calloc(n, sizeof *a);
    for (size_t i = 0; i < n; i++) {
        a[i] = rp_hoard_malloc(1000);
        memset(a[i], 1, 1000); /* make the pages resident */
    }
    rp_hoard_get_stats(peak);
    *rss_peak = rss_bytes();
    assert_true(peak->held >= PEAK * 9 / 10);
    for (size_t i = 0; i < n; i++)
        rp_hoard_free(a[i]);
    rp_hd_tcache_flush_all(rp_hd_tls);
    rp_hoard_get_stats(after);
    *rss_after = rss_bytes();
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
    assert_true(rss_bytes() + PEAK / 2 < rss_peak);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peak_then_release),
        cmocka_unit_test(test_decay_then_trim),
        cmocka_unit_test(test_retain_max),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
