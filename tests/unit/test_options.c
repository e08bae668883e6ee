/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_options.c - unit tests of libreap's tunables (libreap/src/options.c)
 * as a program sees them: the values are read from the environment once,
 * on the first reap_create(), so main() sets them before any reap exists,
 * and every test of this process sees the same options.
 *
 * Set here: chunks that stop doubling at 16 KiB, and a large threshold of
 * 64 KiB, above the chunk cap, which options.c cuts to the cap (docs/
 * configuration.md: "at most REAP_MAX_CHUNK").  test_region checks the
 * doubling itself under the default cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "region.h"

#define CAP (16u << 10)

/* The threshold is cut to half the chunk cap (a block must fit a chunk),
 * chunk sizes are powers of two (the cap and the first chunk are rounded
 * down to one), and the cap is at most half a superblock (chunks are
 * aligned blocks of the base allocator). */
static void the_options_are_cut_to_what_chunks_can_be(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL); /* reads the options */
    assert_non_null(r);
    assert_int_equal(rp_opt.max_chunk, CAP);
    assert_int_equal(rp_opt.large_threshold, CAP / 2);
    assert_int_equal(rp_opt.first_chunk, 2048); /* 3000, rounded down */
    /* up to the threshold an object lives in the reap's chunks; above it,
     * in a solo chunk */
    void *at = reap_malloc(r, CAP / 2), *above = reap_malloc(r, CAP / 2 + 1);
    assert_non_null(at);
    assert_non_null(above);
    assert_false(rp_chunk_solo(rp_chunk_find(at)));
    assert_true(rp_chunk_solo(rp_chunk_find(above)));
    reap_destroy(r);
}

int main(void)
{
    /* before the first reap: options.c reads them once */
    setenv("REAP_MAX_CHUNK", "20k", 1);
    setenv("REAP_LARGE_THRESHOLD", "64k", 1);
    setenv("REAP_FIRST_CHUNK", "3000", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_options_are_cut_to_what_chunks_can_be),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
