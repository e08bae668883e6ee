/*
 * fuzz_apr.c - libFuzzer target: random sequences of APR pool operations on
 * the reap-backed APR (apr-patch/), checked against a shadow model.
 *
 * The input decodes (fuzz_input.h) into operations on at most MAX_POOLS
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
 * Limits of this target: libapr-1 is the patched library as
 * apr-patch/build-apr.sh installed it, not instrumented, so the fuzzer sees
 * no coverage inside apr_pools.c and ASan checks only this file's accesses
 * and libreap's.  libreap's sources are compiled into the target (with
 * coverage and UBSan) and, being in the executable, take precedence over
 * the installed libreap.so for libapr's calls into reap_*: the libreap
 * exercised is the one of this source tree.
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

#include "fuzz_input.h"
#define FUZZ_NAME "fuzz_apr"
#include "fuzz_model.h"
#include "reap.h"

#ifndef APR_POOL_HAS_PFREE
#error "fuzz_apr needs the reap-backed APR (apr-patch/build-apr.sh)"
#endif

/* libapr-1 still exports apr_pcalloc as a function (for old binaries);
 * apr_pools.h only has the macro. */
APR_DECLARE(void *) (apr_pcalloc)(apr_pool_t *p, apr_size_t size);

#define MAX_POOLS 8
#define MAX_OBJS 256
#define MEM_CAP (48u << 20)

typedef struct m_pool {
    apr_pool_t *p;               /* NULL: slot free */
    int parent;                  /* slot, -1 for a child of the root */
    apr_allocator_t *allocator;  /* its own allocator, or NULL */
    bool limited;                /* a limit was set on its reap */
    int cleanups;                /* registered and not yet run */
} m_pool;

typedef struct m_obj {
    unsigned char *p; /* NULL: slot free */
    size_t size;
    int pool;
    uint64_t seed;
} m_obj;

static m_pool pools[MAX_POOLS];
static m_obj objs[MAX_OBJS];
static apr_pool_t *root;
static size_t model_bytes;
static int cleanups_run, alloc_failed;

static bool in_subtree(int i, int top)
{
    for (; i >= 0; i = pools[i].parent)
        if (i == top)
            return true;
    return false;
}

static bool limited(int i)
{
    for (; i >= 0; i = pools[i].parent)
        if (pools[i].limited)
            return true;
    return false;
}

static int pick_pool(fz_in *in)
{
    int live[MAX_POOLS], n = 0;
    for (int i = 0; i < MAX_POOLS; i++)
        if (pools[i].p)
            live[n++] = i;
    return n ? live[fz_u8(in) % n] : -1;
}

static int pick_obj(fz_in *in)
{
    int start = fz_u8(in) % MAX_OBJS;
    for (int k = 0; k < MAX_OBJS; k++)
        if (objs[(start + k) % MAX_OBJS].p)
            return (start + k) % MAX_OBJS;
    return -1;
}

static int free_slot(void)
{
    for (int i = 0; i < MAX_OBJS; i++)
        if (!objs[i].p)
            return i;
    return -1;
}

static void obj_add(int slot, int pi, void *p, size_t size)
{
    if ((uintptr_t)p % 8)
        fail("object not aligned to APR_ALIGN_DEFAULT", (size_t)p, size);
    objs[slot] = (m_obj){p, size, pi, new_seed()};
    model_bytes += size;
    pattern_fill(p, size, objs[slot].seed);
}

static void obj_drop(int i)
{
    model_bytes -= objs[i].size;
    objs[i].p = NULL;
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
    int slot = -1;
    for (int i = 0; i < MAX_POOLS && slot < 0; i++)
        if (!pools[i].p)
            slot = i;
    uint8_t how = fz_u8(in);
    int parent = (how & 1) ? pick_pool(in) : -1;
    if (slot < 0)
        return;
    apr_pool_t *pp = parent >= 0 ? pools[parent].p : root, *p = NULL;
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
    pools[slot] = (m_pool){p, parent, al, false, 0};
}

static void op_alloc(fz_in *in, int kind)
{
    int pi = pick_pool(in), slot = free_slot();
    size_t size = pick_size(in);
    if (pi < 0 || slot < 0 || model_bytes + size > MEM_CAP)
        return;
    apr_pool_t *p = pools[pi].p;
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
    obj_add(slot, pi, m, size);
}

/* apr_psprintf / apr_pstrdup / apr_pstrndup: compared with the C library. */
static void op_string(fz_in *in)
{
    int pi = pick_pool(in), slot = free_slot();
    uint8_t kind = fz_u8(in) % 3;
    size_t len = pick_size(in) % (200u << 10);
    int num = (int)fz_u32(in);
    uint8_t c = fz_u8(in) | 0x20;
    if (pi < 0 || slot < 0 || model_bytes + 2 * len > MEM_CAP)
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
        s = apr_psprintf(pools[pi].p, "<%s|%d|%.*s|%x%%>", arg, num, (int)(len / 2), arg, num);
        snprintf(want, 2 * len + 64, "<%s|%d|%.*s|%x%%>", arg, num, (int)(len / 2), arg, num);
    } else if (kind == 1) {
        armed = 1;
        s = apr_pstrdup(pools[pi].p, arg);
        armed = 0;
        strcpy(want, arg);
    } else {
        armed = 1;
        s = apr_pstrndup(pools[pi].p, arg, len / 3);
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
        obj_add(slot, pi, s, strlen(want) + 1);
    }
    free(arg);
    free(want);
}

static void op_prealloc(fz_in *in)
{
    int i = pick_obj(in);
    size_t size = pick_size(in);
    if (i < 0 || model_bytes + size > MEM_CAP)
        return;
    m_obj o = objs[i];
    pattern_check(o.p, o.size, o.seed);
    alloc_failed = 0;
    void *q = apr_prealloc(pools[o.pool].p, o.p, size);
    TRACE("o%d = apr_prealloc(p%d, %p, %zu) = %p\n", i, o.pool, (void *)o.p, size, q);
    if (size == 0) {
        if (q)
            fail("apr_prealloc to 0 returned memory", 0, 0);
        obj_drop(i);
        return;
    }
    if (!q) {
        check_null(o.pool, size);
        pattern_check(o.p, o.size, o.seed);
        return;
    }
    pattern_check(q, size < o.size ? size : o.size, o.seed);
    obj_drop(i);
    obj_add(i, o.pool, q, size);
}

static void op_pfree(fz_in *in)
{
    int i = pick_obj(in);
    if (i < 0)
        return;
    pattern_check(objs[i].p, objs[i].size, objs[i].seed);
    TRACE("apr_pfree(p%d, o%d %p)\n", objs[i].pool, i, (void *)objs[i].p);
    apr_pfree(pools[objs[i].pool].p, objs[i].p);
    obj_drop(i);
}

static void op_cleanup(fz_in *in)
{
    int pi = pick_pool(in);
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
    apr_pool_cleanup_register(pools[pi].p, &pools[pi], count_cleanup,
                              apr_pool_cleanup_null);
    armed = 0;
    pools[pi].cleanups++;
}

static void op_limit(fz_in *in)
{
    int pi = pick_pool(in);
    size_t limit = (size_t)(fz_u8(in) % 32) << 16;
    if (pi < 0)
        return;
    TRACE("reap_set_limit(reap of p%d, %zu)\n", pi, limit);
    if (reap_set_limit(apr_pool_reap_get(pools[pi].p), limit) == 0)
        pools[pi].limited = limit != 0;
}

/* Verify and forget the subtree of pi (pi too when with_top); returns the
 * cleanups that must run. */
static int subtree_drop(int pi, bool with_top)
{
    int expect = 0;
    for (int i = 0; i < MAX_OBJS; i++)
        if (objs[i].p && in_subtree(objs[i].pool, pi)) {
            pattern_check(objs[i].p, objs[i].size, objs[i].seed);
            obj_drop(i);
        }
    for (int k = 0; k < MAX_POOLS; k++)
        if (pools[k].p && in_subtree(k, pi)) {
            expect += pools[k].cleanups;
            if (with_top || k != pi)
                pools[k].p = NULL;
        }
    return expect;
}

static void check_cleanups(int before, int expect)
{
    if (cleanups_run - before != expect)
        fail("cleanups run differ from those registered", (size_t)(cleanups_run - before),
             (size_t)expect);
}

static void op_clear(fz_in *in)
{
    int pi = pick_pool(in);
    if (pi < 0)
        return;
    TRACE("apr_pool_clear(p%d)\n", pi);
    int before = cleanups_run, expect = subtree_drop(pi, false);
    apr_pool_clear(pools[pi].p);
    check_cleanups(before, expect);
    pools[pi].cleanups = 0;
}

static void op_destroy(fz_in *in)
{
    int pi = pick_pool(in);
    if (pi < 0)
        return;
    TRACE("apr_pool_destroy(p%d)\n", pi);
    apr_pool_t *p = pools[pi].p;
    int before = cleanups_run, expect = subtree_drop(pi, true);
    apr_pool_destroy(p);
    check_cleanups(before, expect);
}

/* Each pool's reap holds at least the objects the model knows of. */
static void check_all(void)
{
    for (int pi = 0; pi < MAX_POOLS; pi++) {
        if (!pools[pi].p)
            continue;
        uint64_t n = 0;
        for (int i = 0; i < MAX_OBJS; i++)
            n += objs[i].p && objs[i].pool == pi;
        reap_stats_t s;
        reap_get_stats(apr_pool_reap_get(pools[pi].p), &s);
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
    trace = getenv("FUZZ_TRACE") != NULL;
    memset(pools, 0, sizeof pools);
    memset(objs, 0, sizeof objs);
    model_bytes = 0;
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
    for (int k = 0; k < MAX_POOLS; k++)
        if (pools[k].p)
            expect += pools[k].cleanups;
    int before = cleanups_run;
    for (int i = 0; i < MAX_OBJS; i++)
        if (objs[i].p)
            pattern_check(objs[i].p, objs[i].size, objs[i].seed);
    apr_pool_destroy(root);
    check_cleanups(before, expect);
    return 0;
}
