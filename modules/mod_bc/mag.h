/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mag.h - unsigned base-10^9 big-integer kernels (mag.c), used by num.c.
 * Arrays are little-endian limbs; lengths are counts of limbs.
 */
#ifndef BC_MAG_H
#define BC_MAG_H
#include "bcint.h"

int bc_mag_cmp(const bc_limb *a, size_t na, const bc_limb *b, size_t nb);
size_t bc_mag_norm(const bc_limb *a, size_t n);
size_t bc_mag_add(bc_limb *r, const bc_limb *a, size_t na, const bc_limb *b,
                  size_t nb);
size_t bc_mag_sub(bc_limb *r, const bc_limb *a, size_t na, const bc_limb *b,
                  size_t nb);
/* r[0..na+nb) = a * b; r must not alias a or b. */
void bc_mag_mul(bc_ctx *c, bc_limb *r, const bc_limb *a, size_t na,
                const bc_limb *b, size_t nb);
size_t bc_mag_mul_small(bc_limb *r, const bc_limb *a, size_t na, bc_limb m,
                        bc_limb add);
bc_limb bc_mag_div_small(bc_limb *q, const bc_limb *a, size_t na, bc_limb d);
void bc_mag_div(bc_ctx *c, bc_limb *q, const bc_limb *a, size_t na,
                const bc_limb *b, size_t nb);
#endif
