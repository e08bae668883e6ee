/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_sizeclass.c - unit tests of the base allocator's size classes
 * (libreap/src/base/sizeclass.c), for the default S and for 16 KiB and
 * 1 MiB superblocks: exact small classes, spacing at most 1.2, S/2 last,
 * and lookups that return the smallest class that fits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/hoard.h"

static void check_table(size_t sb)
{
    rp_hd_sc_init(sb);
    assert_true(rp_hd_sc.n >= 10);
    assert_true(rp_hd_sc.n <= RP_HD_MAX_CLASSES);
    for (uint32_t c = 0; c < rp_hd_sc.n; c++) {
        uint32_t s = rp_hd_sc.size[c];
        assert_int_equal(s % 16, 0);
        if (s <= 128)
            assert_int_equal(s, 16 * (c + 1));
        if (c > 0) {
            uint32_t prev = rp_hd_sc.size[c - 1];
            assert_true(s > prev);
            if (prev >= 128)
                assert_true((uint64_t)s * 5 <= (uint64_t)prev * 6); /* s <= 1.2 prev */
        }
        if (s >= 1024)
            assert_int_equal(s % 64, 0);
        assert_true(rp_hd_sc.nblocks[c] >= 1);
        assert_true(RP_HD_HDR + (size_t)rp_hd_sc.nblocks[c] * s <= sb);
    }
    assert_int_equal(rp_hd_sc.size[rp_hd_sc.n - 1], sb / 2);
    for (size_t p = 16; p <= sb / 2; p *= 2) /* reap chunks fit exactly */
        assert_int_equal(rp_hd_sc.size[rp_hd_sc_of(p)], p);
}

static void test_tables(void **state)
{
    (void)state;
    check_table(16u << 10);
    check_table(64u << 10);
    check_table(256u << 10);
    check_table(1u << 20);
}

/* Every size maps to the smallest class holding it, for every S the
 * options accept (the lookup tables are rebuilt for each). */
static void test_lookup(void **state)
{
    (void)state;
    for (size_t sb = 16u << 10; sb <= RP_HD_MAX_SB; sb *= 2) {
        rp_hd_sc_init(sb);
        for (size_t n = 0; n <= sb / 2; n++) {
            uint32_t c = rp_hd_sc_of(n);
            assert_true(c < rp_hd_sc.n);
            assert_true(rp_hd_sc.size[c] >= n);
            if (c > 0)
                assert_true(rp_hd_sc.size[c - 1] < n);
        }
    }
}

static void test_aligned64(void **state)
{
    (void)state;
    rp_hd_sc_init(64u << 10);
    for (uint32_t c = 0; c < rp_hd_sc.n; c++) {
        uint32_t a = rp_hd_sc.aligned64[c];
        assert_true(a >= c);
        assert_int_equal(rp_hd_sc.size[a] % 64, 0);
        for (uint32_t k = c; k < a; k++)
            assert_int_not_equal(rp_hd_sc.size[k] % 64, 0);
    }
}

/* Internal fragmentation of the classes above 128 bytes is bounded by 1.2. */
static void test_internal_fragmentation(void **state)
{
    (void)state;
    rp_hd_sc_init(256u << 10);
    for (size_t n = 129; n <= (128u << 10); n += 7) {
        uint32_t s = rp_hd_sc.size[rp_hd_sc_of(n)];
        assert_true((uint64_t)s * 5 <= (uint64_t)n * 6 + 5 * 16);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_aligned64),
        cmocka_unit_test(test_internal_fragmentation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
