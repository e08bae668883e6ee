/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * numio.c - reading numbers in ibase and printing them in obase.
 *
 * Reading follows GNU bc: a one-character constant keeps its digit value
 * whatever ibase is (so "ibase=A" always works), and so does a leading
 * digit followed by the point unless ibase is ten; otherwise a digit at or
 * above ibase counts as ibase-1; a fraction typed with k digits is
 * converted exactly and truncated to scale k.  Printing follows GNU bc too:
 * zero prints as "0" (GNU's -0 as "-0", in every base), no leading zero
 * before the point, bases above 16 print each digit as a space and a
 * zero-padded decimal group, and a fraction gets as many obase digits as it
 * takes for obase^k to exceed 10^scale.
 */
#include <string.h>
#include "bcint.h"
#include "mag.h"

static unsigned digit_value(char ch)
{
    return ch <= '9' ? (unsigned)(ch - '0') : (unsigned)(ch - 'A' + 10);
}

/* Base 10: the digits are the mantissa. */
static bc_num *parse_decimal(bc_ctx *c, const char *s, size_t n)
{
    size_t nd = 0, scale = 0;
    int seen_point = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.')
            seen_point = 1;
        else {
            nd++;
            scale += seen_point;
        }
    }
    bc_num *r = bc_num_new(c, nd / BC_LIMB_DIGITS + 1);
    bc_limb *d = r->d;
    size_t limb = 0, k = 0;
    bc_limb acc = 0, mult = 1;
    /* walk from the least significant digit */
    for (size_t i = n; i-- > 0;) {
        if (s[i] == '.')
            continue;
        unsigned v = digit_value(s[i]);
        if (v > 9)
            v = 9;
        acc += v * mult;
        mult *= 10;
        if (++k == BC_LIMB_DIGITS) {
            d[limb++] = acc;
            acc = 0;
            mult = 1;
            k = 0;
        }
    }
    if (k)
        d[limb++] = acc;
    r->len = bc_mag_norm(d, limb);
    r->scale = scale;
    return r;
}

static bc_num *parse_other(bc_ctx *c, const char *s, size_t n, unsigned ibase)
{
    bc_num *ip = bc_num_new(c, 1), *fp = bc_num_new(c, 1);
    bc_num *den = bc_num_from_uint(c, 1);
    bc_num *base = bc_num_from_uint(c, ibase);
    size_t fdigits = 0;
    int frac = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            frac = 1;
            continue;
        }
        unsigned v = digit_value(s[i]);
        /* GNU keeps a leading digit's value when no digit follows it */
        int keep = i == 0 && (n == 1 || s[1] == '.');
        if (v >= ibase && !keep)
            v = ibase - 1;
        bc_num **acc = frac ? &fp : &ip;
        bc_num *t = bc_num_new(c, (*acc)->len + 1);
        t->len = bc_mag_mul_small(t->d, (*acc)->d, (*acc)->len, ibase, v);
        bc_num_free(c, *acc);
        *acc = t;
        if (frac) {
            bc_num *d2 = bc_num_mul(c, den, base, 0);
            bc_num_free(c, den);
            den = d2;
            fdigits++;
        }
    }
    bc_num *r = ip;
    if (fdigits) {
        bc_num *f = bc_num_div(c, fp, den, fdigits);
        r = bc_num_add(c, ip, f, 0);
        bc_num_free(c, f);
        bc_num_free(c, ip);
    }
    bc_num_free(c, fp);
    bc_num_free(c, den);
    bc_num_free(c, base);
    return r;
}

bc_num *bc_num_parse_read(bc_ctx *c, const char *s, size_t n, unsigned ibase)
{
    if (n == 1)
        return bc_num_from_uint(c, digit_value(s[0]));
    return parse_other(c, s, n, ibase); /* read() has no base-ten shortcut */
}

bc_num *bc_num_parse(bc_ctx *c, const char *s, size_t n, unsigned ibase)
{
    if (n == 1)
        return bc_num_from_uint(c, digit_value(s[0]));
    if (ibase == 10)
        return parse_decimal(c, s, n);
    return parse_other(c, s, n, ibase);
}

/* ------------------------------------------------------------ printing */

static void print_decimal(bc_ctx *c, const bc_num *n)
{
    size_t nd;
    char *s = bc_num_digits(c, n, &nd);
    size_t sc = n->scale;
    if (nd > sc) {
        for (size_t i = 0; i < nd - sc; i++)
            bc_out_char(c, s[i]);
        if (sc)
            bc_out_char(c, '.');
        for (size_t i = nd - sc; i < nd; i++)
            bc_out_char(c, s[i]);
    } else {
        bc_out_char(c, '.');
        for (size_t i = nd; i < sc; i++)
            bc_out_char(c, '0');
        for (size_t i = 0; i < nd; i++)
            bc_out_char(c, s[i]);
    }
    bc_scratch_free(c, s);
}

static unsigned dec_width(unsigned long v)
{
    unsigned w = 1;
    while (v >= 10) {
        v /= 10;
        w++;
    }
    return w;
}

/* One obase digit: a hex character, or " %0*lu" above base 16. */
static void print_digit(bc_ctx *c, unsigned long d, unsigned long obase,
                        int space)
{
    if (obase <= 16) {
        bc_out_char(c, "0123456789ABCDEF"[d]);
        return;
    }
    if (space)
        bc_out_char(c, ' ');
    unsigned w = dec_width(obase - 1);
    char buf[24];
    for (unsigned i = w; i-- > 0;) {
        buf[i] = (char)('0' + d % 10);
        d /= 10;
    }
    for (unsigned i = 0; i < w; i++)
        bc_out_char(c, buf[i]);
}

/* Integer part (a scale-0 magnitude) in obase, most significant first. */
static void print_int_part(bc_ctx *c, bc_num *ip, unsigned long obase)
{
    size_t cap = ip->len * 30 + 2, nd = 0; /* base 2: 30 digits a limb */
    unsigned long *dig = bc_scratch_alloc(c, cap * sizeof *dig);
    bc_num *ob = bc_num_from_uint(c, obase);
    while (ip->len) {
        /* Each digit costs a pass over the whole number: a huge one in a
         * small base takes quadratic time, so the clock is read per digit. */
        bc_check_time(c);
        if (obase < BC_BASE) {
            dig[nd++] = bc_mag_div_small(ip->d, ip->d, ip->len, (bc_limb)obase);
            ip->len = bc_mag_norm(ip->d, ip->len);
        } else {
            bc_num *q = bc_num_div(c, ip, ob, 0);
            bc_num *p = bc_num_mul(c, q, ob, 0);
            bc_num *r = bc_num_add(c, ip, p, 1);
            long v = 0;
            bc_num_to_long(r, &v);
            dig[nd++] = (unsigned long)v;
            bc_num_free(c, p);
            bc_num_free(c, r);
            memcpy(ip->d, q->d, q->len * sizeof(bc_limb));
            ip->len = q->len;
            bc_num_free(c, q);
        }
    }
    while (nd-- > 0)
        print_digit(c, dig[nd], obase, 1);
    bc_num_free(c, ob);
    bc_scratch_free(c, dig);
}

/* Fraction digits: multiply by obase until obase^k has more than scale
 * decimal digits. */
static void print_frac_part(bc_ctx *c, bc_num *fp, unsigned long obase)
{
    size_t sc = fp->scale;
    bc_num *ob = bc_num_from_uint(c, obase);
    bc_num *t = bc_num_from_uint(c, 1);
    int space = 0;
    bc_out_char(c, '.');
    while (bc_num_length(c, t) <= sc) {
        bc_check_time(c); /* one multiplication of the whole fraction a digit */
        bc_num *m = bc_num_mul(c, fp, ob, sc);
        bc_num *ip = bc_num_copy(c, m);
        bc_num_truncate(ip, 0);
        long v = 0;
        bc_num_to_long(ip, &v);
        print_digit(c, (unsigned long)v, obase, space);
        space = 1;
        bc_num_free(c, fp);
        fp = bc_num_add(c, m, ip, 1);
        bc_num_free(c, m);
        bc_num_free(c, ip);
        bc_num *t2 = bc_num_mul(c, t, ob, 0);
        bc_num_free(c, t);
        t = t2;
    }
    bc_num_free(c, fp);
    bc_num_free(c, t);
    bc_num_free(c, ob);
}

static void print_other(bc_ctx *c, const bc_num *n, unsigned long obase)
{
    bc_num *ip = bc_num_copy(c, n);
    ip->neg = 0;
    bc_num_truncate(ip, 0);
    bc_num *fp = NULL;
    if (n->scale) {
        bc_num *abs = bc_num_copy(c, n);
        abs->neg = 0;
        fp = bc_num_add(c, abs, ip, 1);
        bc_num_free(c, abs);
    }
    if (ip->len)
        print_int_part(c, ip, obase);
    bc_num_free(c, ip);
    if (fp)
        print_frac_part(c, fp, obase);
}

void bc_num_print(bc_ctx *c, const bc_num *n, unsigned long obase)
{
    if (n->neg) /* before the zero test, as GNU's bc_out_num: -0 prints */
        bc_out_char(c, '-');
    if (n->len == 0) {
        bc_out_char(c, '0');
        return;
    }
    if (obase == 10)
        print_decimal(c, n);
    else
        print_other(c, n, obase);
}
