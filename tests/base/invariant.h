/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * invariant.h - the heaps' balance condition as the tests state it,
 * independently of heap.c: Hoard's emptiness invariant per size class and
 * at most K empty superblocks, unless the heap holds no more than
 * heap_slack bytes it has not handed out.
 */
#ifndef TESTS_BASE_INVARIANT_H
#define TESTS_BASE_INVARIANT_H

#include <stdbool.h>

#include "base/hoard.h"

static inline bool invariant_holds(const rp_hd_heap_t *h)
{
    if (h->a - h->u <= rp_hd_opt.heap_slack)
        return true;
    size_t s = rp_hd_opt.sb_size, k = rp_hd_opt.k_slack;
    for (uint32_t c = 0; c < rp_hd_sc.n; c++) {
        size_t u = h->cu[c], a = h->ca[c];
        if (!(u + k * s >= a || u * 100 >= (100 - rp_hd_opt.empty_pct) * a))
            return false;
    }
    return h->nempty <= k;
}

#endif
