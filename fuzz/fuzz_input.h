/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * fuzz_input.h - turns a fuzzer's input bytes into the numbers a harness
 * needs, for the libFuzzer targets in fuzz/.
 *
 * Every harness reads its input as a stream of small decisions (which
 * operation, which object, what size).  Once the bytes run out every read
 * returns 0, so each input, however short, decodes to a finite program and
 * nearby inputs decode to nearby programs, which is what lets libFuzzer's
 * mutations make progress.  Header-only: each target is one translation unit
 * plus the code under test.
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct fz_in {
    const uint8_t *p;   /* next unread byte */
    const uint8_t *end; /* one past the last byte; p <= end */
} fz_in;

static inline fz_in fz_init(const uint8_t *data, size_t size)
{
    fz_in in = {data, data + size};
    return in;
}

static inline int fz_done(const fz_in *in) { return in->p >= in->end; }

static inline uint8_t fz_u8(fz_in *in)
{
    return in->p < in->end ? *in->p++ : 0;
}

static inline uint16_t fz_u16(fz_in *in)
{
    uint16_t lo = fz_u8(in);
    return (uint16_t)(lo | (uint16_t)fz_u8(in) << 8);
}

static inline uint32_t fz_u32(fz_in *in)
{
    uint32_t lo = fz_u16(in);
    return lo | (uint32_t)fz_u16(in) << 16;
}

/* A number in [0, n), n > 0. */
static inline uint32_t fz_below(fz_in *in, uint32_t n)
{
    return n <= 256 ? fz_u8(in) % n : fz_u32(in) % n;
}

#endif /* FUZZ_INPUT_H */
