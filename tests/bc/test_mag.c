/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_mag.c - unit test of mag.c, the base-10^9 big-integer kernels.
 *
 * Karatsuba multiplication (used above 32 limbs, and on unbalanced sizes)
 * must equal this file's own schoolbook product, and long division must
 * satisfy q*b <= a < (q+1)*b, on random operands of many sizes, including
 * the worst cases of algorithm D (limbs of 999999999 and divisors whose top
 * limb is small).  Runs on its own context with malloc hooks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bcint.h"
#include "mag.h"

static unsigned long long rng = 88172645463325252ULL;

static bc_limb rand_limb(int kind)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    if (kind == 1)
        return BC_BASE - 1; /* all nines: carries everywhere */
    if (kind == 2)
        return (bc_limb)(rng % 3); /* tiny limbs: qhat corrections */
    return (bc_limb)(rng % BC_BASE);
}

static void fill(bc_limb *a, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++)
        a[i] = rand_limb(kind);
    if (n && a[n - 1] == 0)
        a[n - 1] = 1;
}

/* The reference: r[0..na+nb) = a * b, one limb at a time. */
static void ref_mul(bc_limb *r, const bc_limb *a, size_t na, const bc_limb *b,
                    size_t nb)
{
    memset(r, 0, (na + nb) * sizeof *r);
    for (size_t i = 0; i < na; i++) {
        unsigned long long carry = 0;
        for (size_t j = 0; j < nb; j++) {
            unsigned long long t = (unsigned long long)a[i] * b[j] + r[i + j] + carry;
            r[i + j] = (bc_limb)(t % BC_BASE);
            carry = t / BC_BASE;
        }
        for (size_t k = i + nb; carry; k++) {
            unsigned long long t = r[k] + carry;
            r[k] = (bc_limb)(t % BC_BASE);
            carry = t / BC_BASE;
        }
    }
}

static size_t norm(const bc_limb *a, size_t n)
{
    while (n && a[n - 1] == 0)
        n--;
    return n;
}

static int cmp(const bc_limb *a, size_t na, const bc_limb *b, size_t nb)
{
    na = norm(a, na);
    nb = norm(b, nb);
    if (na != nb)
        return na < nb ? -1 : 1;
    while (na--)
        if (a[na] != b[na])
            return a[na] < b[na] ? -1 : 1;
    return 0;
}

static void *h_alloc(void *ud, size_t n) { return malloc(n); }
static void h_free(void *ud, void *p) { free(p); }
static void h_out(void *ud, const char *s, size_t n) {}

int main(void)
{
    bc_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.alloc = h_alloc;
    cfg.free = h_free;
    cfg.out = h_out;
    bc_ctx_t *c = bc_create(&cfg);
    jmp_buf jb;
    c->jmp = &jb;
    if (setjmp(jb)) {
        fprintf(stderr, "test_mag: unexpected error\n");
        return 1;
    }
    int failures = 0, trials = 0;
    static const size_t sizes[] = {1, 2, 3, 31, 32, 33, 64, 65, 100, 257, 600};
    size_t ns = sizeof sizes / sizeof sizes[0];
    bc_limb *a = malloc(1300 * sizeof *a), *b = malloc(1300 * sizeof *b);
    bc_limb *r1 = malloc(2600 * sizeof *r1), *r2 = malloc(2600 * sizeof *r2);
    bc_limb *q = malloc(1300 * sizeof *q), *t = malloc(2600 * sizeof *t);
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < ns; j++)
            for (int kind = 0; kind < 3; kind++) {
                size_t na = sizes[i], nb = sizes[j];
                fill(a, na, kind);
                fill(b, nb, (kind + 1) % 3);
                trials++;
                bc_mag_mul(c, r1, a, na, b, nb);
                ref_mul(r2, a, na, b, nb);
                if (memcmp(r1, r2, (na + nb) * sizeof *r1) != 0) {
                    failures++;
                    fprintf(stderr, "mul %zu x %zu (kind %d) differs\n", na, nb,
                            kind);
                }
                if (na < nb)
                    continue;
                /* q = a / b: check q*b <= a < q*b + b */
                size_t nq = na - nb + 1;
                bc_mag_div(c, q, a, na, b, nb);
                ref_mul(t, q, nq, b, nb);
                int below = cmp(t, nq + nb, a, na) <= 0;
                size_t nt = norm(t, nq + nb);
                t[nt] = 0;
                size_t ns2 = bc_mag_add(r1, t, nt, b, nb);
                int above = cmp(r1, ns2, a, na) > 0;
                if (!below || !above) {
                    failures++;
                    fprintf(stderr, "div %zu / %zu (kind %d) wrong\n", na, nb,
                            kind);
                }
            }
    free(a); free(b); free(r1); free(r2); free(q); free(t);
    bc_destroy(c);
    if (failures) {
        fprintf(stderr, "test_mag: %d of %d failed\n", failures, trials);
        return 1;
    }
    printf("test_mag: %d products and quotients right\n", trials);
    return 0;
}
