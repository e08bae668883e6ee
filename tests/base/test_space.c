/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_space.c - unit tests of the address space superblocks and large
 * objects are carved from (libreap/src/base/space.c): carves are
 * S-aligned and zeroed, counted as held; memory given back leaves the
 * resident set at once, keeps its addresses for the next carve (lowest
 * first) and comes back zeroed; free neighbours merge into one span; and
 * when the span array is full, or the kernel refuses the madvise, what is
 * given back is unmapped instead.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/hoard.h"

#define S ((size_t)64 << 10)

/* The allocator is linked into this program, so its madvise calls come
 * here: refused while `refuse' is set, as a kernel may refuse them. */
static bool refuse;

int madvise(void *addr, size_t len, int advice)
{
    if (refuse) {
        errno = EAGAIN;
        return -1;
    }
    return (int)syscall(SYS_madvise, addr, len, advice);
}

static int setup(void **state)
{
    (void)state;
    setenv("REAP_SUPERBLOCK", "64k", 1);
    rp_hd_init();
    return 0;
}

static char *take(size_t len)
{
    size_t got = 0;
    char *p = rp_hd_space_take(len, len, &got);
    assert_non_null(p);
    assert_int_equal(got, len);
    assert_int_equal((uintptr_t)p % S, 0);
    return p;
}

/* Resident pages of [p, p+len), by mincore; -1 when part of it is not
 * mapped at all. */
static long resident_pages(const char *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = len / page;
    unsigned char *vec = malloc(n);
    assert_non_null(vec);
    long count = 0;
    if (mincore((void *)p, len, vec) != 0) {
        assert_int_equal(errno, ENOMEM);
        count = -1;
    } else {
        for (size_t i = 0; i < n; i++)
            count += vec[i] & 1;
    }
    free(vec);
    return count;
}

static bool all_zero(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return false;
    return true;
}

/* A batch carve takes up to what it wants, at least the minimum. */
static void test_take_batch(void **state)
{
    (void)state;
    uint64_t held = atomic_load(&rp_hd_cnt.mapped);
    size_t got = 0;
    char *p = rp_hd_space_take(8 * S, S, &got);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % S, 0);
    assert_true(got >= S && got <= 8 * S && got % S == 0);
    assert_true(all_zero(p, got));
    assert_int_equal(atomic_load(&rp_hd_cnt.mapped), held + got);
    rp_hd_space_give(p, got);
    assert_int_equal(atomic_load(&rp_hd_cnt.mapped), held);
}

/* Given back: off the resident set at once, counted as returned, and the
 * same addresses (the lowest that fit) come back zeroed. */
static void test_give_and_reuse(void **state)
{
    (void)state;
    char *p = take(4 * S);
    memset(p, 0xa5, 4 * S);
    assert_int_equal(resident_pages(p, 4 * S), (long)(4 * S / (size_t)sysconf(_SC_PAGESIZE)));
    uint64_t returned = atomic_load(&rp_hd_cnt.returned);
    rp_hd_space_give(p, 4 * S);
    assert_int_equal(resident_pages(p, 4 * S), 0); /* still mapped, nothing resident */
    assert_int_equal(atomic_load(&rp_hd_cnt.returned), returned + 4 * S);
    char *q = take(4 * S);
    assert_ptr_equal(q, p);
    assert_true(all_zero(q, 4 * S));
    rp_hd_space_give(q, 4 * S);
}

/* Free neighbours merge: three adjacent pieces given back in the order
 * first, last, middle make two spans and then one, which a carve of all
 * three takes whole. */
static void test_neighbours_merge(void **state)
{
    (void)state;
    char *a = take(S), *b = take(S), *c = take(S), *d = take(S);
    assert_ptr_equal(b, a + S);
    assert_ptr_equal(c, b + S);
    assert_ptr_equal(d, c + S); /* keeps c off the rest of the reserve */
    size_t n = rp_hd_space_spans(NULL);
    rp_hd_space_give(a, S);
    assert_int_equal(rp_hd_space_spans(NULL), n + 1);
    rp_hd_space_give(c, S);
    assert_int_equal(rp_hd_space_spans(NULL), n + 2);
    rp_hd_space_give(b, S);
    assert_int_equal(rp_hd_space_spans(NULL), n + 1);
    char *abc = take(3 * S);
    assert_ptr_equal(abc, a);
    assert_int_equal(rp_hd_space_spans(NULL), n);
    rp_hd_space_give(abc, 3 * S);
    rp_hd_space_give(d, S); /* joins abc and the reserve's rest */
    assert_int_equal(rp_hd_space_spans(NULL), n);
}

/* With every slot of the span array used, a give-back that merges with
 * no span leaves the address space: mincore then finds nothing mapped
 * there, or, inside the region (hoard.h), whose addresses stay readable,
 * nothing resident.  Every
 * other piece of 2 * RP_HD_SPAN_MAX + 2 carves is given back (address
 * space only: nothing is touched). */
static void test_full_array_unmaps(void **state)
{
    (void)state;
    size_t n = 2 * RP_HD_SPAN_MAX + 2;
    char **piece = malloc(n * sizeof *piece);
    assert_non_null(piece);
    for (size_t i = 0; i < n; i++)
        piece[i] = take(S);
    size_t spans = rp_hd_space_spans(NULL);
    size_t i = 0;
    for (; i < n && spans < RP_HD_SPAN_MAX; i += 2) {
        rp_hd_space_give(piece[i], S);
        spans = rp_hd_space_spans(NULL);
    }
    assert_int_equal(spans, RP_HD_SPAN_MAX);
    assert_true(i + 1 < n);
    /* piece[i]'s neighbours, i - 1 and i + 1, are both carved: it cannot merge */
    uint64_t unmaps = atomic_load(&rp_hd_cnt.unmaps);
    rp_hd_space_give(piece[i], S);
    assert_int_equal(rp_hd_space_spans(NULL), RP_HD_SPAN_MAX);
    assert_int_equal(resident_pages(piece[i], S), rp_hd_in_region(piece[i]) ? 0 : -1);
    assert_int_equal(atomic_load(&rp_hd_cnt.unmaps), unmaps + 1);
    free(piece);
}

/* A give-back whose madvise the kernel refuses is unmapped instead,
 * counted as returned once, and kept out of the spans. */
static void test_refused_purge_unmaps(void **state)
{
    (void)state;
    char *a = take(S), *b = take(S); /* b keeps a off the reserve's rest */
    memset(a, 1, S);
    size_t spans = rp_hd_space_spans(NULL);
    uint64_t returned = atomic_load(&rp_hd_cnt.returned);
    uint64_t unmaps = atomic_load(&rp_hd_cnt.unmaps);
    uint64_t held = atomic_load(&rp_hd_cnt.mapped);
    refuse = true;
    rp_hd_space_give(a, S);
    refuse = false;
    assert_int_equal(resident_pages(a, S), -1);
    assert_int_equal(rp_hd_space_spans(NULL), spans);
    assert_int_equal(atomic_load(&rp_hd_cnt.returned), returned + S);
    assert_int_equal(atomic_load(&rp_hd_cnt.unmaps), unmaps + 1);
    assert_int_equal(atomic_load(&rp_hd_cnt.mapped), held - S);
    rp_hd_space_give(b, S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_batch),
        cmocka_unit_test(test_give_and_reuse),
        cmocka_unit_test(test_neighbours_merge),
        cmocka_unit_test(test_refused_purge_unmaps),
        cmocka_unit_test(test_full_array_unmaps),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
