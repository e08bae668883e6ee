/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * superblock.c - one superblock: S aligned bytes holding blocks of one size
 * class after a 128-byte header.
 *
 * Allocation inside a superblock pops the LIFO free list (most recently
 * freed block first, for cache locality) and otherwise bumps through blocks
 * never handed out, so formatting a superblock writes only its header and a
 * fresh superblock costs RSS only for the pages really used.  The inline
 * pop/push live in hoard.h; this file holds the rarer operations.  Its
 * header carries what free() checks in release builds (hoard.c): a
 * reciprocal of the block size, which tell a block's start from
 * an interior or foreign pointer without a division, and the key that
 * freed blocks carry, which tells a double free.
 */
#include <string.h>
#include <sys/auxv.h>

#include "hoard.h"

size_t rp_hd_sb_mask;

/* Keys are a random start (the kernel's AT_RANDOM bytes, read without a
 * system call or an allocation) stepped by an odd constant, so no two
 * generations of any superblock share one and a program cannot guess
 * them.  The shared counter is touched only when a superblock is
 * formatted or empties, under a heap lock. */
static _Atomic uint64_t generations;

static uint64_t seed; /* odd; set by rp_hd_init() before any superblock */

void rp_hd_sb_keys_init(void)
{
    /* AT_RANDOM's 16 bytes need not be 8-byte aligned: copy them out. */
    const void *r = (const void *)getauxval(AT_RANDOM);
    uint64_t w[2] = {(uint64_t)(uintptr_t)&seed, 0};
    if (r)
        memcpy(w, r, sizeof w);
    seed = (w[0] ^ w[1]) | 1;
}

uint64_t rp_hd_sb_new_key(void)
{
    uint64_t g = atomic_fetch_add_explicit(&generations, 1, memory_order_relaxed);
    return seed + (g << 1) * UINT64_C(0x9e3779b97f4a7c15); /* odd, so never 0 */
}

void rp_hd_sb_format(rp_hd_sb_t *sb, uint32_t cls)
{
    sb->magic = RP_HD_SB_MAGIC;
    sb->cls = cls;
    sb->size = rp_hd_sc.size[cls];
    sb->nblocks = rp_hd_sc.nblocks[cls];
    sb->first_shift = rp_hd_sc.first_shift[cls];
    sb->used = 0;
    sb->free = NULL;
    rp_hd_sb_set_bump(sb, rp_hd_sb_blocks(sb));
    sb->end = sb->bump + (size_t)sb->nblocks * sb->size;
    sb->recip = UINT64_MAX / sb->size + 1;
    /* aligned blocks are found from the map alone (addrmap.h) */
    bool aligned = sb->first_shift != __builtin_ctz(RP_HD_HDR);
    rp_hd_map_set(sb, 1, aligned ? (uint8_t)(RP_BASE_MAP_ALIGNED | (unsigned)__builtin_ctz(sb->size)) : 1);
    sb->group = 1;
    sb->key = rp_hd_sb_new_key();
    atomic_store_explicit(&sb->interior, 0, memory_order_relaxed);
    atomic_store_explicit(&sb->parked, 0, memory_order_relaxed);
    rp_hd_sb_set_divc(sb);
    sb->map_base = NULL;
    sb->map_len = 0;
    sb->usable = 0;
}

void *rp_hd_sb_block_of(rp_hd_sb_t *sb, void *p)
{
    return rp_hd_sb_blocks(sb) + rp_hd_sb_index(sb, p) * sb->size;
}
