/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * fuzz_apr.c - libFuzzer target: random sequences of APR pool operations on
 * the reap-backed APR (apr-patch/), checked against a shadow model.
 *
 * The input decodes (fuzz_input.h) into operations on at most FZ_NODES
 * pools under one root pool per input: create a subpool (some with an
 * allocator of their own and a MaxMemFree, as httpd's MPMs make them),
 * apr_palloc, apr_pcalloc, apr_pstrdup/apr_pstrndup/apr_pmemdup,
 * apr_psprintf of strings from a few bytes to past the 64 KiB large-object
 * threshold, apr_prealloc, apr_pfree, apr_pool_clear, apr_pool_destroy,
 * cleanups, and a memory limit on a pool's reap (apr_pool_reap_get +
 * reap_set_limit), under which an allocation may fail but must call the
 * pool's abort function and return NULL.  Each live object is patterned
 * and verified before it is freed or resized and before its pool (or an
 * ancestor) is cleared or destroyed; psprintf results are compared with
 * snprintf's; cleanups must run exactly once.
 *
 * The pool code (apr-patch/src/memory/unix/apr_pools.c) and libreap's
 * sources are compiled into the target with coverage and UBSan; the rest of
 * APR is Debian's libapr-1, not instrumented.  Being in the executable,
 * the pool functions take precedence over the library's own, so its calls
 * (apr_pstrdup, ...) reach the pool code of this source tree too.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_allocator.h>
#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>

#define FUZZ_NAME "fuzz_apr"
#include "fuzz_model.h"
#include "reap.h"

#ifndef APR_POOL_HAS_PFREE
#error "fuzz_apr needs the reap-backed APR (apr-patch/build-apr.sh)"
#endif

/* libapr-1 still exports apr_pcalloc as a function (for old binaries);
 * apr_pools.h only has the macro. */
APR_DECLARE(void *) (apr_pcalloc)(apr_pool_t *p, apr_size_t size);

/* What the model knows of a pool beyond its node (fuzz_model.h): the
 * pools are the nodes, under one root pool per input; an object's len is
 * its size. */
typedef struct m_pool {
    apr_allocator_t *allocator; /* its own allocator, or NULL */
    int cleanups;               /* registered and not yet run */
} m_pool;

static m_pool pools[FZ_NODES];
static apr_pool_t *root;
static int cleanups_run, alloc_failed;

static apr_pool_t *pool_of(int i) { return nodes[i].h; }

static void pool_obj_add(int slot, int pi, void *p, size_t size)
{
    if ((uintptr_t)p % 8)
        fail("object not aligned to APR_ALIGN_DEFAULT", (size_t)p, size);
    obj_add(slot, pi, p, size, size);
}

static size_t pick_size(fz_in *in)
{
    switch (fz_u8(in) % 6) {
    case 0: return fz_u8(in) % 40;
    case 1: return fz_u8(in) * 8u;
    case 2: return fz_u16(in) % 16384;
    case 3: return (64u << 10) - 64 + fz_u8(in) % 128;
    case 4: return (64u << 10) + fz_u32(in) % (1u << 20);
    default: return fz_u16(in);
    }
}

/* A NULL is right only under a limit, and then the abort function ran. */
static void check_null(int pi, size_t size)
{
    if (!limited(pi))
        fail("allocation failed with no limit", size, (size_t)pi);
    if (!alloc_failed)
        fail("allocation failed without calling the abort function", size, 0);
}

/* APR's string helpers (apr_pstrdup, apr_pstrndup, apr_pmemdup) and
 * apr_pool_cleanup_register use what apr_palloc returned without looking,
 * as does the apr_pcalloc macro ("(apr_pcalloc)" calls the function, which
 * looks).  Under a limit they are only safe when the abort function does
 * not return (mod_reap and mod_bc longjmp out of it).  So around those
 * calls the harness arms fail_jmp and the abort function leaves by
 * longjmp; apr_palloc, the apr_pcalloc function, apr_psprintf and
 * apr_prealloc are called unarmed, so their NULL returns are checked too. */
static jmp_buf fail_jmp;
static volatile int armed;

static int on_alloc_fail(int retcode)
{
    alloc_failed = 1;
    if (armed) {
        armed = 0;
        longjmp(fail_jmp, 1);
    }
    return retcode;
}

static apr_status_t count_cleanup(void *data)
{
    m_pool *mp = data;
    cleanups_run++;
    mp->cleanups--;
    return APR_SUCCESS;
}

/* ---- operations ---------------------------------------------------------- */

static void op_create(fz_in *in)
{
    int slot = free_node_slot();
    uint8_t how = fz_u8(in);
    int parent = (how & 1) ? pick_node(in) : -1;
    if (slot < 0)
        return;
    apr_pool_t *pp = parent >= 0 ? pool_of(parent) : root, *p = NULL;
    apr_allocator_t *al = NULL;
    apr_status_t rv;
    if (how & 2) { /* httpd's way: an allocator per pool, MaxMemFree */
        if (apr_allocator_create(&al) != APR_SUCCESS)
            fail("apr_allocator_create", 0, 0);
        apr_allocator_max_free_set(al, (how & 4) ? 0 : 2u << 20);
        rv = apr_pool_create_ex(&p, pp, on_alloc_fail, al);
        if (rv == APR_SUCCESS)
            apr_allocator_owner_set(al, p);
        else
            apr_allocator_destroy(al);
    } else {
        rv = apr_pool_create_ex(&p, pp, on_alloc_fail, NULL);
    }
    TRACE("p%d = apr_pool_create(parent p%d, own allocator %d) = %d\n", slot,
          parent, (how & 2) != 0, rv);
    if (rv != APR_SUCCESS) {
        if (!limited(parent))
            fail("apr_pool_create failed with no limit", (size_t)rv, 0);
        return;
    }
    if (apr_pool_parent_get(p) != pp)
        fail("apr_pool_parent_get is not the parent", (size_t)parent, 0);
    if (apr_pool_reap_get(p) == NULL)
        fail("a pool without a reap", 0, 0);
    nodes[slot] = (fz_node){p, parent, false};
    pools[slot] = (m_pool){al, 0};
}

static void op_alloc(fz_in *in, int kind)
{
    int pi = pick_node(in), slot = free_obj_slot();
    size_t size = pick_size(in);
    if (pi < 0 || slot < 0 || model_bytes + size > FZ_MEM_CAP)
        return;
    apr_pool_t *p = pool_of(pi);
    alloc_failed = 0;
    void *m;
    static unsigned char src[1u << 17];
    if (kind == 2)
        size %= sizeof src; /* before setjmp: unchanged after it */
    memset(src, 0x5a, sizeof src < size ? sizeof src : size);
    if (setjmp(fail_jmp)) {
        TRACE("o%d: apr_pmemdup(p%d, %zu) left by the abort function\n", slot, pi, size);
        check_null(pi, size);
        return;
    }
    switch (kind) {
    case 0: m = apr_palloc(p, size); break;
    /* The function, not apr_pools.h's macro: the macro memsets what
     * apr_palloc returned without looking, so under a limit a pool whose
     * abort function returns crashes on NULL (stock APR does the same). */
    case 1: m = (apr_pcalloc)(p, size); break;
    default:
        armed = 1;
        m = apr_pmemdup(p, src, size);
        armed = 0;
        break;
    }
    TRACE("o%d = %s(p%d, %zu) = %p\n", slot, kind == 0 ? "apr_palloc" :
          kind == 1 ? "apr_pcalloc" : "apr_pmemdup", pi, size, m);
    if (!m) {
        if (kind == 2 && size == 0)
            return; /* apr_pmemdup of 0 bytes may say NULL */
        check_null(pi, size);
        return;
    }
    if (kind == 1)
        for (size_t i = 0; i < size; i++)
            if (((unsigned char *)m)[i])
                fail("apr_pcalloc memory not zero at", i, size);
    if (kind == 2 && memcmp(m, src, size) != 0)
        fail("apr_pmemdup copy differs", size, 0);
    pool_obj_add(slot, pi, m, size);
}

/* apr_psprintf / apr_pstrdup / apr_pstrndup: compared with the C library. */
static void op_string(fz_in *in)
{
    int pi = pick_node(in), slot = free_obj_slot();
    uint8_t kind = fz_u8(in) % 3;
    size_t len = pick_size(in) % (200u << 10);
    int num = (int)fz_u32(in);
    uint8_t c = fz_u8(in) | 0x20;
    if (pi < 0 || slot < 0 || model_bytes + 2 * len > FZ_MEM_CAP)
        return;
    char *arg = malloc(len + 1), *want = malloc(2 * len + 64);
    if (!arg || !want)
        fail("malloc in the harness", len, 0);
    memset(arg, c == 0x7f ? 'x' : c, len);
    arg[len] = '\0';
    alloc_failed = 0;
    char *s;
    if (setjmp(fail_jmp)) {
        TRACE("o%d: string kind %d (p%d, len %zu) left by the abort function\n", slot, kind, pi, len);
        check_null(pi, len);
        free(arg);
        free(want);
        return;
    }
    if (kind == 0) {
        s = apr_psprintf(pool_of(pi), "<%s|%d|%.*s|%x%%>", arg, num, (int)(len / 2), arg, num);
        snprintf(want, 2 * len + 64, "<%s|%d|%.*s|%x%%>", arg, num, (int)(len / 2), arg, num);
    } else if (kind == 1) {
        armed = 1;
        s = apr_pstrdup(pool_of(pi), arg);
        armed = 0;
        strcpy(want, arg);
    } else {
        armed = 1;
        s = apr_pstrndup(pool_of(pi), arg, len / 3);
        armed = 0;
        memcpy(want, arg, len / 3);
        want[len / 3] = '\0';
    }
    TRACE("o%d = string kind %d (p%d, len %zu) = %p\n", slot, kind, pi, len, (void *)s);
    if (!s) {
        check_null(pi, len);
    } else {
        if (strcmp(s, want) != 0)
            fail("string differs from the C library's", len, kind);
        pool_obj_add(slot, pi, s, strlen(want) + 1);
    }
    free(arg);
    free(want);
}

static void op_prealloc(fz_in *in)
{
    int i = pick_obj(in);
    size_t size = pick_size(in);
    if (i < 0 || model_bytes + size > FZ_MEM_CAP)
        return;
    fz_obj o = objs[i];
    obj_check(i);
    alloc_failed = 0;
    void *q = apr_prealloc(pool_of(o.node), o.p, size);
    TRACE("o%d = apr_prealloc(p%d, %p, %zu) = %p\n", i, o.node, (void *)o.p, size, q);
    if (size == 0) {
        if (q)
            fail("apr_prealloc to 0 returned memory", 0, 0);
        obj_drop(i);
        return;
    }
    if (!q) {
        check_null(o.node, size);
        obj_check(i);
        return;
    }
    pattern_check(q, size < o.size ? size : o.size, o.seed);
    obj_drop(i);
    pool_obj_add(i, o.node, q, size);
}

static void op_pfree(fz_in *in)
{
    int i = pick_obj(in);
    if (i < 0)
        return;
    obj_check(i);
    TRACE("apr_pfree(p%d, o%d %p)\n", objs[i].node, i, (void *)objs[i].p);
    apr_pfree(pool_of(objs[i].node), objs[i].p);
    obj_drop(i);
}

static void op_cleanup(fz_in *in)
{
    int pi = pick_node(in);
    if (pi < 0)
        return;
    /* apr_pool_cleanup_register allocates and does not look at the result:
     * armed, as the string helpers are */
    alloc_failed = 0;
    if (setjmp(fail_jmp)) {
        TRACE("cleanup on p%d: left by the abort function\n", pi);
        check_null(pi, 0);
        return;
    }
    armed = 1;
    apr_pool_cleanup_register(pool_of(pi), &pools[pi], count_cleanup,
                              apr_pool_cleanup_null);
    armed = 0;
    pools[pi].cleanups++;
}

static void op_limit(fz_in *in)
{
    int pi = pick_node(in);
    size_t limit = (size_t)(fz_u8(in) % 32) << 16;
    if (pi < 0)
        return;
    TRACE("reap_set_limit(reap of p%d, %zu)\n", pi, limit);
    if (reap_set_limit(apr_pool_reap_get(pool_of(pi)), limit) == 0)
        nodes[pi].limited = limit != 0;
}

/* subtree_drop's each: the cleanups a clear or destroy must run. */
static int expect_cleanups;

static void add_cleanups(int k) { expect_cleanups += pools[k].cleanups; }

/* Verifies and forgets the subtree of pi (pi too when with_top); returns
 * the cleanups that must run. */
static int pool_subtree_drop(int pi, bool with_top)
{
    expect_cleanups = 0;
    subtree_drop(pi, with_top, add_cleanups);
    return expect_cleanups;
}

static void check_cleanups(int before, int expect)
{
    if (cleanups_run - before != expect)
        fail("cleanups run differ from those registered", (size_t)(cleanups_run - before),
             (size_t)expect);
}

static void op_clear(fz_in *in)
{
    int pi = pick_node(in);
    if (pi < 0)
        return;
    TRACE("apr_pool_clear(p%d)\n", pi);
    int before = cleanups_run, expect = pool_subtree_drop(pi, false);
    apr_pool_clear(pool_of(pi));
    check_cleanups(before, expect);
    pools[pi].cleanups = 0;
}

static void op_destroy(fz_in *in)
{
    int pi = pick_node(in);
    if (pi < 0)
        return;
    TRACE("apr_pool_destroy(p%d)\n", pi);
    apr_pool_t *p = pool_of(pi);
    int before = cleanups_run, expect = pool_subtree_drop(pi, true);
    apr_pool_destroy(p);
    check_cleanups(before, expect);
}

/* Each pool's reap holds at least the objects the model knows of. */
static void check_all(void)
{
    for (int pi = 0; pi < FZ_NODES; pi++) {
        if (!pool_of(pi))
            continue;
        uint64_t n = 0;
        for (int i = 0; i < FZ_OBJS; i++)
            n += objs[i].p && objs[i].node == pi;
        reap_stats_t s;
        reap_get_stats(apr_pool_reap_get(pool_of(pi)), &s);
        if (s.live_objects < n)
            fail("pool's reap counts fewer live objects than the model", (size_t)s.live_objects,
                 (size_t)n);
    }
}

/* ---- driver ---------------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int initialised;
    if (!initialised) {
        if (apr_initialize() != APR_SUCCESS)
            fail("apr_initialize", 0, 0);
        initialised = 1;
    }
    model_reset();
    memset(pools, 0, sizeof pools);
    cleanups_run = 0;
    if (apr_pool_create(&root, NULL) != APR_SUCCESS)
        fail("root pool", 0, 0);

    fz_in in = fz_init(data, size);
    for (int steps = 0; !fz_done(&in) && steps < 4000; steps++) {
        switch (fz_u8(&in) % 13) {
        case 0: case 1: op_create(&in); break;
        case 2: case 3: op_alloc(&in, 0); break;
        case 4: op_alloc(&in, 1); break;
        case 5: op_alloc(&in, 2); break;
        case 6: op_string(&in); break;
        case 7: op_prealloc(&in); break;
        case 8: case 9: op_pfree(&in); break;
        case 10: op_clear(&in); break;
        case 11: op_destroy(&in); break;
        default: (fz_u8(&in) & 1) ? op_cleanup(&in) : op_limit(&in); break;
        }
        check_all();
    }

    int expect = 0;
    for (int k = 0; k < FZ_NODES; k++)
        if (pool_of(k))
            expect += pools[k].cleanups;
    int before = cleanups_run;
    for (int i = 0; i < FZ_OBJS; i++)
        if (objs[i].p)
            obj_check(i);
    apr_pool_destroy(root);
    check_cleanups(before, expect);
    return 0;
}
