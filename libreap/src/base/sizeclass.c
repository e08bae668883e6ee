/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * sizeclass.c - the size classes of the superblocks.
 *
 * Exact classes every 16 bytes up to 128 (the sizes programs ask for most),
 * then each class at most 1.2 times the previous one (Hoard's b), rounded
 * down to 16 bytes (64 from 1 KiB up, so that reap chunks and big blocks
 * stay cache-line aligned), up to S/2; beyond S/2 objects are large.
 * Every power of two is a class too: reap chunks are powers of two (doubling
 * from 2 KiB), and an exact fit wastes nothing; above the header's 128
 * bytes such a class's blocks are aligned to their size (hoard.h).  The
 * table is built once for the chosen S; sizes map to classes through two
 * direct lookup tables, by 16 bytes up to 1 KiB and by 64 bytes above (every
 * class above 1 KiB is a multiple of 64, so rounding a size up to 64 keeps
 * its class).
 */
#include "hoard.h"

rp_hd_classes_t rp_hd_sc;

static uint32_t next_class(uint32_t prev)
{
    if (prev < 128)
        return prev + 16;
    uint32_t grown = (uint32_t)((uint64_t)prev * 6 / 5);
    uint32_t align = grown >= 1024 ? 64 : 16;
    uint32_t next = grown / align * align;
    if (next <= prev)
        next = prev + align;
    uint32_t pow2 = 1u << (32 - __builtin_clz(prev)); /* next power of two above prev */
    return pow2 < next ? pow2 : next;
}

static void fill_lookups(void)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i <= 1024 / 16; i++) {
        while (rp_hd_sc.size[c] < i * 16)
            c++;
        atomic_store_explicit(&rp_hd_sc.small[i], (uint8_t)c, memory_order_relaxed);
    }
    /* malloc(0) finds an empty bin and takes the slow path (zero.c) */
    atomic_store_explicit(&rp_hd_sc.small[0], (uint8_t)rp_hd_sc.n, memory_order_relaxed);
    for (uint32_t i = 1024 / 64; i <= rp_hd_sc.size[rp_hd_sc.n - 1] / 64; i++) {
        while (rp_hd_sc.size[c] < i * 64)
            c++;
        rp_hd_sc.big[i] = (uint8_t)c;
    }
    for (uint32_t k = 0; k < rp_hd_sc.n; k++) {
        uint32_t j = k;
        while (j < rp_hd_sc.n && rp_hd_sc.size[j] % 64 != 0)
            j++;
        rp_hd_sc.aligned64[k] = (uint8_t)(j < rp_hd_sc.n ? j : rp_hd_sc.n - 1);
    }
}

void rp_hd_sc_init(size_t sb_size)
{
    uint32_t max = (uint32_t)(sb_size / 2);
    uint32_t n = 0;
    for (uint32_t s = 16; s < max && n < RP_HD_MAX_CLASSES - 1; s = next_class(s))
        rp_hd_sc.size[n++] = s;
    rp_hd_sc.size[n++] = max; /* S/2 itself, a multiple of 64 */
    rp_hd_sc.n = n;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t size = rp_hd_sc.size[c];
        bool aligned = (size & (size - 1)) == 0 && size > RP_HD_HDR;
        rp_hd_sc.first_shift[c] = (uint8_t)__builtin_ctz(aligned ? size : RP_HD_HDR);
        rp_hd_sc.nblocks[c] = (uint32_t)((sb_size - ((size_t)1 << rp_hd_sc.first_shift[c])) / size);
    }
    fill_lookups();
}
