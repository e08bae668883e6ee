/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mag.c - unsigned big-integer arithmetic on arrays of base-10^9 limbs.
 *
 * The magnitude layer under num.c: addition, subtraction, schoolbook and
 * Karatsuba multiplication, Knuth's long division (algorithm D), and
 * multiplication or division by one limb.  Arrays are little-endian; callers
 * own all storage; scratch space comes from the context's hooks, so a failed
 * allocation unwinds through bc_fail(), and is registered (bc_scratch_alloc)
 * so that an unwind frees it.  Long loops poll the time limit.
 */
#include <string.h>
#include "bcint.h"
#include "mag.h"

/* Below this many limbs in the shorter operand, schoolbook wins. */
#define KARATSUBA_THRESHOLD 32

int bc_mag_cmp(const bc_limb *a, size_t na, const bc_limb *b, size_t nb)
{
    if (na != nb)
        return na < nb ? -1 : 1;
    while (na-- > 0)
        if (a[na] != b[na])
            return a[na] < b[na] ? -1 : 1;
    return 0;
}

size_t bc_mag_norm(const bc_limb *a, size_t n)
{
    while (n > 0 && a[n - 1] == 0)
        n--;
    return n;
}

/* r = a + b; r has room for max(na, nb) + 1 limbs; returns the length. */
size_t bc_mag_add(bc_limb *r, const bc_limb *a, size_t na, const bc_limb *b,
                  size_t nb)
{
    if (na < nb) {
        const bc_limb *t = a; a = b; b = t;
        size_t tn = na; na = nb; nb = tn;
    }
    bc_limb carry = 0;
    for (size_t i = 0; i < na; i++) {
        bc_limb s = a[i] + carry + (i < nb ? b[i] : 0);
        carry = s >= BC_BASE;
        r[i] = carry ? s - BC_BASE : s;
    }
    r[na] = carry;
    return na + carry;
}

/* r = a - b with a >= b; r may alias a; returns the normalized length. */
size_t bc_mag_sub(bc_limb *r, const bc_limb *a, size_t na, const bc_limb *b,
                  size_t nb)
{
    bc_limb borrow = 0;
    for (size_t i = 0; i < na; i++) {
        bc_limb s = (i < nb ? b[i] : 0) + borrow;
        borrow = a[i] < s;
        r[i] = borrow ? a[i] + BC_BASE - s : a[i] - s;
    }
    return bc_mag_norm(r, na);
}

/* r[0..rn) += a[0..an); the sum must fit in rn limbs. */
static void add_into(bc_limb *r, size_t rn, const bc_limb *a, size_t an)
{
    bc_limb carry = 0;
    size_t i = 0;
    for (; i < an; i++) {
        bc_limb s = r[i] + a[i] + carry;
        carry = s >= BC_BASE;
        r[i] = carry ? s - BC_BASE : s;
    }
    for (; carry && i < rn; i++) {
        bc_limb s = r[i] + 1;
        carry = s >= BC_BASE;
        r[i] = carry ? 0 : s;
    }
}

/* r[0..rn) -= a[0..an); the difference must be non-negative. */
static void sub_into(bc_limb *r, size_t rn, const bc_limb *a, size_t an)
{
    bc_limb borrow = 0;
    size_t i = 0;
    for (; i < an; i++) {
        bc_limb s = a[i] + borrow;
        borrow = r[i] < s;
        r[i] = borrow ? r[i] + BC_BASE - s : r[i] - s;
    }
    for (; borrow && i < rn; i++) {
        borrow = r[i] == 0;
        r[i] = borrow ? BC_BASE - 1 : r[i] - 1;
    }
}

/* r[0..na+nb) = a * b, r zeroed by the caller. */
static void mul_school(bc_limb *r, const bc_limb *a, size_t na,
                       const bc_limb *b, size_t nb)
{
    for (size_t i = 0; i < na; i++) {
        uint64_t ai = a[i], carry = 0;
        if (ai == 0)
            continue;
        bc_limb *ri = r + i;
        for (size_t j = 0; j < nb; j++) {
            uint64_t t = ai * b[j] + ri[j] + carry;
            carry = t / BC_BASE;
            ri[j] = (bc_limb)(t - carry * BC_BASE);
        }
        ri[nb] = (bc_limb)carry;
    }
}

static void kmul(bc_ctx *c, bc_limb *r, const bc_limb *a, size_t na,
                 const bc_limb *b, size_t nb);

/* a much longer than b: multiply b by slices of a as long as b. */
static void kmul_unbalanced(bc_ctx *c, bc_limb *r, const bc_limb *a,
                            size_t na, const bc_limb *b, size_t nb)
{
    bc_limb *t = bc_scratch_alloc(c, 2 * nb * sizeof *t);
    for (size_t off = 0; off < na; off += nb) {
        size_t len = na - off < nb ? na - off : nb;
        memset(t, 0, (len + nb) * sizeof *t);
        kmul(c, t, a + off, len, b, nb);
        add_into(r + off, na + nb - off, t, len + nb);
    }
    bc_scratch_free(c, t);
}

/* Karatsuba: a = a1 B^m + a0, b = b1 B^m + b0,
 * ab = z2 B^2m + ((a0+a1)(b0+b1) - z2 - z0) B^m + z0. */
static void kmul(bc_ctx *c, bc_limb *r, const bc_limb *a, size_t na,
                 const bc_limb *b, size_t nb)
{
    if (na < nb) {
        const bc_limb *t = a; a = b; b = t;
        size_t tn = na; na = nb; nb = tn;
    }
    if (nb < KARATSUBA_THRESHOLD) {
        mul_school(r, a, na, b, nb);
        return;
    }
    bc_check_time(c);
    size_t m = (na + 1) / 2;
    if (nb <= m) {
        kmul_unbalanced(c, r, a, na, b, nb);
        return;
    }
    kmul(c, r, a, m, b, m);
    kmul(c, r + 2 * m, a + m, na - m, b + m, nb - m);
    bc_limb *sa = bc_scratch_alloc(c, (4 * m + 4) * sizeof *sa);
    bc_limb *sb = sa + m + 1, *z1 = sb + m + 1;
    size_t la = bc_mag_add(sa, a, m, a + m, na - m);
    size_t lb = bc_mag_add(sb, b, m, b + m, nb - m);
    memset(z1, 0, (la + lb) * sizeof *z1);
    kmul(c, z1, sa, la, sb, lb);
    size_t lz = bc_mag_norm(z1, la + lb);
    sub_into(z1, la + lb, r, 2 * m);
    sub_into(z1, la + lb, r + 2 * m, na + nb - 2 * m);
    add_into(r + m, na + nb - m, z1, bc_mag_norm(z1, lz));
    bc_scratch_free(c, sa);
}

void bc_mag_mul(bc_ctx *c, bc_limb *r, const bc_limb *a, size_t na,
                const bc_limb *b, size_t nb)
{
    memset(r, 0, (na + nb) * sizeof *r);
    if (na && nb)
        kmul(c, r, a, na, b, nb);
}

/* r = a * m + add; r has na + 1 limbs; returns the normalized length. */
size_t bc_mag_mul_small(bc_limb *r, const bc_limb *a, size_t na, bc_limb m,
                        bc_limb add)
{
    uint64_t carry = add;
    for (size_t i = 0; i < na; i++) {
        uint64_t t = (uint64_t)a[i] * m + carry;
        carry = t / BC_BASE;
        r[i] = (bc_limb)(t - carry * BC_BASE);
    }
    r[na] = (bc_limb)carry;
    return bc_mag_norm(r, na + 1);
}

/* q = a / d (q may alias a); returns the remainder. */
bc_limb bc_mag_div_small(bc_limb *q, const bc_limb *a, size_t na, bc_limb d)
{
    uint64_t rem = 0;
    for (size_t i = na; i-- > 0;) {
        uint64_t cur = rem * BC_BASE + a[i];
        q[i] = (bc_limb)(cur / d);
        rem = cur - (uint64_t)q[i] * d;
    }
    return (bc_limb)rem;
}

/* One step of algorithm D: u[0..nb] -= qhat * v, fixing qhat if too big. */
static bc_limb div_step(bc_limb *u, const bc_limb *v, size_t nb, uint64_t qhat)
{
    uint64_t carry = 0;
    int64_t borrow = 0;
    for (size_t i = 0; i < nb; i++) {
        uint64_t p = qhat * v[i] + carry;
        carry = p / BC_BASE;
        int64_t t = (int64_t)u[i] - (int64_t)(p - carry * BC_BASE) - borrow;
        borrow = t < 0;
        u[i] = (bc_limb)(borrow ? t + BC_BASE : t);
    }
    int64_t top = (int64_t)u[nb] - (int64_t)carry - borrow;
    if (top >= 0) {
        u[nb] = (bc_limb)top;
        return (bc_limb)qhat;
    }
    /* qhat was one too large: add v back (the top limb ends at zero). */
    bc_limb c2 = 0;
    for (size_t i = 0; i < nb; i++) {
        bc_limb s = u[i] + v[i] + c2;
        c2 = s >= BC_BASE;
        u[i] = c2 ? s - BC_BASE : s;
    }
    u[nb] = 0;
    return (bc_limb)(qhat - 1);
}

/* q[0..na-nb] = a / b (truncated); na >= nb >= 1, b normalized. */
void bc_mag_div(bc_ctx *c, bc_limb *q, const bc_limb *a, size_t na,
                const bc_limb *b, size_t nb)
{
    if (nb == 1) {
        bc_mag_div_small(q, a, na, b[0]);
        return;
    }
    bc_limb d = BC_BASE / (b[nb - 1] + 1);
    bc_limb *u = bc_scratch_alloc(c, (na + 1 + nb + 1) * sizeof *u);
    bc_limb *v = u + na + 1;
    bc_mag_mul_small(u, a, na, d, 0);
    bc_mag_mul_small(v, b, nb, d, 0);
    uint64_t vt = v[nb - 1], vs = v[nb - 2];
    for (size_t j = na - nb + 1; j-- > 0;) {
        if ((j & 255) == 0 && na > 256)
            bc_check_time(c);
        uint64_t num = (uint64_t)u[j + nb] * BC_BASE + u[j + nb - 1];
        uint64_t qhat = num / vt, rhat = num - qhat * vt;
        while (qhat >= BC_BASE || qhat * vs > rhat * BC_BASE + u[j + nb - 2]) {
            qhat--;
            rhat += vt;
            if (rhat >= BC_BASE)
                break;
        }
        q[j] = div_step(u + j, v, nb, qhat);
    }
    bc_scratch_free(c, u);
}
