/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_addrmap.c - unit tests of the address map (libreap/src/base/
 * addrmap.c) and of rp_base_block_of(), which finds the block holding any
 * byte of it, for superblock blocks and large objects, and answers NULL,
 * without reading it, for memory the allocator does not hold: the stack,
 * static data, malloc's heap of the test program, unmapped addresses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "base/base.h"
#include "base/hoard.h"

static int setup(void **state)
{
    (void)state;
    setenv("REAP_SUPERBLOCK", "64k", 1);
    rp_hd_init();
    return 0;
}

static char static_bytes[256];

/* Every byte of a block leads to the block's start and size; the header
 * of its superblock leads nowhere. */
static void every_byte_of_a_block_finds_it(void **state)
{
    (void)state;
    size_t sizes[] = {16, 48, 1000, 8192, 24000, 32768};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char *b = rp_base_alloc(sizes[i]);
        assert_non_null(b);
        size_t usable = rp_base_usable(sizes[i]), got = 0;
        for (size_t off = 0; off < usable; off += (off < 64 || off + 64 > usable) ? 1 : 61) {
            assert_ptr_equal(rp_base_block_of(b + off, &got), b);
            assert_int_equal(got, usable);
        }
        assert_null(rp_base_block_of(rp_hd_hdr(b), &got)); /* the header itself */
        rp_base_free(b, sizes[i]);
    }
}

/* A large object: its start and an interior byte in each of its
 * granules, even hundreds of granules in (the map's 255 steps back). */
static void interior_pointers_of_large_objects(void **state)
{
    (void)state;
    size_t sizes[] = {40000, 300000, (size_t)20 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char *b = rp_base_alloc(sizes[i]);
        assert_non_null(b);
        size_t usable = rp_base_usable(sizes[i]), got = 0;
        for (size_t off = 0; off < usable; off += 65536 / 3) {
            assert_ptr_equal(rp_base_block_of(b + off, &got), b);
            assert_int_equal(got, usable);
        }
        assert_ptr_equal(rp_base_block_of(b + usable - 1, &got), b);
        assert_null(rp_base_block_of(b + usable, &got));
        assert_null(rp_base_block_of(b - 1, &got)); /* the header page */
        rp_base_free(b, sizes[i]);
    }
}

/* Pointers the allocator never handed out: NULL, and no fault. */
static void foreign_pointers_find_nothing(void **state)
{
    (void)state;
    size_t got = 0;
    char local[64];
    char *m = malloc(100);
    char *mapped = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(mapped != MAP_FAILED);
    const void *wild[] = {local, static_bytes, m, mapped, mapped + 70000, (void *)1, (void *)4096,
                          (void *)(uintptr_t)-1, (void *)((uintptr_t)1 << 50)};
    for (size_t i = 0; i < sizeof wild / sizeof wild[0]; i++)
        assert_null(rp_base_block_of(wild[i], &got));
    munmap(mapped, 1 << 20);
    free(m);
}

/* Memory given back is no block: a large object once freed past the
 * cache, the granules after it are plain mapped memory again. */
static void a_freed_large_object_is_no_block(void **state)
{
    (void)state;
    size_t size = (size_t)40 << 20; /* above REAP_LARGE_CACHE: not cached */
    char *b = rp_base_alloc(size);
    assert_non_null(b);
    size_t got;
    assert_ptr_equal(rp_base_block_of(b + (30 << 20), &got), b);
    rp_base_free(b, size);
    assert_null(rp_base_block_of(b, &got));
    assert_null(rp_base_block_of(b + (30 << 20), &got));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_byte_of_a_block_finds_it),
        cmocka_unit_test(interior_pointers_of_large_objects),
        cmocka_unit_test(foreign_pointers_find_nothing),
        cmocka_unit_test(a_freed_large_object_is_no_block),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
