/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_stats.c - figures are exact: live bytes and objects, peaks, counts,
 * footprint, subtree sums, and both printed forms carry every field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "internal.h"

/* Expected figures are written out from the size rule reap.h documents
 * (the request rounded up to 16, at least 16), never asked of the
 * library. */

static void exact_counts_through_a_life(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    reap_stats_t s;
    reap_get_stats(r, &s);
    assert_int_equal(s.reaps, 1);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(s.footprint, rp_opt.first_chunk);
    assert_int_equal(s.peak_footprint, rp_opt.first_chunk);

    /* the blocks of requests 0, 37, ..., 333: round16(n), at least 16 */
    static const uint64_t block[10] = {16, 48, 80, 112, 160, 192, 224, 272, 304, 336};
    void *p[10];
    uint64_t bytes = 0;
    for (int i = 0; i < 10; i++) {
        p[i] = reap_malloc(r, (size_t)(i * 37));
        bytes += block[i];
    }
    reap_get_stats(r, &s);
    assert_int_equal(s.live_bytes, bytes);
    assert_int_equal(s.live_objects, 10);
    assert_int_equal(s.allocs, 10);
    assert_int_equal(s.peak_live_bytes, bytes);
    uint64_t tails = s.heap_free_bytes; /* what the frontier left of full chunks */

    reap_free(r, p[3]);
    reap_free(r, p[7]);
    uint64_t freed = block[3] + block[7];
    reap_get_stats(r, &s);
    assert_int_equal(s.live_bytes, bytes - freed);
    assert_int_equal(s.live_objects, 8);
    assert_int_equal(s.frees, 2);
    assert_int_equal(s.peak_live_bytes, bytes);
    assert_int_equal(s.heap_free_bytes, tails + freed);

    reap_clear(r);
    reap_get_stats(r, &s);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(s.live_objects, 0);
    assert_int_equal(s.clears, 1);
    assert_int_equal(s.allocs, 10);
    assert_int_equal(s.peak_live_bytes, bytes);
    assert_int_equal(s.heap_free_bytes, 0);
    reap_destroy(r);
}

static void peaks_follow_growth_after_falls(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    void *a = reap_malloc(r, 1000);
    reap_free(r, a);
    for (int i = 0; i < 3; i++)
        reap_malloc(r, 1000);
    reap_stats_t s;
    reap_get_stats(r, &s);
    assert_int_equal(s.peak_live_bytes, 3 * 1008); /* round16(1000) */
    for (int i = 0; i < 20; i++)
        reap_malloc(r, 4000); /* needs a second chunk */
    reap_get_stats(r, &s);
    assert_true(s.footprint > rp_opt.first_chunk);
    uint64_t fp = s.footprint;
    reap_clear(r);
    reap_get_stats(r, &s);
    /* the first chunk, and the lists the free made, kept for the next use */
    assert_non_null(r->heap);
    assert_int_equal(s.footprint, rp_opt.first_chunk + rp_base_usable(sizeof(rp_heap_t)));
    assert_int_equal(s.peak_footprint, fp);
    reap_destroy(r);
}

static void tree_stats_sum_the_subtree(void **state)
{
    (void)state;
    reap_t *top = reap_create(NULL);
    reap_t *a = reap_create(top), *b = reap_create(a);
    reap_malloc(top, 100);
    reap_malloc(a, 100);
    reap_malloc(b, 100);
    reap_free(b, reap_malloc(b, 50));
    reap_stats_t s, one;
    reap_get_tree_stats(top, &s);
    assert_int_equal(s.reaps, 3);
    assert_int_equal(s.live_objects, 3);
    assert_int_equal(s.allocs, 4);
    assert_int_equal(s.frees, 1);
    assert_int_equal(s.live_bytes, 3 * 112); /* round16(100) */
    reap_get_stats(top, &one);
    assert_int_equal(one.reaps, 1);
    assert_int_equal(one.live_objects, 1);
    /* with a limit the subtree peak is exact, not a sum of peaks */
    reap_set_limit(a, 1 << 30);
    for (int i = 0; i < 100; i++)
        reap_malloc(b, 1000);
    reap_clear(b);
    for (int i = 0; i < 100; i++)
        reap_malloc(a, 1000);
    reap_get_tree_stats(a, &s);
    reap_stats_t sb, sa;
    reap_get_stats(b, &sb);
    reap_get_stats(a, &sa);
    assert_true(s.peak_footprint < sa.peak_footprint + sb.peak_footprint);
    assert_true(s.peak_footprint >= sa.peak_footprint);
    reap_destroy(top);
}

/* reap_tree_footprint: a walk's sums for a reap without a limit; for one
 * with a limit, set while it had no children (no walk) or with some, the
 * subtree's own figures, which later children join. */
static void tree_footprint_sums_or_reads_the_account(void **state)
{
    (void)state;
    reap_t *top = reap_create(NULL);
    reap_t *a = reap_create(top), *b = reap_create(a);
    for (int i = 0; i < 20; i++) {
        reap_malloc(a, 3000);
        reap_malloc(b, 5000);
    }
    reap_stats_t s;
    uint64_t peak;
    reap_get_tree_stats(top, &s);
    assert_int_equal(reap_tree_footprint(top, &peak), s.footprint);
    assert_int_equal(peak, s.peak_footprint);
    assert_int_equal(reap_tree_footprint(top, NULL), s.footprint);

    /* childless when limited: its later children count, and the peak stays */
    reap_t *c = reap_create(top);
    reap_set_limit(c, 0);
    reap_t *kid = reap_create(c);
    for (int i = 0; i < 40; i++)
        reap_malloc(kid, 4000);
    reap_get_tree_stats(c, &s);
    uint64_t high = reap_tree_footprint(c, &peak);
    assert_int_equal(high, s.footprint);
    assert_true(high > reap_footprint(c, NULL) + (100 << 10));
    assert_int_equal(peak, high);
    reap_destroy(kid);
    assert_int_equal(reap_tree_footprint(c, &peak), reap_footprint(c, NULL));
    assert_int_equal(peak, high);

    /* limited with children already there: they are adopted */
    reap_set_limit(a, 0);
    reap_get_tree_stats(a, &s);
    assert_int_equal(reap_tree_footprint(a, &peak), s.footprint);
    assert_int_equal(peak, s.footprint); /* the account starts now */
    reap_destroy(top);
}

typedef struct sink {
    char buf[4096];
    size_t len;
} sink_t;

static void collect(void *arg, const char *text)
{
    sink_t *s = arg;
    size_t n = strlen(text);
    assert_true(s->len + n < sizeof s->buf);
    memcpy(s->buf + s->len, text, n + 1);
    s->len += n;
}

static void printers_carry_every_field(void **state)
{
    (void)state;
    reap_stats_t st = {0};
    st.live_bytes = 12345;
    st.frees = 77;
    sink_t text = {.len = 0}, json = {.len = 0};
    reap_stats_print(&st, 0, collect, &text);
    reap_stats_print(&st, 1, collect, &json);
    assert_non_null(strstr(text.buf, "live_bytes: 12345\n"));
    assert_non_null(strstr(text.buf, "frees: 77\n"));
    assert_non_null(strstr(json.buf, "\"live_bytes\": 12345"));
    assert_true(json.buf[0] == '{' && json.buf[json.len - 2] == '}');
    int lines = 0, fields = 0;
    for (const char *c = text.buf; *c; c++)
        lines += *c == '\n';
#define COUNT_(name, doc) fields++;
    REAP_STATS_FIELDS(COUNT_)
#undef COUNT_
    assert_int_equal(lines, fields);
    int colons = 0;
    for (const char *c = json.buf; *c; c++)
        colons += *c == ':';
    assert_int_equal(colons, fields);
}

static void base_figures_follow_the_reaps(void **state)
{
    (void)state;
    reap_base_stats_t before, during, after;
    /* Past the calls a thread makes without a cache (REAP_TCACHE_AFTER):
     * the cache's first refill would count as in use between the figures. */
    for (int i = 0; i < 1000; i++)
        reap_destroy(reap_create(NULL));
    reap_get_base_stats(&before);
    reap_t *r = reap_create(NULL);
    void *big = reap_malloc(r, 1 << 20);
    assert_non_null(big);
    reap_get_base_stats(&during);
    assert_true(during.in_use >= before.in_use + (1 << 20));
    assert_true(during.held >= during.in_use);
    assert_true(during.peak_held >= during.held);
    reap_destroy(r);
    reap_get_base_stats(&after);
    assert_int_equal(after.in_use, before.in_use);
    sink_t text = {.len = 0};
    reap_base_stats_print(&after, 0, collect, &text);
    int lines = 0, fields = 0;
    for (const char *c = text.buf; *c; c++)
        lines += *c == '\n';
#define COUNT_(name, doc) fields++;
    REAP_BASE_STATS_FIELDS(COUNT_)
#undef COUNT_
    assert_int_equal(lines, fields);
    assert_non_null(strstr(text.buf, "held: "));
}

/* reap_base_on_trim(): the hook runs first in every reap_base_trim(), and
 * what it frees is given back by that same trim. */
static void *hook_block;
static int hook_calls;

static void trim_hook(void *arg)
{
    assert_ptr_equal(arg, &hook_calls);
    hook_calls++;
    reap_base_free(hook_block, 1 << 20);
    hook_block = NULL;
}

static void a_trim_hook_runs_before_the_trim(void **state)
{
    (void)state;
    reap_base_stats_t before, after;
    reap_base_trim();
    reap_get_base_stats(&before);
    hook_block = reap_base_alloc(1 << 20);
    assert_non_null(hook_block);
    memset(hook_block, 1, 1 << 20);
    reap_base_on_trim(trim_hook, &hook_calls);
    reap_base_trim();
    reap_get_base_stats(&after);
    assert_int_equal(hook_calls, 1);
    assert_null(hook_block);
    assert_int_equal(after.in_use, before.in_use);
    assert_true(after.returned >= before.returned + (1 << 20)); /* by the trim */
    reap_base_on_trim(NULL, NULL); /* removed: not called again */
    reap_base_trim();
    assert_int_equal(hook_calls, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_counts_through_a_life),
        cmocka_unit_test(peaks_follow_growth_after_falls),
        cmocka_unit_test(tree_stats_sum_the_subtree),
        cmocka_unit_test(tree_footprint_sums_or_reads_the_account),
        cmocka_unit_test(printers_carry_every_field),
        cmocka_unit_test(base_figures_follow_the_reaps),
        cmocka_unit_test(a_trim_hook_runs_before_the_trim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
