/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_tracefile.c - the trace format, both ends: libreap records a known
 * sequence of reap calls (util/trace.c) and the reader (tracefile.c) gives
 * it back in order, with parents, sizes and tags; varints round-trip; bad
 * files (wrong magic, truncation, an unknown event, a free of an object
 * never allocated) are refused with the offset named; and drag, worked
 * out by hand for a four-call trace, is what rt_facts() computes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "reap.h"
#include "replay.h"
#include "tracefile.h"
#include "util/trace.h"

static char prefix[64];

static void test_varints(void **state)
{
    (void)state;
    const uint64_t values[] = {0, 1, 127, 128, 300, (uint64_t)1 << 35, (uint64_t)1 << 63, UINT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        uint8_t buf[RP_VARINT_MAX], *end = rp_varint_put(buf, values[i]);
        const uint8_t *p = buf;
        uint64_t v = 0;
        assert_true(rp_varint_get(&p, end, &v));
        assert_int_equal(v, values[i]);
        assert_ptr_equal(p, end);
        p = buf; /* one byte short: refused, cursor kept */
        assert_false(rp_varint_get(&p, end - 1, &v));
        assert_ptr_equal(p, buf);
    }
    const int64_t deltas[] = {0, -1, 1, -4096, INT64_MIN, INT64_MAX};
    for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++)
        assert_true(rp_unzigzag(rp_zigzag(deltas[i])) == deltas[i]);
    assert_int_equal(rp_zigzag(-1), 1); /* small magnitudes stay small */
}

/* Record: parent p (tagged "parent"), child c (8-byte alignment); three
 * objects, two frees, a realloc, a clear of p (which takes c), a destroy
 * of p. */
static void test_record_read_back(void **state)
{
    (void)state;
    reap_t *p = reap_create(NULL), *c = reap_create(p);
    assert_non_null(p);
    assert_non_null(c);
    reap_trace_tag(p, "parent");
    assert_int_equal(reap_set_alignment(c, 8), 0);
    void *a = reap_malloc(p, 100), *b = reap_malloc(c, 200), *d = reap_malloc(p, 50);
    reap_free(p, a);
    reap_free(c, b);
    void *e = reap_realloc(p, d, 5000);
    assert_non_null(b);
    assert_non_null(e);
    reap_clear(p);
    reap_destroy(p);
    rp_trace_flush_all();

    char path[96], err[256];
    snprintf(path, sizeof path, "%s.%d", prefix, (int)getpid());
    rt_trace_t tr;
    assert_int_equal(rt_load(path, &tr, err, sizeof err), 0);
    const struct {
        uint8_t kind;
        uint64_t size;
    } want[] = {{RT_CREATE, 0}, {RT_CREATE, 0}, {RT_ALLOC, 100}, {RT_ALLOC, 200}, {RT_ALLOC, 50},
                {RT_FREE, 100}, {RT_FREE, 200}, {RT_REALLOC, 5000}, {RT_CLEAR, 0}, {RT_DESTROY, 0}};
    assert_int_equal(tr.nops, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < tr.nops; i++) {
        assert_int_equal(tr.ops[i].kind, want[i].kind);
        if (want[i].size)
            assert_int_equal(tr.ops[i].size, want[i].size);
        if (i)
            assert_true(tr.ops[i].t >= tr.ops[i - 1].t);
    }
    uint32_t rp = tr.ops[0].reap, rc = tr.ops[1].reap;
    assert_int_equal(tr.ops[1].other, rp + 1);        /* c's parent is p */
    assert_int_equal(tr.ops[3].reap, rc);             /* b came from c */
    assert_int_equal(tr.ops[7].obj, tr.ops[4].obj);   /* the realloc moved d */
    assert_int_equal(tr.reap_id[rp], (uint64_t)(uintptr_t)p);
    assert_string_equal(tr.reap_tag[rp], "parent");
    assert_null(tr.reap_tag[rc]);
    assert_int_equal(tr.reap_align[rp], 0);
    assert_int_equal(tr.reap_align[rc], 8);
    rt_free(&tr);
    unlink(path);
}

/* ---- hand-made traces ------------------------------------------------------ */

typedef struct builder {
    uint8_t buf[4096];
    size_t len;
    uint8_t ev[1024];
    size_t evlen;
    uint64_t last;
} builder_t;

static void header(builder_t *b)
{
    memcpy(b->buf, RP_TRACE_MAGIC, 8);
    uint8_t *p = rp_varint_put(b->buf + 8, RP_TRACE_VERSION);
    p = rp_varint_put(p, 0);
    p = rp_varint_put(p, 42);
    b->len = (size_t)(p - b->buf);
}

static void ev_u(builder_t *b, uint64_t v) { b->evlen = (size_t)(rp_varint_put(b->ev + b->evlen, v) - b->ev); }
static void ev_ptr(builder_t *b, uint64_t v)
{
    ev_u(b, rp_zigzag((int64_t)(v - b->last)));
    b->last = v;
}
static void ev_kind(builder_t *b, uint8_t k)
{
    b->ev[b->evlen++] = k;
    ev_u(b, 10); /* 10 ns after the previous event */
}

/* The events so far as one block of thread 1. */
static void block(builder_t *b)
{
    uint8_t *p = b->buf + b->len;
    *p++ = RP_TRACE_BLOCK;
    p = rp_varint_put(p, RP_TRACE_REAPS);
    p = rp_varint_put(p, 1);
    p = rp_varint_put(p, 1000);
    p = rp_varint_put(p, b->evlen);
    memcpy(p, b->ev, b->evlen);
    b->len = (size_t)(p - b->buf) + b->evlen;
    b->evlen = 0, b->last = 0;
}

static void alloc_ev(builder_t *b, uint64_t reap, uint64_t size, uint64_t obj)
{
    ev_kind(b, RP_TRACE_ALLOC);
    ev_ptr(b, reap);
    ev_u(b, size);
    ev_ptr(b, obj);
}

static void free_ev(builder_t *b, uint64_t reap, uint64_t obj)
{
    ev_kind(b, RP_TRACE_FREE);
    ev_ptr(b, reap);
    ev_ptr(b, obj);
}

/* reap A: alloc x, y (100 bytes each), free x, alloc z (100), destroy A. */
static void four_calls(builder_t *b)
{
    header(b);
    ev_kind(b, RP_TRACE_CREATE);
    ev_ptr(b, 0xA000);
    ev_ptr(b, 0);
    alloc_ev(b, 0xA000, 100, 0xA100);
    alloc_ev(b, 0xA000, 100, 0xA200);
    free_ev(b, 0xA000, 0xA100);
    alloc_ev(b, 0xA000, 100, 0xA300);
    ev_kind(b, RP_TRACE_DESTROY);
    ev_ptr(b, 0xA000);
    block(b);
}

static int load(builder_t *b, size_t len, rt_trace_t *tr, char *err)
{
    return rt_load_mem("mem", b->buf, len, tr, err, 256);
}

static void test_drag_by_hand(void **state)
{
    (void)state;
    builder_t b = {0};
    four_calls(&b);
    rt_trace_t tr;
    char err[256] = "";
    assert_int_equal(load(&b, b.len, &tr, err), 0);
    rt_facts_t f;
    rt_facts(&tr, &f, NULL, 0);
    /* Over allocation time, each 100-byte allocation a step of 100: live
     * before them 0, 100, 100 -> area 20,000; kept by a region 0, 100,
     * 200 (x is dead but kept) -> 30,000.  Drag 1.5; at free 1. */
    assert_int_equal(f.peak_live, 200);
    assert_true(f.drag_region > 1.4999 && f.drag_region < 1.5001);
    assert_true(f.drag_free > 0.9999 && f.drag_free < 1.0001);
    rt_drag_row_t *rows;
    size_t n = rt_top(&tr, &rows);
    assert_true(n >= 1);
    assert_int_equal(rows[0].peak_dead, 100); /* x, until A goes */
    free(rows);
    rt_free(&tr);
}

static void test_bad_input(void **state)
{
    (void)state;
    builder_t b = {0};
    rt_trace_t tr;
    char err[256];
    four_calls(&b);

    memcpy(b.buf, "NOTATRAC", 8);
    assert_int_equal(load(&b, b.len, &tr, err), -1);
    assert_non_null(strstr(err, "offset 0"));
    assert_non_null(strstr(err, "magic"));

    b = (builder_t){0};
    four_calls(&b);
    assert_int_equal(load(&b, b.len - 3, &tr, err), -1); /* cut inside the block */
    assert_non_null(strstr(err, "truncated"));
    assert_int_equal(load(&b, 5, &tr, err), -1);          /* inside the magic */

    b = (builder_t){0};
    header(&b);
    size_t at = b.len;
    ev_kind(&b, 99);
    block(&b);
    assert_int_equal(load(&b, b.len, &tr, err), -1);
    assert_non_null(strstr(err, "unknown event"));
    /* the event follows 'B', source 0, thread 1 (a byte each), base 1000
     * (two bytes) and the length (one) */
    char where[32];
    snprintf(where, sizeof where, "offset %zu:", at + 6);
    assert_non_null(strstr(err, where));

    b = (builder_t){0};
    header(&b);
    free_ev(&b, 0, 0x1230);
    block(&b);
    assert_int_equal(load(&b, b.len, &tr, err), -1);
    assert_non_null(strstr(err, "not allocated"));
    assert_non_null(strstr(err, "0x1230"));

    /* an alignment libreap would refuse: 12, or set after an object */
    const uint64_t bad_align[][2] = {{12, 0}, {8, 1}};
    for (size_t i = 0; i < 2; i++) {
        b = (builder_t){0};
        header(&b);
        ev_kind(&b, RP_TRACE_CREATE);
        ev_ptr(&b, 0xA000);
        ev_ptr(&b, 0);
        if (bad_align[i][1])
            alloc_ev(&b, 0xA000, 10, 0xA100);
        ev_kind(&b, RP_TRACE_ALIGN);
        ev_ptr(&b, 0xA000);
        ev_u(&b, bad_align[i][0]);
        block(&b);
        assert_int_equal(load(&b, b.len, &tr, err), -1);
        assert_non_null(strstr(err, "alignment"));
    }

    /* a region start libreap would refuse: without the 8-byte alignment */
    b = (builder_t){0};
    header(&b);
    ev_kind(&b, RP_TRACE_CREATE);
    ev_ptr(&b, 0xA000);
    ev_ptr(&b, 0);
    ev_kind(&b, RP_TRACE_REGION);
    ev_ptr(&b, 0xA000);
    block(&b);
    assert_int_equal(load(&b, b.len, &tr, err), -1);
    assert_non_null(strstr(err, "region"));
}

/* A trace of version 1 (no ALIGN) still reads; a later version does not.
 * Version 3's REGION and DISCARD read as nothing and as a free. */
static void test_versions(void **state)
{
    (void)state;
    builder_t b = {0};
    rt_trace_t tr;
    char err[256];
    four_calls(&b);
    b.buf[8] = 1;
    assert_int_equal(load(&b, b.len, &tr, err), 0);
    assert_int_equal(tr.reap_align[tr.ops[0].reap], 0);
    rt_free(&tr);

    b = (builder_t){0};
    header(&b);
    b.buf[8] = 3;
    ev_kind(&b, RP_TRACE_CREATE);
    ev_ptr(&b, 0xA000);
    ev_ptr(&b, 0);
    ev_kind(&b, RP_TRACE_ALIGN);
    ev_ptr(&b, 0xA000);
    ev_u(&b, 8);
    ev_kind(&b, RP_TRACE_REGION);
    ev_ptr(&b, 0xA000);
    alloc_ev(&b, 0xA000, 100, 0xA100);
    ev_kind(&b, RP_TRACE_DISCARD);
    ev_ptr(&b, 0xA000);
    ev_ptr(&b, 0xA100);
    block(&b);
    assert_int_equal(load(&b, b.len, &tr, err), 0);
    assert_int_equal(tr.nops, 3);
    assert_int_equal(tr.ops[1].kind, RT_ALLOC);
    assert_int_equal(tr.ops[2].kind, RT_FREE);
    assert_int_equal(tr.ops[2].size, 100);
    assert_int_equal(tr.reap_align[tr.ops[0].reap], 8);
    rt_free(&tr);
    b.buf[8] = RP_TRACE_VERSION + 1;
    assert_int_equal(load(&b, b.len, &tr, err), -1);
    assert_non_null(strstr(err, "format version"));
}

int main(void)
{
    /* before the first reap: REAP_TRACE is read once, by reap_create */
    snprintf(prefix, sizeof prefix, "/tmp/reap-test-trace-%d", (int)getpid());
    setenv("REAP_TRACE", prefix, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varints),
        cmocka_unit_test(test_record_read_back),
        cmocka_unit_test(test_drag_by_hand),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
