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
    rp_hoard_trim(); /* no cached neighbour for p to join */
    void *p = rp_hoard_malloc(200000);
    rp_hoard_free(p);
    uint64_t maps = atomic_load(&rp_hd_cnt.maps);
    void *q = rp_hoard_malloc(190000);
    assert_ptr_equal(q, p);
    assert_int_equal(atomic_load(&rp_hd_cnt.maps), maps);
    rp_hoard_free(q);
    /* ... and for a much smaller one, split off it (the rest stays cached) */
    void *r = rp_hoard_malloc(40000);
    assert_ptr_equal(r, p);
    assert_int_equal(rp_hoard_usable_size(r), 40960);
    assert_int_equal(atomic_load(&rp_hd_cnt.maps), maps);
    rp_hoard_free(r);
}

/* A request takes the smallest cached mapping that fits: four mappings
 * freed out of order of size (sizes no other test uses), each with a live
 * object after it, come back to the requests they fit best. */
static void test_large_best_fit(void **state)
{
    (void)state;
    size_t sizes[] = {820000, 520000, 700000, 610000};
    void *p[4], *apart[4];
    rp_hoard_trim(); /* no cached mapping of another test to split or fit */
    for (size_t i = 0; i < 4; i++) { /* kept apart: freed neighbours join */
        assert_non_null(p[i] = rp_hoard_malloc(sizes[i]));
        assert_non_null(apart[i] = rp_hoard_malloc(100000));
    }
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
    for (size_t i = 0; i < 4; i++)
        rp_hoard_free(apart[i]);
}

/* A mapping more than 1.5 times the request still serves it, split: the object keeps its request's superblocks, the pages
 * of the last one past the request read as zero, and the rest is a
 * cached mapping of its own whose pages were neither given back nor
 * faulted again.  Freed, the two pieces are one mapping again, which
 * serves the first size whole.  Nothing new is mapped throughout. */
static void test_large_reuse_splits_and_joins(void **state)
{
    (void)state;
    const size_t big = 2u << 20, page = rp_hd_os_page(), s = rp_hd_opt.sb_size;
    rp_hoard_trim(); /* no mapping of another test fits better */
    unsigned char *p = rp_hoard_malloc(big);
    assert_non_null(p);
    size_t usable = rp_hoard_usable_size(p);
    memset(p, 0x5a, usable);
    rp_hoard_free(p);

    uint64_t maps = atomic_load(&rp_hd_cnt.maps);
    uint64_t returned = atomic_load(&rp_hd_cnt.returned);
    size_t small = big / 3 + 100; /* 3x: over 1.5x */
    unsigned char *q = rp_hoard_malloc(small);
    assert_ptr_equal(q, p);
    size_t kept = (small + page - 1) & ~(page - 1);
    size_t keep = (page + kept + s - 1) & ~(s - 1); /* q's mapping, its header page included */
    assert_int_equal(rp_hoard_usable_size(q), kept);
    assert_int_equal(q[kept - 1], 0x5a); /* the request's pages: as they were */
    for (size_t i = kept; i < keep - page; i += page / 2)
        assert_int_equal(q[i], 0); /* its last superblock's rest: purged */
    assert_int_equal(atomic_load(&rp_hd_cnt.returned), returned + (keep - page - kept));

    /* the rest, a mapping of its own, serves a request that fits it */
    size_t rest = usable - keep; /* the bytes of p past the rest's header page */
    unsigned char *r = rp_hoard_malloc(rest);
    assert_ptr_equal(r, p + keep);
    assert_true(rp_hoard_usable_size(r) >= rest); /* and the superblock rounding after p */
    assert_int_equal(r[0], 0x5a); /* resident: neither returned nor faulted anew */
    assert_int_equal(r[rest - 1], 0x5a);
    assert_int_equal(atomic_load(&rp_hd_cnt.returned), returned + (keep - page - kept));
    memset(q, 0x11, kept);
    memset(r, 0x22, rest);

    /* freed in either order, they join: the whole size fits again */
    rp_hoard_free(r);
    rp_hoard_free(q);
    unsigned char *t = rp_hoard_malloc(big);
    assert_ptr_equal(t, p);
    assert_true(rp_hoard_usable_size(t) >= big);
    assert_int_equal(t[keep], 0x22); /* the rest's pages, joined back */
    assert_int_equal(atomic_load(&rp_hd_cnt.maps), maps);
    rp_hoard_free(t);
}

/* After a split and a join of a mapping longer than the address map's
 * runs (127 granules), every granule leads to the header of the mapping
 * it now belongs to. */
static void all_lead_to(const char *from, const char *end, const void *hdr)
{
    size_t s = rp_hd_opt.sb_size;
    for (const char *g = from; g < end; g += s)
        assert_ptr_equal(rp_hd_map_header(g + 100), hdr);
}

static void test_large_map_after_split_and_join(void **state)
{
    (void)state;
    const size_t s = rp_hd_opt.sb_size, page = rp_hd_os_page();
    void *live = rp_hoard_malloc(40u << 20); /* the cache may hold 20 MiB */
    assert_non_null(live);
    rp_hoard_trim();
    char *p = rp_hoard_malloc(12u << 20), *h = p - page;
    assert_non_null(p);
    rp_hoard_free(p);
    uint64_t maps = atomic_load(&rp_hd_cnt.maps);
    char *q = rp_hoard_malloc(1u << 20); /* 17 granules of 193 */
    assert_ptr_equal(q, p);
    size_t keep = ((1u << 20) + page + s - 1) & ~(s - 1), len = ((12u << 20) + page + s - 1) & ~(s - 1);
    all_lead_to(h, h + keep, h);
    all_lead_to(h + keep, h + len, h + keep);
    char *r = rp_hoard_malloc(len - keep - page);
    assert_ptr_equal(r, h + keep + page);
    rp_hoard_free(q);
    rp_hoard_free(r);
    all_lead_to(h, h + len, h);
    /* split again, and freed the other way round: the rest joins q */
    q = rp_hoard_malloc(1u << 20);
    r = rp_hoard_malloc(len - keep - page);
    assert_ptr_equal(q, p);
    assert_ptr_equal(r, h + keep + page);
    rp_hoard_free(r);
    rp_hoard_free(q);
    all_lead_to(h, h + len, h);
    char *t = rp_hoard_malloc(len - page); /* the whole again */
    assert_ptr_equal(t, p);
    assert_int_equal(atomic_load(&rp_hd_cnt.maps), maps);
    rp_hoard_free(t);
    rp_hoard_free(live);
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
 * may hold as much as they take, so that a program replacing its large
 * buffers reuses them instead of faulting new ones in (the 16 MiB block
 * is four times REAP_LARGE_CACHE; eight of 8 MiB stay live).  A block of
 * 48 MiB, more than half the 64 MiB live, is kept too; one of 96 MiB,
 * more than all of it, goes back. */
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
    rp_hoard_trim();
    void *big = rp_hoard_malloc(48u << 20);
    assert_non_null(big);
    returned = atomic_load(&rp_hd_cnt.returned);
    rp_hoard_free(big);
    assert_int_equal(atomic_load(&rp_hd_cnt.returned), returned); /* kept */
    rp_hoard_trim();
    void *huge = rp_hoard_malloc(96u << 20);
    assert_non_null(huge);
    returned = atomic_load(&rp_hd_cnt.returned);
    rp_hoard_free(huge);
    assert_true(atomic_load(&rp_hd_cnt.returned) >= returned + (96u << 20)); /* back */
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
        cmocka_unit_test(test_large_reuse_splits_and_joins),
        cmocka_unit_test(test_large_map_after_split_and_join),
        cmocka_unit_test(test_large_returned),
        cmocka_unit_test(test_large_cache_follows_live),
        cmocka_unit_test(test_memalign),
        cmocka_unit_test(test_base_interface),
        cmocka_unit_test(test_stats_print),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
