/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_superblock.c - unit tests of one superblock (libreap/src/base/
 * superblock.c and the inline pop/push of hoard.h): blocks inside the
 * superblock, distinct, aligned, handed out LIFO, fullness groups by use,
 * and block_of() for interior pointers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/hoard.h"

#define SB (64u << 10)

static rp_hd_sb_t *new_sb(uint32_t cls)
{
    void *mem = NULL;
    assert_int_equal(posix_memalign(&mem, SB, SB), 0);
    rp_hd_sb_format(mem, cls);
    return mem;
}

static void test_pop_all(void **state)
{
    (void)state;
    rp_hd_sc_init(SB);
    for (uint32_t cls = 0; cls < rp_hd_sc.n; cls += 3) {
        rp_hd_sb_t *sb = new_sb(cls);
        uint32_t n = sb->nblocks, size = sb->size;
        char **got = calloc(n, sizeof *got);
        for (uint32_t i = 0; i < n; i++) {
            got[i] = rp_hd_sb_pop(sb);
            assert_non_null(got[i]);
            assert_true(got[i] >= (char *)sb + RP_HD_HDR);
            assert_true(got[i] + size <= (char *)sb + SB);
            assert_int_equal(((uintptr_t)got[i]) % 16, 0);
            if (size % 64 == 0)
                assert_int_equal(((uintptr_t)got[i]) % 64, 0);
            if (i > 0)
                assert_true(got[i] >= got[i - 1] + size); /* distinct, no overlap */
            memset(got[i], 0xab, size);
        }
        assert_null(rp_hd_sb_pop(sb));
        assert_int_equal(sb->used, n);
        assert_int_equal(rp_hd_sb_group(sb), RP_HD_FULL);
        free(got);
        free(sb);
    }
}

static void test_lifo(void **state)
{
    (void)state;
    rp_hd_sc_init(SB);
    rp_hd_sb_t *sb = new_sb(rp_hd_sc_of(100));
    void *a = rp_hd_sb_pop(sb), *b = rp_hd_sb_pop(sb), *c = rp_hd_sb_pop(sb);
    rp_hd_sb_push(sb, a);
    rp_hd_sb_push(sb, c);
    assert_int_equal(sb->used, 1);
    assert_ptr_equal(rp_hd_sb_pop(sb), c); /* most recently freed first */
    assert_ptr_equal(rp_hd_sb_pop(sb), a);
    void *d = rp_hd_sb_pop(sb); /* then never-used memory */
    assert_true((char *)d > (char *)c);
    (void)b;
    free(sb);
}

static void test_groups(void **state)
{
    (void)state;
    rp_hd_sc_init(SB);
    rp_hd_sb_t *sb = new_sb(rp_hd_sc_of(256));
    uint32_t n = sb->nblocks;
    void **got = calloc(n, sizeof *got);
    for (uint32_t i = 0; i < n; i++) {
        got[i] = rp_hd_sb_pop(sb);
        uint32_t used = i + 1;
        uint8_t g = rp_hd_sb_group(sb);
        if (used == n)
            assert_int_equal(g, RP_HD_FULL);
        else if (used * 4 < n)
            assert_int_equal(g, 1);
        else if (used * 4 < 2 * n)
            assert_int_equal(g, 2);
        else if (used * 4 < 3 * n)
            assert_int_equal(g, 3);
        else
            assert_int_equal(g, 4);
    }
    free(got);
    free(sb);
}

static void test_block_of(void **state)
{
    (void)state;
    rp_hd_sc_init(SB);
    rp_hd_sb_t *sb = new_sb(rp_hd_sc_of(1000));
    char *a = rp_hd_sb_pop(sb);
    char *b = rp_hd_sb_pop(sb);
    assert_ptr_equal(rp_hd_sb_block_of(sb, a), a);
    assert_ptr_equal(rp_hd_sb_block_of(sb, a + 1), a);
    assert_ptr_equal(rp_hd_sb_block_of(sb, a + sb->size - 1), a);
    assert_ptr_equal(rp_hd_sb_block_of(sb, b + 500), b);
    free(sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pop_all),
        cmocka_unit_test(test_lifo),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_block_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
