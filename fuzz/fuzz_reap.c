/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * fuzz_reap.c - libFuzzer target: random sequences of reap operations
 * checked against a shadow model.
 *
 * The input decodes (fuzz_input.h) into up to a few thousand operations on
 * at most FZ_NODES nested reaps and FZ_OBJS live objects: create (with or
 * without a parent and a user area), malloc, calloc, realloc and
 * aligned_alloc of sizes from 0 bytes through the 64 KiB large-object
 * threshold to 1 MiB and beyond any possible size, free, clear, destroy,
 * set a limit, and two kinds of misuse (freeing into the wrong reap, freeing
 * twice) that libreap must report through its misuse handler.  The model
 * remembers every live object, its reap and a pattern written over its whole
 * usable size; patterns are verified before every free and realloc and
 * before the reap holding them is cleared or destroyed, so any overlap of
 * two objects, or of an object with libreap's own descriptors, shows up as
 * a changed byte.  After every operation each live reap's figures are
 * checked against the model: live_objects exactly, live_bytes against the
 * blocks' sizes (exactly while the reap holds no large object), and
 * footprints against limits.  At the end every reap is
 * destroyed and the base allocator must hold no more in use than before the
 * input (no leak).  Any disagreement aborts, which libFuzzer reports as a
 * crash.  Built with ASan and UBSan, libreap's own code is instrumented too
 * (its sources are compiled into the target).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_NAME "fuzz_reap"
#include "fuzz_model.h"
#include "reap.h"

#define MAX_CREATES 64            /* per input: reap tags stay distinct */
#define LARGE_THRESHOLD (16u << 10) /* libreap's default (REAP_LARGE_THRESHOLD) */
#define MAX_CHUNK (32u << 10)       /* libreap's default (REAP_MAX_CHUNK) */
#define HUGE_SIZE ((size_t)1 << 40) /* at or above: NULL is the right answer */

/* What the model knows of a reap beyond its node (fuzz_model.h): the
 * reaps are the nodes, an object's len is reap_usable_size() when it was
 * handed out. */
typedef struct m_reap {
    size_t user_size;   /* bytes of user area, patterned with user_seed */
    uint64_t user_seed;
    size_t limit;       /* 0: none set on this reap */
    size_t grain;       /* 16, or 8 after reap_set_alignment(r, 8) */
    uint64_t cap;       /* max(limit, tree footprint when it was set) */
} m_reap;

static m_reap reaps[FZ_NODES];
static int creates;

static reap_t *reap_of(int i) { return nodes[i].h; }

/* ---- misuse reports ------------------------------------------------------ */

static jmp_buf misuse_jmp;
static volatile int misuse_armed;

static int on_misuse(const reap_misuse_t *m, void *arg)
{
    (void)arg;
    if (misuse_armed) {
        misuse_armed = 0;
        longjmp(misuse_jmp, 1);
    }
    fprintf(stderr, "fuzz_reap: unexpected misuse report: %s\n", m->message);
    return REAP_MISUSE_ABORT;
}

/* ---- checks beyond the patterns (fuzz_model.h) ------------------------------ */

static void zero_check(const unsigned char *p, size_t n)
{
    static const unsigned char zero[4096];
    for (size_t i = 0; i < n; i += sizeof zero) {
        size_t k = n - i < sizeof zero ? n - i : sizeof zero;
        if (memcmp(p + i, zero, k) != 0)
            fail("calloc memory not zero near offset", i, n);
    }
}

/* The block an object of n bytes takes in a chunk: n rounded up to the
 * reap's grain, at least one grain (reap.h, reap_stats_t). */
static size_t block_of(size_t n, size_t grain)
{
    return n == 0 ? grain : (n + grain - 1) & ~(grain - 1);
}

/* Records a new object and patterns it; checks what every allocation owes.
 * A large one (large: above the threshold, or its alignment padding
 * passing it, libreap/src/alloc.c) takes a chunk of its own, which
 * live_bytes counts whole; any other takes a block of the grain's
 * multiples, never less than the request rounded up to the grain, and at
 * most 8 bytes more when it was cut from a freed one (a rest of one grain
 * of 8 bytes stays with it). */
static void reap_obj_add(int slot, int ri, void *p, size_t size, size_t align, bool large)
{
    size_t usable = reap_usable_size(p), grain = reaps[ri].grain;
    if (usable < size)
        fail("usable size below the request", usable, size);
    if ((uintptr_t)p % (align < grain ? grain : align))
        fail("misaligned object", (size_t)p, align);
    if (!large && (usable % grain || usable < block_of(size, grain) ||
                   usable > block_of(size, grain) + 8))
        fail("a small object's block is not its size rounded to the grain", usable, size);
    obj_add(slot, ri, p, size, usable);
    objs[slot].exact = !large;
}

/* Does an object of n bytes, aligned to align, take a chunk of its own? */
static bool is_large(int ri, size_t n, size_t align)
{
    if (align <= reaps[ri].grain)
        return n > LARGE_THRESHOLD;
    return n + align > LARGE_THRESHOLD;
}

/* ---- sizes ------------------------------------------------------------------ */

static size_t pick_size(fz_in *in)
{
    switch (fz_u8(in) % 10) {
    case 0: return fz_u8(in) % 40;
    case 1: return fz_u8(in) * 4u;
    case 2: return fz_u16(in) % 16384;
    case 3: return LARGE_THRESHOLD - 64 + fz_u8(in) % 128;
    case 4: return LARGE_THRESHOLD + fz_u32(in) % (1u << 20);
    case 5: return (fz_u8(in) & 1 ? MAX_CHUNK : 131072u) - 48 + fz_u8(in) % 96;
    case 6: return fz_u16(in);
    case 7: return fz_u8(in) % 2 ? (size_t)1 << 46 : SIZE_MAX - fz_u8(in);
    default: return 16u * (fz_u8(in) % 64);
    }
}

static bool affordable(size_t size)
{
    return size < HUGE_SIZE && model_bytes + size < FZ_MEM_CAP;
}

/* A NULL from an allocation is right only for impossible sizes or under a
 * limit (then the reap counts the refusal). */
static void check_null(int ri, size_t size, uint64_t failures_before)
{
    if (size >= HUGE_SIZE)
        return;
    if (!limited(ri))
        fail("allocation failed with no limit", size, (size_t)ri);
    reap_stats_t s;
    reap_get_stats(reap_of(ri), &s);
    if (s.limit_failures <= failures_before)
        fail("refusal under a limit not counted in limit_failures", size,
             (size_t)s.limit_failures);
}

static uint64_t failures_of(int ri)
{
    reap_stats_t s;
    reap_get_stats(reap_of(ri), &s);
    return s.limit_failures;
}

/* ---- operations ------------------------------------------------------------- */

static void op_create(fz_in *in)
{
    int slot = free_node_slot();
    uint8_t how = fz_u8(in);
    int parent = (how & 1) ? pick_node(in) : -1;
    if (slot < 0 || creates >= MAX_CREATES)
        return;
    creates++;
    reap_options_t opts = {0};
    if (how & 2)
        opts.user_size = (how & 4) ? (REAP_USER_MAX + 1 + fz_u8(in))
                                   : fz_u16(in) % (REAP_USER_MAX + 1);
    reap_t *pr = parent >= 0 ? reap_of(parent) : NULL;
    reap_t *r = (how & 2) ? reap_create_ex(pr, &opts) : reap_create(pr);
    if (opts.user_size > REAP_USER_MAX) {
        if (r)
            fail("user area above REAP_USER_MAX accepted", opts.user_size, 0);
        return;
    }
    if (!r) {
        if (parent < 0 || !limited(parent))
            fail("reap_create failed with no limit", (size_t)parent, 0);
        return;
    }
    if (reap_parent(r) != pr)
        fail("reap_parent is not the parent", (size_t)parent, 0);
    unsigned char *ua = reap_user_area(r);
    if ((ua == NULL) != (opts.user_size == 0))
        fail("user area presence", opts.user_size, 0);
    for (size_t i = 0; i < opts.user_size; i++)
        if (ua[i])
            fail("user area not zero-filled", i, opts.user_size);
    size_t grain = REAP_ALIGNMENT;
    if ((how & 8) && reap_set_alignment(r, 8) == 0)
        grain = 8;
    else if (how & 8)
        fail("a new reap refused alignment 8", (size_t)slot, 0);
    if (reap_set_alignment(r, 4) == 0)
        fail("alignment 4 accepted", (size_t)slot, 0);
    TRACE("r%d = reap_create(parent r%d, user_size %zu, alignment %zu)\n", slot, parent,
          opts.user_size, grain);
    nodes[slot] = (fz_node){r, parent, false};
    reaps[slot] = (m_reap){.user_size = opts.user_size, .user_seed = new_seed(), .grain = grain};
    if (ua)
        pattern_fill(ua, opts.user_size, reaps[slot].user_seed);
}

static void op_malloc(fz_in *in, int kind)
{
    int ri = pick_node(in);
    size_t size = pick_size(in), n = 1 + fz_u8(in) % 4, align = REAP_ALIGNMENT;
    int slot = free_obj_slot();
    if (kind == 2) {
        uint8_t a = fz_u8(in);
        align = (size_t)1 << (a % 18);
        if (a & 0x80)
            align += 8; /* not a power of two: must be refused */
    }
    if (ri < 0 || slot < 0)
        return;
    if (kind != 2)
        align = reaps[ri].grain; /* what malloc and calloc promise */
    if (kind == 1 && size > LARGE_THRESHOLD)
        n = 1; /* keep objects below a few MiB: the model's time goes in filling */
    if (kind == 1 && (size & 3) == 3)
        n = SIZE_MAX / 2 + 1; /* a product that overflows (size >= 2) */
    size_t total = size;
    if (kind == 1 && __builtin_mul_overflow(n, size, &total))
        total = SIZE_MAX;
    if (total < HUGE_SIZE && !affordable(total + align))
        return;
    uint64_t before = failures_of(ri);
    void *p;
    if (kind == 0)
        p = reap_malloc(reap_of(ri), size);
    else if (kind == 1)
        p = reap_calloc(reap_of(ri), n, size);
    else
        p = reap_aligned_alloc(reap_of(ri), align, size);
    TRACE("o%d = %s(r%d, n %zu, size %zu, align %zu) = %p usable %zu\n", slot,
          kind == 0 ? "malloc" : kind == 1 ? "calloc" : "aligned_alloc", ri, n, size,
          align, p, reap_usable_size(p));
    if (kind == 2 && (align & (align - 1))) {
        if (p)
            fail("aligned_alloc accepted a non-power-of-two alignment", align, size);
        return;
    }
    if (!p) {
        check_null(ri, total, before);
        return;
    }
    if (total >= HUGE_SIZE)
        fail("an impossible size was allocated", total, 0);
    if (kind == 1)
        zero_check(p, total);
    reap_obj_add(slot, ri, p, total, align, is_large(ri, total, align));
}

static void op_realloc(fz_in *in)
{
    int i = pick_obj(in);
    size_t size = pick_size(in);
    if (i < 0 || (!affordable(size) && size < HUGE_SIZE))
        return;
    fz_obj o = objs[i];
    obj_check(i);
    uint64_t before = failures_of(o.node);
    void *q = reap_realloc(reap_of(o.node), o.p, size);
    TRACE("o%d = realloc(r%d, o%d %p, %zu) = %p usable %zu\n", i, o.node, i, (void *)o.p,
          size, q, reap_usable_size(q));
    if (size == 0) {
        if (q)
            fail("realloc to 0 returned an object", 0, 0);
        obj_drop(i);
        return;
    }
    if (!q) {
        check_null(o.node, size, before); /* the old object must be intact */
        obj_check(i);
        return;
    }
    if (size >= HUGE_SIZE)
        fail("an impossible size was reallocated", size, 0);
    size_t keep = size < o.size ? size : o.size;
    pattern_check(q, keep, o.seed);
    obj_drop(i);
    /* resized where it is, a large object stays in its chunk (while it
     * is worth one); moved, it is a new object of its size */
    bool large = q == o.p ? !o.exact : is_large(o.node, size, 0);
    reap_obj_add(i, o.node, q, size, reaps[o.node].grain, large);
}

static void op_free(fz_in *in)
{
    int i = pick_obj(in);
    if (i < 0)
        return;
    obj_check(i);
    TRACE("free(r%d, o%d %p)\n", objs[i].node, i, (void *)objs[i].p);
    reap_free(reap_of(objs[i].node), objs[i].p);
    obj_drop(i);
}

/* Free a live object into a reap that did not hand it out: reported. */
static void op_wrong_reap(fz_in *in)
{
    int i = pick_obj(in), ri = pick_node(in);
    if (i < 0 || ri < 0 || ri == objs[i].node)
        return;
    TRACE("free(r%d, o%d %p) of r%d: misuse\n", ri, i, (void *)objs[i].p, objs[i].node);
    if (setjmp(misuse_jmp) == 0) {
        misuse_armed = 1;
        reap_free(reap_of(ri), objs[i].p);
        misuse_armed = 0;
        fail("free into the wrong reap went unreported", (size_t)ri, (size_t)objs[i].node);
    }
    obj_check(i);
}

/* Free an object, then free it again at once: the second is reported,
 * whether the first left the block freed in its chunk, joined it to the
 * frontier or gave its chunk back.  A large object's chunk goes back to
 * the base allocator, which may reuse its first words: not tried. */
static void op_double_free(fz_in *in)
{
    int i = pick_obj(in);
    if (i < 0 || !objs[i].exact)
        return;
    obj_check(i);
    reap_t *r = reap_of(objs[i].node);
    void *p = objs[i].p;
    TRACE("free(r%d, o%d %p) twice: misuse\n", objs[i].node, i, p);
    reap_free(r, p);
    obj_drop(i);
    if (setjmp(misuse_jmp) == 0) {
        misuse_armed = 1;
        reap_free(r, p);
        misuse_armed = 0;
        fail("double free went unreported", (size_t)p, 0);
    }
}

/* subtree_drop's each: a reap's user area is intact until it goes. */
static void check_user_area(int k)
{
    if (reaps[k].user_size)
        pattern_check(reap_user_area(reap_of(k)), reaps[k].user_size, reaps[k].user_seed);
}

static void op_clear(fz_in *in)
{
    int ri = pick_node(in);
    if (ri < 0)
        return;
    TRACE("reap_clear(r%d)\n", ri);
    subtree_drop(ri, false, check_user_area);
    reap_clear(reap_of(ri));
    reap_stats_t s;
    reap_get_stats(reap_of(ri), &s);
    if (s.live_objects || s.live_bytes)
        fail("objects live after clear", (size_t)s.live_objects, (size_t)s.live_bytes);
    if (reaps[ri].user_size)
        pattern_check(reap_user_area(reap_of(ri)), reaps[ri].user_size,
                      reaps[ri].user_seed);
}

static void op_destroy(fz_in *in)
{
    int ri = pick_node(in);
    if (ri < 0)
        return;
    reap_t *r = reap_of(ri);
    TRACE("reap_destroy(r%d)\n", ri);
    subtree_drop(ri, true, check_user_area);
    reap_destroy(r);
}

static void op_limit(fz_in *in)
{
    static const size_t limits[] = {0, 16u << 10, 64u << 10, 256u << 10,
                                    1u << 20, 4u << 20, 16u << 20, 64u << 20};
    int ri = pick_node(in);
    size_t limit = limits[fz_u8(in) % 8];
    if (limit)
        limit += fz_u16(in);
    if (ri < 0)
        return;
    TRACE("reap_set_limit(r%d, %zu)\n", ri, limit);
    if (reap_set_limit(reap_of(ri), limit) != 0)
        return; /* ENOMEM setting up the bookkeeping: nothing changed */
    if (reap_get_limit(reap_of(ri)) != limit)
        fail("reap_get_limit differs from the limit set", limit, 0);
    reap_stats_t s;
    reap_get_tree_stats(reap_of(ri), &s);
    reaps[ri].limit = limit;
    nodes[ri].limited = limit != 0;
    reaps[ri].cap = limit > s.footprint ? limit : s.footprint;
}

/* ---- checks after every operation --------------------------------------- */

/* live_bytes counts a small object's block (its usable size, the model's
 * len) and a large one's whole chunk (more than its usable size). */
static void check_reap_figures(int ri)
{
    uint64_t count = 0, blocks = 0;
    bool all_exact = true;
    for (int i = 0; i < FZ_OBJS; i++)
        if (objs[i].p && objs[i].node == ri) {
            count++;
            blocks += objs[i].len;
            all_exact &= objs[i].exact;
        }
    reap_stats_t s;
    reap_get_stats(reap_of(ri), &s);
    if (s.live_objects != count)
        fail("live_objects differs from the model", (size_t)s.live_objects, (size_t)count);
    if (s.live_bytes < blocks || (all_exact && s.live_bytes != blocks))
        fail("live_bytes differs from the blocks' sizes", (size_t)s.live_bytes, (size_t)blocks);
    if (s.peak_live_bytes < s.live_bytes || s.peak_footprint < s.footprint)
        fail("a peak below its current value", (size_t)s.peak_live_bytes, (size_t)s.live_bytes);
    if (s.live_bytes + s.heap_free_bytes > s.footprint)
        fail("live and free bytes exceed the footprint", (size_t)s.live_bytes,
             (size_t)s.footprint);
    if (reaps[ri].limit) {
        reap_get_tree_stats(reap_of(ri), &s);
        if (s.footprint > reaps[ri].cap)
            fail("subtree footprint above its limit", (size_t)s.footprint,
                 (size_t)reaps[ri].cap);
    }
}

static void check_all(void)
{
    for (int ri = 0; ri < FZ_NODES; ri++)
        if (reap_of(ri))
            check_reap_figures(ri);
}

/* ---- driver -------------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_ops(fz_in *in)
{
    for (int steps = 0; !fz_done(in) && steps < 4000; steps++) {
        switch (fz_u8(in) % 16) {
        case 0: case 1: op_create(in); break;
        case 2: case 3: case 4: op_malloc(in, 0); break;
        case 5: op_malloc(in, 1); break;
        case 6: op_malloc(in, 2); break;
        case 7: case 8: op_realloc(in); break;
        case 9: case 10: op_free(in); break;
        case 11: op_clear(in); break;
        case 12: op_destroy(in); break;
        case 13: op_limit(in); break;
        case 14: op_wrong_reap(in); break;
        default: op_double_free(in); break;
        }
        check_all();
    }
}

static void destroy_all(void)
{
    for (int ri = 0; ri < FZ_NODES; ri++)
        if (reap_of(ri) && nodes[ri].parent < 0) {
            reap_t *r = reap_of(ri);
            subtree_drop(ri, true, check_user_area);
            reap_destroy(r);
        }
    for (int ri = 0; ri < FZ_NODES; ri++)
        if (reap_of(ri))
            fail("a reap outlived its top-level ancestor", (size_t)ri, 0);
    if (model_bytes != 0)
        fail("model bytes left after destroying every reap", model_bytes, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reap_base_stats_t b0, b1;
    reap_set_misuse_handler(on_misuse, NULL);
    model_reset();
    memset(reaps, 0, sizeof reaps);
    reaps[0].grain = REAP_ALIGNMENT;
    creates = 0;
    reap_base_trim(); /* in_use counts this thread's cache: empty it */
    reap_get_base_stats(&b0);

    fz_in in = fz_init(data, size);
    nodes[0] = (fz_node){reap_create(NULL), -1, false};
    TRACE("r0 = reap_create(NULL)\n");
    if (!nodes[0].h)
        fail("reap_create(NULL) failed", 0, 0);
    run_ops(&in);
    destroy_all();

    reap_base_trim();
    reap_get_base_stats(&b1);
    if (b1.in_use > b0.in_use)
        fail("base allocator holds more in use after every reap is gone",
             (size_t)b1.in_use, (size_t)b0.in_use);
    return 0;
}
