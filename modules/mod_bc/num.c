/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * num.c - bc's decimal numbers: an integer mantissa and a decimal scale.
 *
 * A bc_num is mantissa / 10^scale, the mantissa in base-10^9 limbs (mag.c).
 * Aligning two scales multiplies a mantissa by a power of ten; truncating to
 * a scale divides by one.  Every operator follows bc's scale rules (POSIX
 * bc, as GNU bc applies them): + and - keep the larger scale, * keeps
 * min(a+b, max(scale, a, b)), / gives scale, % and ^ and sqrt as below.
 * Results are fresh numbers owned by the caller; operands are untouched.
 *
 * The sign of zero follows GNU bc too, which keeps a sign beside the digits
 * and clears it only where its code says so: a power is cut to its scale
 * with the sign left on (scale=0; (-0.1)^3 is -0), and + and - keep the
 * common sign of two zeros (-0 + -0 and -0 - 0 are -0, so is -0 % b, as
 * a - 0*b); *, / and sqrt clear it, and a difference of equal magnitudes
 * is 0.  Everywhere else -0 is a zero (bc_num_is_zero), but bc_num_cmp puts
 * it below 0, as GNU's sign-first comparison does.
 */
#include <string.h>
#include "bcint.h"
#include "mag.h"

static const bc_limb ten_pow[BC_LIMB_DIGITS + 1] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000
};

/* ------------------------------------------------------------ basics */

bc_num *bc_num_new(bc_ctx *c, size_t cap)
{
    if (cap > ((size_t)1 << 40))
        bc_fail(c, BC_ERR_NOMEM, "number too large");
    if (cap == 0)
        cap = 1;
    /* Work on a number costs about its length: count 64 limbs as one step
     * of exec_loop()'s clock, so a loop over huge numbers reads the clock
     * every few milliseconds, not every 1024 iterations. */
    size_t steps = cap >> 6;
    c->tick = steps >= 1024 || c->tick + steps >= 1024 ? 1024 : c->tick + (unsigned)steps;
    bc_num *n = bc_alloc(c, sizeof *n + cap * sizeof(bc_limb));
    n->refs = 1;
    n->prev = NULL;
    n->next = c->nums;
    if (c->nums)
        c->nums->prev = n;
    c->nums = n;
    n->len = 0;
    n->cap = cap;
    n->scale = 0;
    n->neg = 0;
    return n;
}

/* Unlinks @p n from the context's numbers and frees it. */
void bc_num_release(bc_ctx *c, bc_num *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        c->nums = n->next;
    if (n->next)
        n->next->prev = n->prev;
    bc_free(c, n);
}

void bc_num_free(bc_ctx *c, bc_num *n)
{
    if (n && --n->refs == 0)
        bc_num_release(c, n);
}

bc_num *bc_num_ref(bc_num *n)
{
    n->refs++;
    return n;
}

static void num_fix(bc_num *n)
{
    n->len = bc_mag_norm(n->d, n->len);
    if (n->len == 0)
        n->neg = 0;
}

bc_num *bc_num_copy(bc_ctx *c, const bc_num *n)
{
    bc_num *r = bc_num_new(c, n->len);
    r->len = n->len;
    r->scale = n->scale;
    r->neg = n->neg;
    memcpy(r->d, n->d, n->len * sizeof(bc_limb));
    return r;
}

bc_num *bc_num_from_uint(bc_ctx *c, uint64_t v)
{
    bc_num *r = bc_num_new(c, 3);
    while (v) {
        r->d[r->len++] = (bc_limb)(v % BC_BASE);
        v /= BC_BASE;
    }
    return r;
}

int bc_num_is_zero(const bc_num *n)
{
    return n->len == 0;
}

/* Mantissa of @p n times 10^k, as a new number (scale copied). */
static bc_num *shift_up(bc_ctx *c, const bc_num *n, size_t k)
{
    size_t limbs = k / BC_LIMB_DIGITS;
    bc_num *r = bc_num_new(c, n->len + limbs + 1);
    memset(r->d, 0, limbs * sizeof(bc_limb));
    r->len = limbs + bc_mag_mul_small(r->d + limbs, n->d, n->len,
                                      ten_pow[k % BC_LIMB_DIGITS], 0);
    if (r->len == limbs)
        r->len = 0;
    r->scale = n->scale;
    r->neg = n->neg;
    return r;
}

/* Divides the mantissa by 10^k in place, truncating; a zero result is 0. */
static void shift_down(bc_num *n, size_t k)
{
    size_t limbs = k / BC_LIMB_DIGITS;
    if (limbs >= n->len) {
        n->len = 0;
        n->neg = 0;
        return;
    }
    memmove(n->d, n->d + limbs, (n->len - limbs) * sizeof(bc_limb));
    n->len -= limbs;
    if (k % BC_LIMB_DIGITS)
        bc_mag_div_small(n->d, n->d, n->len, ten_pow[k % BC_LIMB_DIGITS]);
    num_fix(n);
}

void bc_num_truncate(bc_num *n, size_t scale)
{
    if (n->scale <= scale)
        return;
    shift_down(n, n->scale - scale);
    n->scale = scale;
}

/* Mantissa aligned to scale s >= n->scale: borrowed if no shift is needed. */
static const bc_num *align(bc_ctx *c, const bc_num *n, size_t s, bc_num **own)
{
    *own = NULL;
    if (s == n->scale || n->len == 0)
        return n;
    *own = shift_up(c, n, s - n->scale);
    return *own;
}

int bc_num_cmp(const bc_num *a, const bc_num *b)
{
    if (a->neg != b->neg)
        return a->neg ? -1 : 1;
    int sign = a->neg ? -1 : 1;
    if (a->len == 0 || b->len == 0)
        return sign * ((a->len != 0) - (b->len != 0));
    if (a->scale == b->scale)
        return sign * bc_mag_cmp(a->d, a->len, b->d, b->len);
    /* Compare without allocating: walk the decimal digits from the top. */
    size_t s = a->scale > b->scale ? a->scale : b->scale;
    size_t ea = a->len * BC_LIMB_DIGITS + (s - a->scale);
    size_t eb = b->len * BC_LIMB_DIGITS + (s - b->scale);
    size_t top = ea > eb ? ea : eb;
    for (size_t i = top; i-- > 0;) {
        /* digit i (from the units of the aligned mantissa) of each */
        int da = 0, db = 0;
        size_t sa = s - a->scale, sb = s - b->scale;
        if (i >= sa && i - sa < a->len * BC_LIMB_DIGITS) {
            size_t p = i - sa;
            da = a->d[p / BC_LIMB_DIGITS] / ten_pow[p % BC_LIMB_DIGITS] % 10;
        }
        if (i >= sb && i - sb < b->len * BC_LIMB_DIGITS) {
            size_t p = i - sb;
            db = b->d[p / BC_LIMB_DIGITS] / ten_pow[p % BC_LIMB_DIGITS] % 10;
        }
        if (da != db)
            return sign * (da < db ? -1 : 1);
    }
    return 0;
}

int bc_num_to_long(const bc_num *n, long *out)
{
    /* integer part = mantissa / 10^scale */
    size_t skip = n->scale / BC_LIMB_DIGITS;
    unsigned rem = n->scale % BC_LIMB_DIGITS;
    unsigned long long v = 0;
    for (size_t i = n->len; i-- > skip;) {
        unsigned long long limb = n->d[i];
        if (v > (0x7fffffffffffffffULL - limb) / BC_BASE)
            return 0;
        v = v * BC_BASE + limb;
    }
    v /= ten_pow[rem];
    /* dropping the low digits may leave a value that fits */
    *out = n->neg ? -(long)v : (long)v;
    return 1;
}

/* ------------------------------------------------------------ arithmetic */

/* Signs as GNU's bc_add and bc_sub set them, zeros' signs included: equal
 * signs add the magnitudes and keep the sign (-0 + -0 is -0), unequal ones
 * subtract them and take the larger's sign, or give 0 when they are equal.
 * The kernels return normalized lengths, so no num_fix() (it would clear
 * the sign of -0). */
bc_num *bc_num_add(bc_ctx *c, const bc_num *a, const bc_num *b, int sub)
{
    size_t s = a->scale > b->scale ? a->scale : b->scale;
    bc_num *oa, *ob;
    const bc_num *x = align(c, a, s, &oa), *y = align(c, b, s, &ob);
    int yneg = y->neg ^ sub;
    size_t n = (x->len > y->len ? x->len : y->len) + 1;
    bc_num *r = bc_num_new(c, n);
    if (x->neg == yneg) {
        r->len = bc_mag_add(r->d, x->d, x->len, y->d, y->len);
        r->neg = x->neg;
    } else if (bc_mag_cmp(x->d, x->len, y->d, y->len) >= 0) {
        r->len = bc_mag_sub(r->d, x->d, x->len, y->d, y->len);
        r->neg = x->neg && r->len;
    } else {
        r->len = bc_mag_sub(r->d, y->d, y->len, x->d, x->len);
        r->neg = yneg;
    }
    r->scale = s;
    bc_num_free(c, oa);
    bc_num_free(c, ob);
    return r;
}

/* Exact product: scale sa + sb. */
static bc_num *mul_exact(bc_ctx *c, const bc_num *a, const bc_num *b)
{
    bc_num *r = bc_num_new(c, a->len + b->len);
    if (a->len && b->len) {
        if (a->len == 1 && b->len == 1) {
            uint64_t p = (uint64_t)a->d[0] * b->d[0];
            r->d[0] = (bc_limb)(p % BC_BASE);
            r->d[1] = (bc_limb)(p / BC_BASE);
        } else {
            bc_mag_mul(c, r->d, a->d, a->len, b->d, b->len);
        }
        r->len = a->len + b->len;
    }
    r->scale = a->scale + b->scale;
    r->neg = a->neg ^ b->neg;
    num_fix(r);
    return r;
}

bc_num *bc_num_mul(bc_ctx *c, const bc_num *a, const bc_num *b, size_t scale)
{
    size_t full = a->scale + b->scale;
    size_t m = a->scale > b->scale ? a->scale : b->scale;
    if (scale > m)
        m = scale;
    bc_num *r = mul_exact(c, a, b);
    bc_num_truncate(r, full < m ? full : m);
    return r;
}

bc_num *bc_num_div(bc_ctx *c, const bc_num *a, const bc_num *b, size_t scale)
{
    if (b->len == 0)
        bc_fail(c, BC_ERR_RUNTIME, "Divide by zero");
    /* q = trunc(ma * 10^(scale + sb - sa) / mb) */
    bc_num *x = NULL, *y = NULL;
    const bc_num *na = a, *nb = b;
    if (scale + b->scale > a->scale) {
        x = shift_up(c, a, scale + b->scale - a->scale);
        na = x;
    } else if (scale + b->scale < a->scale) {
        y = shift_up(c, b, a->scale - scale - b->scale);
        nb = y;
    }
    bc_num *r;
    if (na->len < nb->len) {
        r = bc_num_new(c, 1);
    } else {
        r = bc_num_new(c, na->len - nb->len + 1);
        bc_mag_div(c, r->d, na->d, na->len, nb->d, nb->len);
        r->len = na->len - nb->len + 1;
        r->neg = a->neg ^ b->neg;
    }
    r->scale = scale;
    num_fix(r);
    bc_num_free(c, x);
    bc_num_free(c, y);
    return r;
}

/* Integers and a one-limb divisor at scale 0: the remainder directly. */
static bc_num *mod_small(bc_ctx *c, const bc_num *a, const bc_num *b)
{
    uint64_t rem = 0;
    for (size_t i = a->len; i-- > 0;)
        rem = (rem * BC_BASE + a->d[i]) % b->d[0];
    bc_num *r = bc_num_new(c, 1);
    if (rem) {
        r->d[0] = (bc_limb)rem;
        r->len = 1;
    }
    /* truncating division: the sign of a; -0 % b is -0 - 0 = -0 */
    r->neg = a->neg && (rem || a->len == 0);
    return r;
}

/* a % b = a - (a / b at scale) * b, at scale max(scale + sb, sa). */
bc_num *bc_num_mod(bc_ctx *c, const bc_num *a, const bc_num *b, size_t scale)
{
    if (scale == 0 && a->scale == 0 && b->scale == 0 && b->len == 1)
        return mod_small(c, a, b);
    bc_num *q = bc_num_div(c, a, b, scale);
    bc_num *p = mul_exact(c, q, b);
    bc_num *r = bc_num_add(c, a, p, 1);
    size_t rs = scale + b->scale > a->scale ? scale + b->scale : a->scale;
    if (r->scale < rs) {
        bc_num *t = shift_up(c, r, rs - r->scale);
        t->scale = rs;
        bc_num_free(c, r);
        r = t;
    }
    bc_num_truncate(r, rs);
    bc_num_free(c, q);
    bc_num_free(c, p);
    return r;
}

/* Digits of the integer part, at least 1 (used to bound a power's size). */
static size_t int_digits(const bc_num *n)
{
    size_t d = n->len * BC_LIMB_DIGITS;
    return d > n->scale ? d - n->scale : 1;
}

static bc_num *pow_exact(bc_ctx *c, const bc_num *a, unsigned long e)
{
    bc_num *base = bc_num_copy(c, a), *acc = NULL;
    for (;;) {
        if (e & 1) {
            if (acc) {
                bc_num *t = mul_exact(c, acc, base);
                bc_num_free(c, acc);
                acc = t;
            } else {
                acc = bc_num_copy(c, base);
            }
        }
        e >>= 1;
        if (!e)
            break;
        bc_num *t = mul_exact(c, base, base);
        bc_num_free(c, base);
        base = t;
    }
    bc_num_free(c, base);
    return acc;
}

bc_num *bc_num_pow(bc_ctx *c, const bc_num *a, long e, size_t scale)
{
    if (e == 0)
        return bc_num_from_uint(c, 1);
    unsigned long ue = e < 0 ? 0UL - (unsigned long)e : (unsigned long)e;
    if (a->len == 0 && e < 0)
        bc_fail(c, BC_ERR_RUNTIME, "divide by zero");
    /* refuse before computing what could never be stored */
    double digits = ((double)int_digits(a) + (double)a->scale) * (double)ue;
    if (digits > 4e12)
        bc_fail(c, BC_ERR_NOMEM, "number too large");
    bc_num *p = pow_exact(c, a, ue);
    if (e < 0) {
        bc_num *one = bc_num_from_uint(c, 1);
        bc_num *r = bc_num_div(c, one, p, scale);
        bc_num_free(c, one);
        bc_num_free(c, p);
        return r;
    }
    size_t m = a->scale > scale ? a->scale : scale;
    if (p->scale > m) {
        /* GNU's bc_raise lowers the scale and leaves the sign: an odd power
         * of a negative number cut to zero is -0 */
        int neg = p->neg;
        bc_num_truncate(p, m);
        p->neg = neg;
    }
    return p;
}

/* floor(sqrt(n)) of a mantissa, by Newton's method from above. */
static bc_num *isqrt(bc_ctx *c, const bc_num *n)
{
    size_t digits = (n->len - 1) * BC_LIMB_DIGITS;
    for (bc_limb t = n->d[n->len - 1]; t; t /= 10)
        digits++;
    bc_num *x = bc_num_from_uint(c, 1);
    bc_num *t = shift_up(c, x, (digits + 1) / 2); /* 10^ceil(d/2) > sqrt */
    bc_num_free(c, x);
    x = t;
    bc_num *two = bc_num_from_uint(c, 2);
    for (;;) {
        bc_check_time(c);
        bc_num *q = bc_num_div(c, n, x, 0);
        bc_num *s = bc_num_add(c, x, q, 0);
        bc_num *y = bc_num_div(c, s, two, 0);
        bc_num_free(c, q);
        bc_num_free(c, s);
        if (bc_num_cmp(y, x) >= 0) {
            bc_num_free(c, y);
            break;
        }
        bc_num_free(c, x);
        x = y;
    }
    bc_num_free(c, two);
    return x;
}

bc_num *bc_num_sqrt(bc_ctx *c, const bc_num *a, size_t scale)
{
    if (a->neg)
        bc_fail(c, BC_ERR_RUNTIME, "Square root of a negative number");
    if (a->len == 0)
        return bc_num_new(c, 1);
    bc_num *one = bc_num_from_uint(c, 1);
    int is_one = bc_num_cmp(a, one) == 0;
    bc_num_free(c, one);
    if (is_one) /* GNU bc answers 1 itself, at scale 0 */
        return bc_num_from_uint(c, 1);
    size_t rs = scale > a->scale ? scale : a->scale;
    bc_num *m = shift_up(c, a, 2 * rs - a->scale);
    m->scale = 0;
    bc_num *r = isqrt(c, m);
    bc_num_free(c, m);
    r->scale = rs;
    return r;
}

/* ------------------------------------------------------------ digits */

char *bc_num_digits(bc_ctx *c, const bc_num *n, size_t *ndig)
{
    size_t cap = n->len * BC_LIMB_DIGITS + 1;
    char *s = bc_scratch_alloc(c, cap);
    size_t k = 0;
    if (n->len == 0) {
        s[0] = '0';
        *ndig = 1;
        return s;
    }
    for (bc_limb t = n->d[n->len - 1]; t; t /= 10)
        k++;
    size_t pos = k;
    for (bc_limb t = n->d[n->len - 1]; t; t /= 10)
        s[--pos] = (char)('0' + t % 10);
    for (size_t i = n->len - 1; i-- > 0;) {
        bc_limb t = n->d[i];
        for (int j = BC_LIMB_DIGITS - 1; j >= 0; j--) {
            s[k + j] = (char)('0' + t % 10);
            t /= 10;
        }
        k += BC_LIMB_DIGITS;
    }
    *ndig = k;
    return s;
}

/* bc's length(): significant digits, counting the fraction's leading zeros
 * when there is no integer part; zero has length 1 (scale if it has one). */
size_t bc_num_length(bc_ctx *c, const bc_num *n)
{
    if (n->len == 0)
        return n->scale ? n->scale : 1;
    size_t nd;
    char *s = bc_num_digits(c, n, &nd);
    bc_scratch_free(c, s);
    return nd > n->scale ? nd : n->scale;
}
