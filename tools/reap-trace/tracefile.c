/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * tracefile.c - decoding, merging and checking a trace (see tracefile.h).
 *
 * Three steps.  decode() turns the blocks into raw events with absolute
 * times and addresses, each with its file offset.  merge() orders them:
 * a k-way merge of the threads' own sequences (O(events x threads), fine
 * for the tens of threads a server has).  model() replays them against a
 * map of live addresses, which catches what would make a replay wrong,
 * and writes the dense program of rt_op_t.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefile.h"
#include "util/trace.h"

void *rt_map(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void rt_unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes ? bytes : 1);
}

/* ---- errors ---------------------------------------------------------------- */

typedef struct ctx {
    const char *name;
    char *err;
    size_t errlen;
    bool failed;
} ctx_t;

__attribute__((format(printf, 3, 4))) static int fail(ctx_t *c, uint64_t off, const char *fmt, ...)
{
    if (c->failed)
        return -1;
    c->failed = true;
    int n = snprintf(c->err, c->errlen, "reap-trace: %s: offset %llu: ", c->name, (unsigned long long)off);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < c->errlen)
        vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- decoding -------------------------------------------------------------- */

typedef struct raw {
    uint64_t t, off, size;
    uint64_t r, a, b; /* reap; object or parent; new object */
    const uint8_t *tag;
    uint32_t stream;
    uint8_t kind, taglen;
} raw_t;

typedef struct decoded {
    raw_t *ev;
    size_t n, cap;
    uint64_t stream_key[4096]; /* source << 32 | thread */
    uint32_t nstreams;
} decoded_t;

static int stream_of(ctx_t *c, decoded_t *d, uint64_t key, uint64_t off)
{
    for (uint32_t i = 0; i < d->nstreams; i++)
        if (d->stream_key[i] == key)
            return (int)i;
    if (d->nstreams == sizeof d->stream_key / sizeof d->stream_key[0])
        return fail(c, off, "more than 4096 threads");
    d->stream_key[d->nstreams] = key;
    return (int)d->nstreams++;
}

typedef struct cursor {
    const uint8_t *p, *end, *start;
    uint64_t last_ptr;
} cursor_t;

static bool get(cursor_t *k, uint64_t *v) { return rp_varint_get(&k->p, k->end, v); }

static bool get_ptr(cursor_t *k, uint64_t *v)
{
    uint64_t z;
    if (!get(k, &z))
        return false;
    k->last_ptr += (uint64_t)rp_unzigzag(z);
    *v = k->last_ptr;
    return true;
}

/* The fields of an event of kind e->kind. */
static bool fields(cursor_t *k, raw_t *e)
{
    switch (e->kind) {
    case RP_TRACE_CREATE:
        return get_ptr(k, &e->r) && get_ptr(k, &e->a);
    case RP_TRACE_CLEAR:
    case RP_TRACE_DESTROY:
        return get_ptr(k, &e->r);
    case RP_TRACE_ALLOC:
        return get_ptr(k, &e->r) && get(k, &e->size) && get_ptr(k, &e->a);
    case RP_TRACE_FREE:
    case RP_TRACE_DISCARD:
        return get_ptr(k, &e->r) && get_ptr(k, &e->a);
    case RP_TRACE_REALLOC:
        return get_ptr(k, &e->r) && get_ptr(k, &e->a) && get_ptr(k, &e->b) && get(k, &e->size);
    case RP_TRACE_TAG: {
        uint64_t n;
        if (!get_ptr(k, &e->r) || !get(k, &n) || n > RP_TRACE_TAG_MAX || n > (uint64_t)(k->end - k->p))
            return false;
        e->tag = k->p, e->taglen = (uint8_t)n;
        k->p += n;
        return true;
    }
    case RP_TRACE_ALIGN:
        return get_ptr(k, &e->r) && get(k, &e->size);
    case RP_TRACE_REGION:
        return get_ptr(k, &e->r);
    }
    return false;
}

static int decode_block(ctx_t *c, decoded_t *d, const uint8_t *base, const uint8_t *p,
                        const uint8_t *end, uint32_t stream, uint64_t t)
{
    cursor_t k = {p, end, base, 0};
    while (k.p < k.end) {
        raw_t *e = &d->ev[d->n];
        uint64_t off = (uint64_t)(k.p - base), dt;
        memset(e, 0, sizeof *e);
        e->kind = *k.p++;
        e->off = off;
        e->stream = stream;
        if (e->kind == 0 || e->kind >= RP_TRACE_KIND_END)
            return fail(c, off, "unknown event kind %u", e->kind);
        if (!get(&k, &dt) || !fields(&k, e))
            return fail(c, off, "event runs past the end of its block (truncated or corrupt)");
        t += dt;
        e->t = t;
        if (++d->n == d->cap)
            return fail(c, off, "more events than the file can hold (corrupt)");
    }
    return 0;
}

static int decode(ctx_t *c, decoded_t *d, const uint8_t *data, size_t size, size_t at)
{
    while (at < size) {
        cursor_t k = {data + at + 1, data + size, data, 0};
        uint64_t src, tid, base, len;
        if (data[at] != RP_TRACE_BLOCK)
            return fail(c, at, "not a block (byte 0x%02x)", data[at]);
        if (!get(&k, &src) || !get(&k, &tid) || !get(&k, &base) || !get(&k, &len))
            return fail(c, at, "truncated block header");
        if (len > (uint64_t)(k.end - k.p))
            return fail(c, at, "truncated block: %llu bytes of events announced, %llu in the file",
                        (unsigned long long)len, (unsigned long long)(k.end - k.p));
        int s = stream_of(c, d, src << 32 | (tid & 0xffffffffu), at);
        if (s < 0 || decode_block(c, d, data, k.p, k.p + len, (uint32_t)s, base) < 0)
            return -1;
        at = (size_t)(k.p + len - data);
    }
    return 0;
}

/* ---- merging ---------------------------------------------------------------- */

/* Frees, clears and destroys first on a tie between threads. */
static int rank(const raw_t *e)
{
    return e->kind == RP_TRACE_FREE || e->kind == RP_TRACE_DISCARD || e->kind == RP_TRACE_CLEAR ||
                   e->kind == RP_TRACE_DESTROY
               ? 0
               : 1;
}

/* The order of d->ev to replay in, into order[]. */
static int merge(decoded_t *d, uint32_t *order)
{
    uint32_t ns = d->nstreams;
    size_t *count = calloc(ns + 1, sizeof *count), *head = calloc(ns + 1, sizeof *head);
    uint32_t *by = rt_map(d->n * sizeof *by);
    if (!count || !head || (!by && d->n)) {
        free(count), free(head);
        return -1;
    }
    for (size_t i = 0; i < d->n; i++)
        count[d->ev[i].stream + 1]++;
    for (uint32_t s = 0; s < ns; s++)
        count[s + 1] += count[s];
    memcpy(head, count, (ns + 1) * sizeof *head);
    for (size_t i = 0; i < d->n; i++)
        by[head[d->ev[i].stream]++] = (uint32_t)i;
    memcpy(head, count, (ns + 1) * sizeof *head); /* head[s]: next of s; count[s+1]: its end */
    for (size_t o = 0; o < d->n; o++) {
        int best = -1;
        for (uint32_t s = 0; s < ns; s++) {
            if (head[s] == count[s + 1])
                continue;
            const raw_t *e = &d->ev[by[head[s]]], *b = best < 0 ? NULL : &d->ev[by[head[best]]];
            if (!b || e->t < b->t || (e->t == b->t && rank(e) < rank(b)))
                best = (int)s;
        }
        order[o] = by[head[best]++];
    }
    rt_unmap(by, d->n * sizeof *by);
    free(count), free(head);
    return 0;
}

/* ---- the model -------------------------------------------------------------- */

/* Live addresses to slots: open addressing, linear probing, deletion by
 * backward shift.  Key 0 is never stored (the malloc pseudo-reap is slot 0
 * without an entry). */
typedef struct amap {
    uint64_t *key;
    uint32_t *val;
    size_t mask;
} amap_t;

static size_t slot_of(const amap_t *m, uint64_t k)
{
    size_t i = (size_t)((k >> 4) * 0x9E3779B97F4A7C15ull) & m->mask;
    while (m->key[i] && m->key[i] != k)
        i = (i + 1) & m->mask;
    return i;
}

static bool amap_get(const amap_t *m, uint64_t k, uint32_t *v)
{
    size_t i = slot_of(m, k);
    if (!m->key[i])
        return false;
    *v = m->val[i];
    return true;
}

static void amap_put(amap_t *m, uint64_t k, uint32_t v)
{
    size_t i = slot_of(m, k);
    m->key[i] = k, m->val[i] = v;
}

static void amap_del(amap_t *m, uint64_t k)
{
    size_t i = slot_of(m, k);
    if (!m->key[i])
        return;
    m->key[i] = 0;
    for (size_t j = (i + 1) & m->mask; m->key[j]; j = (j + 1) & m->mask) {
        size_t home = (size_t)((m->key[j] >> 4) * 0x9E3779B97F4A7C15ull) & m->mask;
        /* move j back into the hole i unless its home lies in (i, j] */
        if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
            m->key[i] = m->key[j], m->val[i] = m->val[j], m->key[j] = 0;
            i = j;
        }
    }
}

typedef struct model {
    ctx_t *c;
    rt_trace_t *tr;
    amap_t objs, reaps;
    uint64_t *obj_addr, *reap_addr;
    uint32_t *obj_next, *obj_prev, *obj_reap, *first_obj;
    rt_tree_t tree;
    size_t cap_objs, cap_reaps;
    uint64_t t0;
} model_t;

#define NONE RT_NONE

static void obj_unlink(model_t *m, uint32_t o)
{
    uint32_t r = m->obj_reap[o], n = m->obj_next[o], p = m->obj_prev[o];
    if (p != NONE)
        m->obj_next[p] = n;
    else
        m->first_obj[r] = n;
    if (n != NONE)
        m->obj_prev[n] = p;
    amap_del(&m->objs, m->obj_addr[o]);
}

static uint32_t new_obj(model_t *m, uint32_t r, uint64_t addr, uint64_t size)
{
    uint32_t o = m->tr->nobjs++;
    m->obj_addr[o] = addr, m->obj_reap[o] = r;
    m->tr->obj_size[o] = size;
    m->obj_prev[o] = NONE, m->obj_next[o] = m->first_obj[r];
    if (m->first_obj[r] != NONE)
        m->obj_prev[m->first_obj[r]] = o;
    m->first_obj[r] = o;
    amap_put(&m->objs, addr, o);
    return o;
}

static uint32_t new_reap(model_t *m, uint64_t addr, uint32_t parent1)
{
    uint32_t r = m->tr->nreaps++;
    m->reap_addr[r] = m->tr->reap_id[r] = addr;
    m->tr->reap_parent[r] = parent1;
    m->first_obj[r] = NONE;
    rt_tree_link(&m->tree, r, parent1);
    if (addr)
        amap_put(&m->reaps, addr, r);
    return r;
}

/* Forget r's objects, and with destroy its subtree and r itself. */
static void kill(model_t *m, uint32_t r, bool destroy)
{
    while (m->tree.first_child[r] != NONE)
        kill(m, m->tree.first_child[r], true);
    while (m->first_obj[r] != NONE)
        obj_unlink(m, m->first_obj[r]);
    if (!destroy)
        return;
    rt_tree_unlink(&m->tree, r, m->tr->reap_parent[r]);
    amap_del(&m->reaps, m->reap_addr[r]);
}

static rt_op_t *emit(model_t *m, const raw_t *e, uint8_t kind, uint32_t r)
{
    rt_op_t *op = &m->tr->ops[m->tr->nops++];
    op->t = e->t - m->t0;
    op->kind = kind, op->reap = r;
    return op;
}

/* The slot of reap address a; in a fork child an unknown one is the
 * parent's, made here as a top-level reap. */
static int reap_slot(model_t *m, const raw_t *e, uint64_t a, uint32_t *r)
{
    if (a == 0) {
        *r = 0;
        return 0;
    }
    if (amap_get(&m->reaps, a, r))
        return 0;
    if (!m->tr->forked)
        return fail(m->c, e->off, "reap 0x%llx was never created (or is destroyed)", (unsigned long long)a);
    *r = new_reap(m, a, 0);
    emit(m, e, RT_CREATE, *r)->other = 0;
    return 0;
}

/* The slot of live object a, or 1 (skip) in a fork child. */
static int obj_slot(model_t *m, const raw_t *e, uint64_t a, uint32_t *o)
{
    if (amap_get(&m->objs, a, o))
        return 0;
    if (m->tr->forked) {
        m->tr->skipped++;
        return 1;
    }
    return fail(m->c, e->off, "%s of object 0x%llx, which is not allocated",
                e->kind == RP_TRACE_REALLOC ? "realloc" : "free", (unsigned long long)a);
}

static int alloc_new(model_t *m, const raw_t *e, uint64_t a, uint32_t r, uint32_t *o)
{
    uint32_t old;
    if (amap_get(&m->objs, a, &old))
        return fail(m->c, e->off, "object 0x%llx handed out while still allocated", (unsigned long long)a);
    *o = new_obj(m, r, a, e->size);
    return 0;
}

static int model_event(model_t *m, const raw_t *e)
{
    uint32_t r, o, p;
    rt_op_t *op;
    int rc;
    switch (e->kind) {
    case RP_TRACE_CREATE:
        if (e->r == 0 || amap_get(&m->reaps, e->r, &r))
            return fail(m->c, e->off, "reap 0x%llx created while it exists", (unsigned long long)e->r);
        p = NONE;
        if (e->a && reap_slot(m, e, e->a, &p) < 0)
            return -1;
        r = new_reap(m, e->r, p == NONE ? 0 : p + 1);
        emit(m, e, RT_CREATE, r)->other = p == NONE ? 0 : p + 1;
        return 0;
    case RP_TRACE_CLEAR:
    case RP_TRACE_DESTROY:
        if (e->r == 0)
            return fail(m->c, e->off, "the malloc pseudo-reap cannot be cleared or destroyed");
        if (!amap_get(&m->reaps, e->r, &r)) {
            if (m->tr->forked)
                return (void)m->tr->skipped++, 0;
            return fail(m->c, e->off, "reap 0x%llx was never created (or is destroyed)",
                        (unsigned long long)e->r);
        }
        kill(m, r, e->kind == RP_TRACE_DESTROY);
        emit(m, e, e->kind == RP_TRACE_DESTROY ? RT_DESTROY : RT_CLEAR, r);
        return 0;
    case RP_TRACE_ALLOC:
        if (reap_slot(m, e, e->r, &r) < 0 || alloc_new(m, e, e->a, r, &o) < 0)
            return -1;
        op = emit(m, e, RT_ALLOC, r);
        op->obj = o, op->size = e->size;
        return 0;
    case RP_TRACE_FREE:
    case RP_TRACE_DISCARD: /* version 3: a free */
        if ((rc = obj_slot(m, e, e->a, &o)) != 0)
            return rc < 0 ? -1 : 0;
        obj_unlink(m, o);
        op = emit(m, e, RT_FREE, m->obj_reap[o]);
        op->obj = o, op->size = m->tr->obj_size[o];
        return 0;
    case RP_TRACE_REALLOC:
        if ((rc = obj_slot(m, e, e->a, &o)) != 0)
            return rc < 0 ? -1 : 0;
        r = m->obj_reap[o];
        obj_unlink(m, o);
        if (alloc_new(m, e, e->b, r, &p) < 0)
            return -1;
        op = emit(m, e, RT_REALLOC, r);
        op->obj = o, op->other = p, op->size = e->size;
        return 0;
    case RP_TRACE_TAG:
        if (!amap_get(&m->reaps, e->r, &r)) {
            if (m->tr->forked)
                return (void)m->tr->skipped++, 0;
            return fail(m->c, e->off, "tag of reap 0x%llx, which does not exist", (unsigned long long)e->r);
        }
        free(m->tr->reap_tag[r]);
        m->tr->reap_tag[r] = strndup((const char *)e->tag, e->taglen);
        return 0;
    case RP_TRACE_ALIGN:
        if (reap_slot(m, e, e->r, &r) < 0)
            return -1;
        if (r == 0 || (e->size != 8 && e->size != 16) || m->first_obj[r] != NONE)
            return fail(m->c, e->off, "alignment %llu of reap 0x%llx (8 or 16, before its first object)",
                        (unsigned long long)e->size, (unsigned long long)e->r);
        m->tr->reap_align[r] = (uint8_t)e->size;
        return 0;
    case RP_TRACE_REGION: /* version 3: every reap starts as a region now */
        if (reap_slot(m, e, e->r, &r) < 0)
            return -1;
        if (r == 0 || m->tr->reap_align[r] != 8 || m->first_obj[r] != NONE)
            return fail(m->c, e->off, "reap 0x%llx made a region (8-byte alignment first, before its first object)",
                        (unsigned long long)e->r);
        return 0;
    }
    return fail(m->c, e->off, "unknown event kind %u", e->kind);
}

static size_t pow2_above(size_t n)
{
    size_t p = 16;
    while (p < 2 * n)
        p *= 2;
    return p;
}

static int model_arrays(model_t *m, size_t n)
{
    rt_trace_t *tr = m->tr;
    size_t cap = n + 1, h = pow2_above(n + 1);
    m->cap_objs = m->cap_reaps = tr->cap = cap;
    tr->ops = rt_map(cap * sizeof *tr->ops);
    tr->obj_size = rt_map(cap * sizeof *tr->obj_size);
    tr->reap_parent = rt_map(cap * sizeof *tr->reap_parent);
    tr->reap_id = rt_map(cap * sizeof *tr->reap_id);
    tr->reap_tag = calloc(cap, sizeof *tr->reap_tag);
    tr->reap_align = rt_map(cap);
    m->obj_addr = rt_map(cap * sizeof(uint64_t));
    m->reap_addr = rt_map(cap * sizeof(uint64_t));
    uint32_t **u32[] = {&m->obj_next,          &m->obj_prev,       &m->obj_reap,      &m->first_obj,
                        &m->tree.first_child, &m->tree.next_sib, &m->tree.prev_sib};
    for (size_t i = 0; i < sizeof u32 / sizeof u32[0]; i++)
        if (!(*u32[i] = rt_map(cap * sizeof(uint32_t))))
            return -1;
    m->objs = (amap_t){rt_map(h * 8), rt_map(h * 4), h - 1};
    m->reaps = (amap_t){rt_map(h * 8), rt_map(h * 4), h - 1};
    return tr->ops && tr->obj_size && tr->reap_parent && tr->reap_id && tr->reap_tag && tr->reap_align && m->obj_addr && m->reap_addr &&
                   m->objs.key && m->objs.val && m->reaps.key && m->reaps.val
               ? 0
               : -1;
}

static void model_free(model_t *m)
{
    size_t cap = m->cap_objs, h = m->objs.mask + 1;
    rt_unmap(m->obj_addr, cap * 8), rt_unmap(m->reap_addr, cap * 8);
    uint32_t *u32[] = {m->obj_next,          m->obj_prev,       m->obj_reap,      m->first_obj,
                       m->tree.first_child, m->tree.next_sib, m->tree.prev_sib};
    for (size_t i = 0; i < sizeof u32 / sizeof u32[0]; i++)
        rt_unmap(u32[i], cap * 4);
    rt_unmap(m->objs.key, h * 8), rt_unmap(m->objs.val, h * 4);
    rt_unmap(m->reaps.key, h * 8), rt_unmap(m->reaps.val, h * 4);
}

/* ---- loading ------------------------------------------------------------------ */

static int load(ctx_t *c, const uint8_t *data, size_t size, rt_trace_t *tr)
{
    memset(tr, 0, sizeof *tr);
    uint64_t version, flags, pid;
    cursor_t k = {data + 8, data + size, data, 0};
    if (size < 8 || memcmp(data, RP_TRACE_MAGIC, 8) != 0)
        return fail(c, 0, "not a reap trace (no \"%s\" magic)", RP_TRACE_MAGIC);
    if (!get(&k, &version) || !get(&k, &flags) || !get(&k, &pid))
        return fail(c, 8, "truncated header");
    if (version < 1 || version > RP_TRACE_VERSION) /* 1 and 2 lack some kinds of event */
        return fail(c, 8, "format version %llu, this tool reads 1 to %d", (unsigned long long)version,
                    RP_TRACE_VERSION);
    tr->forked = flags & RP_TRACE_FORKED;
    decoded_t *d = calloc(1, sizeof *d);
    if (!d)
        return fail(c, 0, "out of memory");
    d->cap = size / 3 + 2; /* an event takes 3 bytes at least */
    d->ev = rt_map(d->cap * sizeof *d->ev);
    uint32_t *order = rt_map(d->cap * sizeof *order);
    model_t m = {.c = c, .tr = tr};
    int rc = -1;
    if (!d->ev || !order || model_arrays(&m, d->cap) < 0)
        fail(c, 0, "out of memory");
    else if (decode(c, d, data, size, (size_t)(k.p - data)) == 0 && merge(d, order) == 0) {
        m.t0 = d->n ? d->ev[order[0]].t : 0;
        new_reap(&m, 0, 0); /* the malloc pseudo-reap */
        rc = 0;
        for (size_t i = 0; i < d->n && rc == 0; i++)
            rc = model_event(&m, &d->ev[order[i]]);
    }
    model_free(&m);
    rt_unmap(order, d->cap * sizeof *order);
    rt_unmap(d->ev, d->cap * sizeof *d->ev);
    free(d);
    return rc;
}

int rt_load_mem(const char *name, const uint8_t *data, size_t size, rt_trace_t *tr, char *err, size_t len)
{
    ctx_t c = {name, err, len, false};
    int rc = load(&c, data, size, tr);
    if (rc < 0)
        rt_free(tr);
    return rc;
}

int rt_load(const char *path, rt_trace_t *tr, char *err, size_t len)
{
    memset(tr, 0, sizeof *tr);
    int f = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (f < 0 || fstat(f, &st) < 0) {
        snprintf(err, len, "reap-trace: %s: %s", path, strerror(errno));
        if (f >= 0)
            close(f);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    void *data = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, f, 0) : (void *)"";
    close(f);
    if (data == MAP_FAILED) {
        snprintf(err, len, "reap-trace: %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = rt_load_mem(path, data, size, tr, err, len);
    if (size)
        munmap(data, size);
    return rc;
}

void rt_free(rt_trace_t *tr)
{
    if (tr->reap_tag)
        for (uint32_t r = 0; r < tr->nreaps; r++)
            free(tr->reap_tag[r]);
    free(tr->reap_tag);
    rt_unmap(tr->ops, tr->cap * sizeof *tr->ops);
    rt_unmap(tr->obj_size, tr->cap * sizeof *tr->obj_size);
    rt_unmap(tr->reap_parent, tr->cap * sizeof *tr->reap_parent);
    rt_unmap(tr->reap_id, tr->cap * sizeof *tr->reap_id);
    rt_unmap(tr->reap_align, tr->cap);
    memset(tr, 0, sizeof *tr);
}
