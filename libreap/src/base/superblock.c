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
 * pop/push live in hoard.h; this file holds the rarer operations.
 */
#include "hoard.h"

size_t rp_hd_sb_mask;

void rp_hd_sb_format(rp_hd_sb_t *sb, uint32_t cls)
{
    sb->magic = RP_HD_SB_MAGIC;
    sb->cls = cls;
    sb->size = rp_hd_sc.size[cls];
    sb->nblocks = rp_hd_sc.nblocks[cls];
    sb->used = 0;
    sb->free = NULL;
    sb->bump = (char *)sb + RP_HD_HDR;
    sb->end = sb->bump + (size_t)sb->nblocks * sb->size;
    sb->group = 1;
    atomic_store_explicit(&sb->interior, 0, memory_order_relaxed);
    sb->map_base = NULL;
    sb->map_len = 0;
    sb->usable = 0;
}

void *rp_hd_sb_block_of(rp_hd_sb_t *sb, void *p)
{
    char *area = (char *)sb + RP_HD_HDR;
    size_t idx = (size_t)((char *)p - area) / sb->size;
    return area + idx * sb->size;
}
