/*
 * fuzz_model.h - what the shadow-model targets (fuzz_reap.c, fuzz_apr.c)
 * share: failing loudly, tracing, and the patterns written into every live
 * object and checked before it is freed, resized or cleared.
 *
 * Include once, after defining FUZZ_NAME (the target's name in messages).
 */
#ifndef FUZZ_MODEL_H
#define FUZZ_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FUZZ_TRACE=1 in the environment prints each operation: for reading a
 * reproducer as a program.  The target sets trace from it. */
static int trace;
#define TRACE(...) (trace ? fprintf(stderr, __VA_ARGS__) : 0)

static void fail(const char *what, size_t a, size_t b)
{
    fprintf(stderr, FUZZ_NAME ": %s (%zu, %zu)\n", what, a, b);
    abort();
}

/* ---- patterns ---------------------------------------------------------------- */

/* The first 8 bytes hold the seed word, the rest one byte derived from it. */
static uint64_t seed_counter;

static uint64_t new_seed(void)
{
    return ++seed_counter * 0x9E3779B97F4A7C15ull;
}

static unsigned char fill_byte(uint64_t seed)
{
    return (unsigned char)(seed >> 56) | 1;
}

static void pattern_fill(unsigned char *p, size_t n, uint64_t seed)
{
    memcpy(p, &seed, n < 8 ? n : 8);
    if (n > 8)
        memset(p + 8, fill_byte(seed), n - 8);
}

/* Compares in pages with memcmp (one ASan range check each, not one per
 * byte), and only then looks for the byte that differs. */
static void pattern_check(const unsigned char *p, size_t n, uint64_t seed)
{
    static unsigned char ref[4096];
    unsigned char b = fill_byte(seed);
    if (memcmp(p, &seed, n < 8 ? n : 8) != 0)
        fail("object's first bytes changed", (size_t)p, n);
    if (ref[0] != b)
        memset(ref, b, sizeof ref);
    for (size_t i = 8; i < n; i += sizeof ref) {
        size_t k = n - i < sizeof ref ? n - i : sizeof ref;
        if (memcmp(p + i, ref, k) == 0)
            continue;
        for (size_t j = 0; j < k; j++)
            if (p[i + j] != b)
                fail("object's pattern changed at offset", i + j, n);
    }
}

#endif /* FUZZ_MODEL_H */
