/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_large.c - unit tests of large objects (libreap/src/base/large.c)
 * and of the aligned entry points: objects above S/2 come straight from
 * the OS with their header found from the address, honour any power-of-two
 * alignment, are cached for reuse up to the cache limit, and go back to
 * the OS beyond it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/base.h"
#include "base/hoard.h"

static int setup(void **state)
{
    (void)state;
    setenv("REAP_SUPERBLOCK", "64k", 1);
    setenv("REAP_LARGE_CACHE", "4m", 1);
    rp_hd_init();
    return 0;
}

static void test_large_basic(void **state)
{
    (void)state;
    size_t sizes[] = {32769, 65536, 100000, 1u << 20, (3u << 20) + 5};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t before = rp_hd_large_in_use();
        char *p = rp_hoard_malloc(sizes[i]);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        rp_hd_sb_t *h = rp_hd_hdr(p);
        assert_int_equal(h->magic, RP_HD_LARGE_MAGIC);
        assert_true(rp_hoard_usable_size(p) >= sizes[i]);
        assert_true(rp_hd_large_in_use() > before);
        memset(p, 0x5a, rp_hoard_usable_size(p));
        rp_hoard_free(p);
        assert_int_equal(rp_hd_large_in_use(), before);
    }
}

/* A freed mapping is reused for the next request of about its size. */
static void test_large_cache(void **state)
{
    (void)state;
    void *p = rp_hoard_malloc(200000);
    rp_hoard_free(p);
    uint64_t maps = atomic_load(&rp_hd_cnt.maps);
    void *q = rp_hoard_malloc(190000);
    assert_ptr_equal(q, p);
    assert_int_equal(atomic_load(&rp_hd_cnt.maps), maps);
    rp_hoard_free(q);
    /* ... but not for one under a quarter of its size, which would waste it. */
    void *r = rp_hoard_malloc(40000);
    assert_ptr_not_equal(r, p);
    rp_hoard_free(r);
}

/* A request takes the smallest cached mapping that fits: four mappings
 * freed out of order of size (sizes no other test uses) come back to the
 * requests they fit best. */
static void test_large_best_fit(void **state)
{
    (void)state;
    size_t sizes[] = {820000, 520000, 700000, 610000};
    void *p[4];
    for (size_t i = 0; i < 4; i++)
        assert_non_null(p[i] = rp_hoard_malloc(sizes[i]));
    for (size_t i = 0; i < 4; i++)
        rp_hoard_free(p[i]);
    void *q600 = rp_hoard_malloc(600000); /* fits 610000, 700000, 820000 */
    void *q690 = rp_hoard_malloc(690000); /* fits 700000, 820000 */
    void *q500 = rp_hoard_malloc(500000); /* fits 520000, 820000 */
    void *q800 = rp_hoard_malloc(800000); /* fits 820000 */
    assert_ptr_equal(q600, p[3]);
    assert_ptr_equal(q690, p[2]);
    assert_ptr_equal(q500, p[1]);
    assert_ptr_equal(q800, p[0]);
    rp_hoard_free(q600);
    rp_hoard_free(q690);
    rp_hoard_free(q500);
    rp_hoard_free(q800);
}

/* A mapping more than 1.5 times the request still serves it (up to four
 * times), but the pages past the request go back first: they read as
 * zero, the OS has them (returned), and nothing new is mapped.  Within
 * 1.5 times, the mapping comes back as it was. */
static void test_large_reuse_purges_tail(void **state)
{
    (void)state;
    const size_t big = 2u << 20, page = rp_hd_os_page();
    rp_hoard_trim(); /* no mapping of another test fits better */
    unsigned char *p = rp_hoard_malloc(big);
    assert_non_null(p);
    size_t usable = rp_hoard_usable_size(p);
    memset(p, 0x5a, usable);
    rp_hoard_free(p);

    uint64_t maps = atomic_load(&rp_hd_cnt.maps);
    uint64_t returned = atomic_load(&rp_hd_cnt.returned);
    size_t small = big / 3 + 100; /* 3x: over 1.5x, under 4x */
    unsigned char *q = rp_hoard_malloc(small);
    assert_ptr_equal(q, p);
    assert_int_equal(atomic_load(&rp_hd_cnt.maps), maps);
    size_t kept = (small + page - 1) & ~(page - 1);
    assert_int_equal(atomic_load(&rp_hd_cnt.returned), returned + (usable - kept));
    assert_int_equal(q[kept - 1], 0x5a); /* the request's pages: as they were */
    for (size_t i = kept; i < usable; i += page / 2)
        assert_int_equal(q[i], 0);
    assert_int_equal(rp_hoard_usable_size(q), usable);
    memset(q, 0x5a, usable); /* all of it can be used, and faults back in */
    rp_hoard_free(q);

    returned = atomic_load(&rp_hd_cnt.returned);
    unsigned char *r = rp_hoard_malloc(big - big / 4); /* within 1.5x */
    assert_ptr_equal(r, p);
    assert_int_equal(atomic_load(&rp_hd_cnt.returned), returned);
    assert_int_equal(r[usable - 1], 0x5a);
    rp_hoard_free(r);
}

/* Beyond the cache limit, freed mappings go back to the OS at once. */
static void test_large_returned(void **state)
{
    (void)state;
    uint64_t returned = atomic_load(&rp_hd_cnt.returned);
    uint64_t mapped = atomic_load(&rp_hd_cnt.mapped);
    void *p = rp_hoard_malloc(16u << 20);
    assert_non_null(p);
    assert_true(atomic_load(&rp_hd_cnt.mapped) >= mapped + (16u << 20));
    rp_hoard_free(p);
    assert_true(atomic_load(&rp_hd_cnt.returned) >= returned + (16u << 20));
    assert_int_equal(atomic_load(&rp_hd_cnt.mapped), mapped);
}

/* ... unless the program keeps large objects of its own: then the cache
 * may hold half of what they take, so that a program replacing its large
 * buffers reuses them instead of faulting new ones in (the 16 MiB block
 * is four times REAP_LARGE_CACHE; eight of 8 MiB stay live). */
static void test_large_cache_follows_live(void **state)
{
    (void)state;
    void *live[8];
    for (size_t i = 0; i < 8; i++)
        assert_non_null(live[i] = rp_hoard_malloc(8u << 20));
    void *p = rp_hoard_malloc(16u << 20);
    assert_non_null(p);
    uint64_t returned = atomic_load(&rp_hd_cnt.returned);
    uint64_t maps = atomic_load(&rp_hd_cnt.maps);
    rp_hoard_free(p);
    assert_int_equal(atomic_load(&rp_hd_cnt.returned), returned); /* kept */
    void *q = rp_hoard_malloc((15u << 20) + 12345);
    assert_ptr_equal(q, p); /* and used again, nothing mapped */
    assert_int_equal(atomic_load(&rp_hd_cnt.maps), maps);
    rp_hoard_free(q);
    for (size_t i = 0; i < 8; i++)
        rp_hoard_free(live[i]);
    rp_hoard_trim(); /* nothing live: what the cache kept goes back */
    assert_int_equal(rp_hd_large_cached(), 0);
}

static void test_memalign(void **state)
{
    (void)state;
    size_t aligns[] = {16, 32, 64, 128, 256, 4096, 65536, 1u << 20, 4u << 20};
    size_t sizes[] = {1, 24, 100, 1000, 5000, 30000, 70000, 1u << 20};
    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            char *p = rp_hoard_memalign(aligns[i], sizes[j]);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % aligns[i], 0);
            size_t usable = rp_hoard_usable_size(p);
            assert_true(usable >= sizes[j]);
            memset(p, 0x33, usable);
            rp_hoard_free(p);
        }
}

/* rp_base_alloc: 64-byte aligned, at least rp_base_usable(size) bytes. */
static void test_base_interface(void **state)
{
    (void)state;
    size_t sizes[] = {1, 64, 100, 1000, 8192, 16384, 65536, 1u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t usable = rp_base_usable(sizes[i]);
        assert_true(usable >= sizes[i]);
        char *p = rp_base_alloc(sizes[i]);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % RP_BASE_ALIGN, 0);
        assert_true(rp_hoard_usable_size(p) >= usable);
        memset(p, 0x11, usable);
        rp_base_free(p, sizes[i]);
    }
    for (size_t chunk = 8192; chunk <= (1u << 20); chunk *= 2) /* reap chunks: exact */
        assert_int_equal(rp_base_usable(chunk), chunk);
    rp_base_stats_t st;
    rp_base_get_stats(&st);
    assert_true(st.held >= st.in_use);
    assert_true(st.peak_held >= st.held);
    assert_true(st.os_maps >= 1);
}

static void append(void *arg, const char *text)
{
    strncat(arg, text, 4095 - strlen(arg));
}

/* The statistics print as text and as one JSON object from one table. */
static void test_stats_print(void **state)
{
    (void)state;
    void *p = rp_hoard_malloc(100);
    rp_hoard_stats_t st;
    rp_hoard_get_stats(&st);
    assert_true(st.in_use >= 100);
    assert_true(st.held >= st.in_use);
    assert_true(st.nheaps >= 2);
    uint64_t sbs = 0;
    for (uint32_t i = 0; i < st.nheaps; i++)
        sbs += st.sb_per_heap[i];
    assert_true(sbs >= 1);
    char json[4096] = "", text[4096] = "";
    rp_hoard_stats_print(&st, true, append, json);
    rp_hoard_stats_print(&st, false, append, text);
    assert_int_equal(json[0], '{');
    assert_int_equal(json[strlen(json) - 1], '}');
    assert_non_null(strstr(json, "\"in_use\":"));
    assert_non_null(strstr(json, "\"returned\":"));
    assert_non_null(strstr(json, "\"sb_per_heap\":["));
    assert_non_null(strstr(text, "in_use"));
    assert_non_null(strstr(text, "from_global"));
    rp_hoard_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_basic),
        cmocka_unit_test(test_large_cache),
        cmocka_unit_test(test_large_best_fit),
        cmocka_unit_test(test_large_reuse_purges_tail),
        cmocka_unit_test(test_large_returned),
        cmocka_unit_test(test_large_cache_follows_live),
        cmocka_unit_test(test_memalign),
        cmocka_unit_test(test_base_interface),
        cmocka_unit_test(test_stats_print),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
