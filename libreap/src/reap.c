/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * reap.c - reap objects: create, clear, destroy, nesting, limits.
 *
 * A reap lives in its first chunk, followed by the caller's user area, so
 * creating one costs one base allocation.  Reaps form a tree:
 * a reap's children are on a list guarded by its lock, which is the only
 * lock a reap ever takes, and only to add or remove a child; clear and
 * destroy take children off one at a time and destroy them depth first.
 *
 * Walking: reap_walk() visits a subtree while other threads create and
 * destroy reaps in it, holding the locks of the reaps on the path from the
 * root to the one visited (see the comment there for why that cannot
 * deadlock).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "internal.h"
#include "region.h"
#include "util/misuse.h"
#include "util/trace.h"

const char *reap_version(void) { return REAP_VERSION_STRING; }

/* ---- the tree ------------------------------------------------------------------- */

static void link_child(reap_t *parent, reap_t *c)
{
    rp_lock(&parent->lock);
    rp_child_list_push(&parent->children, c);
    rp_unlock(&parent->lock);
}

static void unlink_child(reap_t *parent, reap_t *c)
{
    rp_lock(&parent->lock);
    rp_child_list_unlink(&parent->children, c);
    rp_unlock(&parent->lock);
}

/* ---- create --------------------------------------------------------------------- */

/* The first chunk: the reap, its user area and room to bump a few
 * objects (past its descriptor, when that is at its start). */
static size_t first_chunk_size(size_t user)
{
    size_t size = rp_opt.first_chunk;
    while (rp_chunk_head(size) + RP_REAP_SIZE + user + 256 > size)
        size *= 2;
    return size;
}

reap_t *reap_create_from(reap_t *parent, const reap_options_t *opts,
                         const reap_chunk_source_t *chunks)
{
    rp_reap_once();
    size_t user = opts ? opts->user_size : 0;
    if (user > REAP_USER_MAX)
        return NULL;
    user = (user + RP_GRAIN - 1) & ~(size_t)(RP_GRAIN - 1);
    const reap_chunk_source_t *src = chunks ? chunks : parent ? parent->src : NULL;
    size_t size = first_chunk_size(user);
    size_t hint = parent ? atomic_load_explicit(&parent->child_chunk, memory_order_relaxed) : 0;
    reap_t *acct = parent ? parent->acct : NULL;
    if (hint > size && rp_charge_chain(acct, hint) == 0)
        size = hint;
    else if (rp_charge_chain(acct, size) != 0) {
        /* other threads may be creating children of parent right now */
        __atomic_fetch_add(&parent->limit_failures, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    uint32_t flags;
    char *b = rp_chunk_get(src, size, &flags);
    if (!b) {
        rp_uncharge_chain(acct, size);
        return NULL;
    }
    reap_t *r = (reap_t *)(void *)rp_chunk_body(b, size);
    memset(r, 0, RP_REAP_SIZE + user);
    r->grain_mask = RP_GRAIN - 1;
    /* annotating or tracing: every allocation must come into libreap */
    r->inline_limit = !RP_ANNOTATED() && !rp_tracing() ? rp_opt.large_threshold : 0;
    r->user_size = user;
    r->src = src;
    r->acct = acct;
    r->parent = parent;
    r->footprint = r->peak_footprint = size;
    rp_lock_init(&r->lock);
    rp_region_init(r, b, size, flags);
    if (parent)
        link_child(parent, r);
    if (RP_UNLIKELY(rp_tracing()))
        rp_trace_create(r, parent);
    return r;
}

reap_t *reap_create_ex(reap_t *parent, const reap_options_t *opts)
{
    return reap_create_from(parent, opts, NULL);
}

reap_t *reap_create(reap_t *parent) { return reap_create_from(parent, NULL, NULL); }

void reap_trace_tag(reap_t *r, const char *tag)
{
    if (RP_UNLIKELY(rp_tracing()) && r)
        rp_trace_tag(r, tag);
}

int reap_set_alignment(reap_t *r, size_t alignment)
{
    if (RP_UNLIKELY(r == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap passed to reap_set_alignment", r, NULL);
        return EINVAL;
    }
    /* Blocks already handed out keep the old grain, and the free code
     * checks pointers against the new one. */
    if ((alignment != RP_GRAIN_MIN && alignment != RP_GRAIN) || !rp_region_untouched(r))
        return EINVAL;
    r->grain_mask = alignment - 1;
    if (RP_UNLIKELY(rp_tracing()))
        rp_trace_align(r, alignment);
    return 0;
}

void *reap_user_area(reap_t *r)
{
    return r && r->user_size ? (char *)r + RP_REAP_SIZE : NULL;
}

reap_t *reap_parent(const reap_t *r) { return r ? r->parent : NULL; }

uint64_t reap_footprint(const reap_t *r, uint64_t *peak)
{
    if (RP_UNLIKELY(r == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap passed to reap_footprint", NULL, NULL);
        if (peak)
            *peak = 0;
        return 0;
    }
    uint64_t fp = __atomic_load_n(&r->footprint, __ATOMIC_ACQUIRE);
    if (peak)
        *peak = __atomic_load_n(&r->peak_footprint, __ATOMIC_RELAXED);
    return fp;
}

/* ---- clear and destroy ------------------------------------------------------------ */

static void destroy_detached(reap_t *r);

/* Take the children off one at a time, so a thread adding a child meanwhile
 * (a misuse APR also forbids) cannot corrupt the list. */
static void destroy_children(reap_t *r)
{
    if (!r->children) /* unlocked peek: adding a child meanwhile is misuse anyway */
        return;
    for (;;) {
        rp_lock(&r->lock);
        reap_t *c = r->children;
        if (c)
            rp_child_list_unlink(&r->children, c);
        rp_unlock(&r->lock);
        if (!c)
            return;
        destroy_detached(c);
    }
}

static void destroy_detached(reap_t *r)
{
    destroy_children(r);
    rp_heap_release(r);
    rp_region_release_all(r);
    size_t size = r->first->size;
    const reap_chunk_source_t *src = r->src; /* r lives in the first chunk */
    rp_uncharge_chain(r->acct, size);
    rp_chunk_put(src, r->first);
}

void reap_destroy(reap_t *r)
{
    if (RP_UNLIKELY(r == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap passed to reap_destroy", r, NULL);
        return;
    }
    if (RP_UNLIKELY(rp_tracing()))
        rp_trace_reap(RP_TRACE_DESTROY, r);
    if (r->parent) {
        size_t hint = rp_opt.first_chunk;
        while (hint * 4 <= r->peak_footprint && hint * 2 <= rp_opt.max_chunk)
            hint *= 2;
        atomic_store_explicit(&r->parent->child_chunk, hint, memory_order_relaxed);
        unlink_child(r->parent, r);
    }
    destroy_detached(r);
}

void reap_clear(reap_t *r)
{
    if (RP_UNLIKELY(r == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap passed to reap_clear", r, NULL);
        return;
    }
    if (RP_UNLIKELY(rp_tracing()))
        rp_trace_reap(RP_TRACE_CLEAR, r);
    destroy_children(r);
    rp_settle(r);
    r->live_bytes = 0;
    r->cleared_objects = r->allocs - r->frees;
    r->clears++;
    /* httpd clears pools that often hold nothing (the core output
     * filter's, twice a request): a reap whose frontier still stands where
     * the last clear left it has nothing to give back or reset. */
    if (rp_region_untouched(r))
        return;
    rp_heap_clear(r);
    r->free_bytes = 0;
    r->swept = 0;
    rp_region_reset(r);
}

/* ---- walking ---------------------------------------------------------------------- */

/* Visit r, then its children in list order (newest first), depth first.
 *
 * Lifetime: fn(r) runs while the caller holds the lock of r's parent (or,
 * for the root, while the caller of reap_walk() keeps r alive).  A reap
 * leaves its parent's list only under the parent's lock (reap_destroy's
 * unlink_child, destroy_children of a clear or destroy) and is freed only
 * after leaving it, so r and its lock stay valid while we hold the parent's
 * lock; r's lock, taken next, keeps its children valid in the same way.
 * So the locks of the whole path from the root to the visited reap are held.
 *
 * No deadlock: every thread that holds more than one reap lock took them
 * going down the tree, an ancestor's before a descendant's (this walk,
 * and so reap_get_tree_stats and reap_set_limit, which walk with it); every
 * other taker (link_child, unlink_child, destroy_children) holds one lock
 * at a time and takes nothing else under it.  A reap's parent never
 * changes, so "ancestor before descendant" is a fixed order, and a wait-for
 * cycle would need some thread to wait for an ancestor of a lock it holds.
 * The callback must keep to that: it must not create, clear or destroy a
 * reap of the walked tree, nor walk or read tree statistics from an
 * ancestor of the reap it is given (reap.h says so). */
static int walk(reap_t *r, unsigned depth, reap_walk_fn fn, void *arg)
{
    int rc = fn(r, depth, arg);
    if (rc != 0)
        return rc;
    rp_lock(&r->lock);
    for (reap_t *c = r->children; c && rc == 0; c = c->next_sibling)
        rc = walk(c, depth + 1, fn, arg);
    rp_unlock(&r->lock);
    return rc;
}

int reap_walk(reap_t *root, reap_walk_fn fn, void *arg)
{
    if (RP_UNLIKELY(root == NULL || fn == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap or callback passed to reap_walk", root, NULL);
        return EINVAL;
    }
    return walk(root, 0, fn, arg);
}

/* ---- limits ------------------------------------------------------------------------- */

/* reap_set_limit's walk: every reap of the subtree whose accounting reap
 * was old accounts to acct instead (reaps with limits of their own, and so
 * their subtrees, keep theirs), and the subtree's footprint is summed. */
typedef struct adoption {
    reap_t *old, *acct;
    uint64_t footprint;
} adoption;

static int adopt_one(reap_t *r, unsigned depth, void *arg)
{
    adoption *a = arg;
    (void)depth;
    a->footprint += reap_footprint(r, NULL);
    if (r->acct == a->old)
        r->acct = a->acct;
    return 0;
}

int reap_set_limit(reap_t *r, size_t bytes)
{
    if (RP_UNLIKELY(r == NULL)) {
        rp_misuse(REAP_MISUSE_NULL_REAP, "NULL reap passed to reap_set_limit", r, NULL);
        return EINVAL;
    }
    if (r->acct != r) {
        adoption a = {r->acct, r, 0};
        /* Unlocked peek, as in destroy_children: a child created meanwhile
         * (reap.h: no other thread uses the subtree) would be misuse.  A
         * reap without children, the commonest case (httpd's request pool
         * as mod_reap meets it), needs no walk and no lock. */
        if (r->children)
            reap_walk(r, adopt_one, &a);
        else
            adopt_one(r, 0, &a);
        uint64_t fp = a.footprint;
        r->acct = r;
        atomic_store(&r->tree_footprint, fp);
        atomic_store(&r->tree_peak, fp);
    }
    r->limit = bytes;
    return 0;
}

size_t reap_get_limit(const reap_t *r) { return r && r->acct == r ? r->limit : 0; }
