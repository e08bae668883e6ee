/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * zero.c - malloc(0): a distinct address where nothing may be read or
 * written.
 *
 * C lets malloc(0) return NULL or a unique pointer that may be passed to
 * free; glibc returns a 16-byte block, and a program that reads or writes
 * it (a length computed as 0 and then used) goes unnoticed.  As OpenBSD's
 * malloc does, each malloc(0) here gets the next 16 bytes of a region
 * reserved with no access (64 MiB of address space, no memory), so such a
 * read or write faults at once; free of one is a no-op, realloc copies
 * nothing from it, malloc_usable_size says 0.  The region is reserved at
 * the first malloc(0) and never reused: after 4 Mi of them malloc(0)
 * hands out 16-byte blocks, as before.  The map (addrmap.c) does not
 * cover the region, so a free of its address is told from a foreign one
 * by rp_hd_zero_has() before it is reported.  It costs the malloc fast
 * path nothing: size 0 has a class of its own whose bin stays empty
 * (rp_hd_sc_small).
 */
#include <sys/mman.h>

#include "hoard.h"

char *_Atomic rp_hd_zero_base;
static _Atomic size_t zero_next;

/* The region, reserved by the first caller; NULL if the OS refused. */
static char *zero_region(void)
{
    char *b = atomic_load_explicit(&rp_hd_zero_base, memory_order_acquire);
    if (b)
        return b;
    char *r = mmap(NULL, RP_HD_ZERO_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return NULL;
    if (!atomic_compare_exchange_strong(&rp_hd_zero_base, &b, r)) {
        munmap(r, RP_HD_ZERO_BYTES); /* another thread's is there */
        return b;
    }
    return r;
}

void *rp_hd_zero_alloc(void)
{
    if (atomic_load_explicit(&zero_next, memory_order_relaxed) >= RP_HD_ZERO_BYTES)
        return NULL;
    char *b = zero_region();
    if (!b)
        return NULL;
    size_t off = atomic_fetch_add_explicit(&zero_next, RP_HD_MIN_ALIGN, memory_order_relaxed);
    return off < RP_HD_ZERO_BYTES ? b + off : NULL;
}
