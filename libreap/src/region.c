/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * region.c - a reap's chunks, its bump frontier, and its large objects.
 *
 * This is the region half of a reap.  Blocks are bumped through chunks that
 * double from rp_opt.first_chunk up to rp_opt.max_chunk; the first chunk
 * also holds the reap itself and is kept by reap_clear().  When a block does
 * not fit, the current chunk is retired: a fence is written at its frontier
 * so coalescing stops there, and a tail of at least rp_opt.tail_keep bytes
 * goes onto the heap instead of being wasted.  A retired chunk whose blocks
 * all come free again goes back to where chunks come from: the reap's
 * source (reap_options_t.chunks) or the base allocator.  Objects above
 * rp_opt.large_threshold get a base block each, on a list for clear/destroy.
 * Every byte taken from or given back to the base allocator is charged or
 * uncharged here, which is where footprint limits bite.
 *
 * Annotations (annotate.h): an arena is poisoned when the frontier enters
 * it, since nothing there is the program's until alloc.c hands it out; so is
 * a large object's whole base block.  Each reap is a Valgrind memory pool
 * from rp_region_init() to rp_region_release_all(), which frees its objects.
 */
#include <string.h>

#include "base/base.h"
#include "internal.h"

/* The fence remembers its chunk, so a free block that fills a retired
 * chunk's whole arena finds the chunk to give back. */
typedef struct fence {
    size_t prev_foot;
    size_t head;
    rp_chunk_t *chunk;
} fence_t;

/* ---- blocks without headers (reap_start_as_region) ------------------------ */

/* Words of each bitmap of c: a bit for every 8 bytes after its start (a
 * few more than its arena, which the bitmaps shorten). */
static size_t bitmap_words(const reap_t *r, const rp_chunk_t *c)
{
    size_t bytes = (size_t)((char *)c + c->size - rp_chunk_start(r, c));
    return (bytes / 8 + 63) / 64;
}

/* Room a chunk of about n bytes needs for its two bitmaps while r is a
 * region (a bit per 8 bytes each, rounded up to words), with slack for the
 * rounding of the chunk's size. */
static size_t bitmap_room(const reap_t *r, size_t n)
{
    return r->head_room ? 0 : n / 16 + 64;
}

/* Put c's bitmaps, cleared, at its start, on the page the chunk's header
 * already touches (at its end they would make a chunk that is little used
 * resident to its last page): its blocks will have no headers. */
static void lay_out_bitmaps(const reap_t *r, rp_chunk_t *c)
{
    size_t words = bitmap_words(r, c);
    c->starts = (uint64_t *)(void *)rp_chunk_start(r, c);
    c->freed = c->starts + words;
    c->region_end = (char *)c + c->size; /* all of it, while it is the current chunk */
    rp_ann_fresh(c->starts, 2 * words * sizeof(uint64_t));
    memset(c->starts, 0, 2 * words * sizeof(uint64_t));
}

/* r's headerless blocks lie in [region_lo, region_hi): widen it to c. */
static void region_range_add(reap_t *r, const rp_chunk_t *c)
{
    const char *lo = rp_chunk_arena(r, c);
    if (!r->region_lo || lo < r->region_lo)
        r->region_lo = lo;
    if (c->region_end > r->region_hi)
        r->region_hi = c->region_end;
}

/* A new chunk: with bitmaps while r is a region, else without. */
static void chunk_format(reap_t *r, rp_chunk_t *c)
{
    if (r->head_room == 0) {
        lay_out_bitmaps(r, c);
        region_range_add(r, c);
    } else {
        c->starts = c->freed = NULL;
        c->region_end = NULL;
    }
}

static inline size_t bit_of(const reap_t *r, const rp_chunk_t *c, const char *b)
{
    return (size_t)(b - rp_chunk_arena(r, c)) / 8;
}

static inline bool bit_test(const uint64_t *map, size_t i) { return (map[i / 64] >> (i % 64)) & 1; }
static inline void bit_set(uint64_t *map, size_t i) { map[i / 64] |= (uint64_t)1 << (i % 64); }
static inline void bit_clear(uint64_t *map, size_t i) { map[i / 64] &= ~((uint64_t)1 << (i % 64)); }

/* Holes: a region's freed blocks, used again.  A block without header
 * freed while its reap is a region (APR discards outgrown hash and array
 * storage this way) keeps its bits, and, when it can hold a hole_t in its
 * object, waits on one of r->holes until a request the frontier cannot
 * take would otherwise take a new chunk.  The lists go by size and are
 * LIFO; a request scans a few of its own list, and the first of any list
 * above fits it.  A hole is cut to the request; the rest is a freed block
 * of its own, on a list if it can hold the record.  The lists hold
 * something only while the reap is a region: closing it (its later blocks
 * have headers, which holes cannot give) and formatting the first chunk
 * again empty them.
 *
 * The record lives in freed memory, so a program that writes to an object
 * after discarding it can change it: a record is checked before anything
 * it points to is read, and the block it names against its chunk's bits
 * before it is handed out.  One that fails is reported as corruption. */
static size_t region_size(const reap_t *r, const rp_chunk_t *c, const void *p);

typedef struct hole {
    struct hole *next;
    size_t size; /* the block's bytes, as region_size() reads them */
} hole_t;

#define HOLE_MIN sizeof(hole_t)
#define HOLE_SCAN 8 /* holes of a request's own list it looks at */

static unsigned hole_bin(size_t size)
{
    return size < 128 ? 0 : size < 1024 ? 1 : size < 8192 ? 2 : 3;
}

static void hole_put(reap_t *r, void *p, size_t size)
{
    unsigned i = hole_bin(size);
    hole_t *h = p;
    rp_ann_quiet_begin(); /* the object may be shorter than the record */
    h->next = r->holes[i];
    h->size = size;
    rp_ann_quiet_end();
    r->holes[i] = h;
}

/* p may be a hole of r: aligned, in its range of blocks without header. */
static bool hole_placed(const reap_t *r, const void *p)
{
    return ((uintptr_t)p & 7) == 0 && rp_region_may_own(r, p);
}

/* The first hole that takes need bytes, unlinked, or NULL; *bad is the
 * first record that fails its checks (then NULL). */
static hole_t *hole_find(reap_t *r, size_t need, rp_chunk_t **chunk, hole_t **bad)
{
    for (unsigned i = hole_bin(need); i < RP_HOLE_BINS; i++) {
        hole_t **link = (hole_t **)&r->holes[i];
        for (unsigned k = 0; *link && k < HOLE_SCAN; k++, link = &(*link)->next) {
            hole_t *h = *link;
            if (h->size < HOLE_MIN || (h->size & 7) || (h->next && !hole_placed(r, h->next))) {
                *bad = h;
                return NULL;
            }
            if (h->size < need)
                continue;
            rp_chunk_t *c = rp_region_chunk(r, h);
            if (!c || region_size(r, c, h) != h->size ||
                !bit_test(c->freed, bit_of(r, c, (char *)h - 8))) {
                *bad = h;
                return NULL;
            }
            *link = h->next;
            *chunk = c;
            return h;
        }
    }
    return NULL;
}

rp_block_t *rp_region_hole_take(reap_t *r, size_t need)
{
    RP_ASSERT(r->head_room == 0);
    rp_chunk_t *c = NULL;
    hole_t *bad = NULL;
    rp_ann_quiet_begin(); /* the records lie in freed objects */
    hole_t *h = hole_find(r, need, &c, &bad);
    size_t size = h ? h->size : 0;
    rp_ann_quiet_end();
    if (bad) { /* reported outside the quiet part: the handler may longjmp */
        memset(r->holes, 0, sizeof r->holes);
        rp_misuse(REAP_MISUSE_CORRUPTION, "a discarded object was written to:", r, bad);
        return NULL;
    }
    if (!h)
        return NULL;
    char *b = (char *)h - 8;
    bit_clear(c->freed, bit_of(r, c, b));
    if (size > need) { /* the rest stays a freed block */
        size_t j = bit_of(r, c, b + need);
        bit_set(c->starts, j);
        bit_set(c->freed, j);
        if (size - need >= HOLE_MIN)
            hole_put(r, (char *)h + need, size - need);
    }
    return (rp_block_t *)(void *)b;
}

void rp_region_close(reap_t *r)
{
    RP_ASSERT(r->head_room == 0);
    /* The last block without header ends 8 bytes past the frontier (its
     * object is 8 bytes into its block); the first block with one starts
     * at the frontier, its prev_foot over those 8 bytes, as any block's. */
    r->chunk->region_end = r->bump + 8;
    r->head_room = RP_HEADER;
    r->starts = NULL;
    memset(r->holes, 0, sizeof r->holes); /* holes only ever wait in a region */
    /* the range shrinks to what the headerless blocks really take */
    r->region_lo = r->region_hi = NULL;
    for (const rp_chunk_t *c = r->chunk; c; c = c->older)
        if (c->starts)
            region_range_add(r, c);
}

rp_chunk_t *rp_chunk_of(const reap_t *r, const void *p)
{
    for (rp_chunk_t *c = r->chunk; c; c = c->older)
        if ((const char *)p > (const char *)c && (const char *)p < (const char *)c + c->size)
            return c;
    return NULL;
}

rp_chunk_t *rp_region_chunk(const reap_t *r, const void *p)
{
    rp_chunk_t *c = rp_chunk_of(r, p);
    return c && c->region_end && (const char *)p < c->region_end ? c : NULL;
}

/* p, in the part of chunk c of r without headers: the bytes from p to the
 * next block, or 0 if no block starts at p. */
static size_t region_size(const reap_t *r, const rp_chunk_t *c, const void *p)
{
    const char *b = (const char *)p - 8, *arena = rp_chunk_arena(r, c);
    /* where the last block without header ends: the frontier of a chunk
     * still being bumped as a region, else 8 bytes before region_end */
    const char *limit = c == r->chunk && r->head_room == 0 ? r->bump : c->region_end - 8;
    if (((uintptr_t)p & 7) != 0 || b < arena || b >= limit)
        return 0;
    size_t i = bit_of(r, c, b), end = bit_of(r, c, limit);
    if (!bit_test(c->starts, i))
        return 0;
    /* the next start, a word at a time */
    size_t j = i + 1;
    while (j < end) {
        uint64_t w = c->starts[j / 64] >> (j % 64);
        if (w) {
            size_t k = j + (size_t)__builtin_ctzll(w);
            return ((k < end ? k : end) - i) * 8;
        }
        j = (j / 64 + 1) * 64;
    }
    return (size_t)(limit - b);
}

size_t rp_region_checked(reap_t *r, const rp_chunk_t *c, const void *p, bool realloc)
{
    size_t size = region_size(r, c, p);
    if (size == 0)
        rp_misuse(REAP_MISUSE_FOREIGN, realloc ? RP_REALLOC_FOREIGN : RP_FREE_FOREIGN, r, p);
    else if (bit_test(c->freed, bit_of(r, c, (const char *)p - 8)))
        rp_misuse(realloc ? REAP_MISUSE_FREED_REALLOC : REAP_MISUSE_DOUBLE_FREE,
                  realloc ? "realloc of a freed pointer" : "double free of", r, p);
    else
        return size;
    return 0;
}

void rp_region_release(reap_t *r, rp_chunk_t *c, void *p, size_t size)
{
    bit_set(c->freed, bit_of(r, c, (char *)p - 8));
    r->frees++;
    rp_live_sub(r, size);
    if (r->head_room == 0 && size >= HOLE_MIN)
        hole_put(r, p, size);
    rp_ann_object_free(r, p, size);
}

bool rp_region_free(reap_t *r, void *p)
{
    rp_chunk_t *c = rp_region_chunk(r, p);
    if (!c)
        return false;
    size_t size = rp_region_checked(r, c, p, false);
    if (size)
        rp_region_release(r, c, p, size);
    return true;
}

void rp_region_move_start(reap_t *r, void *p, void *q)
{
    rp_chunk_t *c = rp_chunk_of(r, p);
    RP_ASSERT(c && c->starts && (char *)q > (char *)p && (((uintptr_t)q - (uintptr_t)p) & 7) == 0);
    /* the bytes before q become a block of their own, freed at once */
    bit_set(c->starts, bit_of(r, c, (char *)q - 8));
    bit_set(c->freed, bit_of(r, c, (char *)p - 8));
    rp_live_sub(r, (size_t)((char *)q - (char *)p));
}

/* ---- the frontier ------------------------------------------------------------ */

static void set_frontier(reap_t *r, rp_chunk_t *c)
{
    char *end = (char *)c + c->size;
    r->chunk = c;
    r->bump = rp_chunk_arena(r, c);
    r->bump_end = end - RP_FENCE_ROOM;
    r->starts = c->starts;
    r->origin = r->bump;
    rp_ann_noaccess(r->bump, (size_t)(end - r->bump));
}

/* Lay out r's first chunk, with blocks without headers when region (the
 * range of such blocks starts again from it), and put the frontier at its
 * start. */
static void first_chunk_format(reap_t *r, bool region)
{
    r->head_room = region ? 0 : RP_HEADER;
    r->region_lo = r->region_hi = NULL;
    memset(r->holes, 0, sizeof r->holes);
    chunk_format(r, r->first);
    set_frontier(r, r->first);
}

void rp_region_begin(reap_t *r)
{
    RP_ASSERT(rp_region_untouched(r) && r->grain_mask == RP_GRAIN_MIN - 1);
    first_chunk_format(r, true);
}

void rp_region_init(reap_t *r, rp_chunk_t *first, size_t first_size)
{
    first->older = first->newer = NULL;
    first->size = first_size;
    r->first = first;
    rp_ann_pool_create(r);
    first_chunk_format(r, r->region_start);
    r->next_chunk_size = first_size * 2 < rp_opt.max_chunk ? first_size * 2 : rp_opt.max_chunk;
}

/* The heap's bin table is carved from the frontier as an ordinary in-use
 * block that nothing ever frees; it is not counted as live. */
static void heap_create(reap_t *r)
{
    size_t csz = rp_request2size(r, sizeof(rp_heap_t));
    rp_block_t *b = (rp_block_t *)r->bump;
    r->bump += csz;
    b->head = csz | r->head_bits;
    r->heap = rp_b2mem(b);
    r->quick_below = rp_opt.quick_limit;
    rp_ann_metadata(r->heap, sizeof(rp_heap_t));
    memset(r->heap, 0, sizeof(rp_heap_t));
}

/* Close a chunk the frontier is leaving: the tail becomes a free block on
 * the heap when it is worth keeping, and a fence ends the chunk.  Making
 * the bins for it carves them at the frontier, so the caller says whether
 * the frontier has room for that (may_make_bins). */
static void retire(reap_t *r, rp_chunk_t *old, char *bump, char *end, bool may_make_bins)
{
    size_t tail = (size_t)(end - bump);
    size_t pinuse = RP_PINUSE;
    if (r->head_room == 0) /* a region keeps no tail; its blocks end here */
        old->region_end = bump + 8;
    else if (tail >= rp_opt.tail_keep && (r->heap || may_make_bins)) {
        rp_block_t *t = (rp_block_t *)bump;
        if (!r->heap)
            heap_create(r);
        t->head = tail | RP_PINUSE | ((size_t)r->tag << RP_TAG_SHIFT);
        bump = end;
        pinuse = 0;
    }
    /* When the block before the fence is in use, the fence's prev_foot is
     * the last word of that block's payload: leave it alone. */
    fence_t *f = (fence_t *)bump;
    if (!pinuse)
        f->prev_foot = tail;
    f->head = (size_t)((char *)old + old->size - bump) | pinuse | RP_CINUSE | RP_FENCE |
              ((size_t)r->tag << RP_TAG_SHIFT);
    f->chunk = old;
    if (!pinuse) /* binned, but no free: the reap stays on its bump path */
        rp_heap_insert(r, (rp_block_t *)(end - tail), tail);
}

size_t rp_chunk_round(const reap_chunk_source_t *src, size_t size)
{
    if (src)
        return (size + REAP_CHUNK_GRAIN - 1) & ~(size_t)(REAP_CHUNK_GRAIN - 1);
    return rp_base_usable(size);
}

void *rp_chunk_get(const reap_chunk_source_t *src, size_t size)
{
    return src ? src->alloc(src->ctx, size) : rp_base_alloc(size);
}

void rp_chunk_put(const reap_chunk_source_t *src, void *c, size_t size)
{
    if (src) {
        /* the source owns it now: open it, as the base allocator would be
         * open to itself (the arena was closed to the program) */
        rp_ann_undefined(c, size);
        src->free(src->ctx, c, size);
    } else {
        rp_base_free(c, size);
    }
}

/* size bytes for a chunk (from r's source) or a large object (from the base
 * allocator), charged to r's footprint; NULL when a limit refuses them
 * (*refused set) or memory runs out.  give() takes them back. */
static void *try_take(reap_t *r, size_t size, bool chunk, bool *refused)
{
    if (rp_charge(r, size) != 0) {
        *refused = true;
        return NULL;
    }
    void *p = chunk ? rp_chunk_get(r->src, size) : rp_base_alloc(size);
    if (!p)
        rp_uncharge(r, size);
    return p;
}

/* try_take(), a refusal counted in limit_failures. */
static void *take(reap_t *r, size_t size, bool chunk)
{
    bool refused = false;
    void *p = try_take(r, size, chunk, &refused);
    r->limit_failures += refused;
    return p;
}

static void give(reap_t *r, void *p, size_t size, bool chunk)
{
    if (chunk)
        rp_chunk_put(r->src, p, size);
    else
        rp_base_free(p, size);
    rp_uncharge(r, size);
}

/* Open a chunk that fits a block of csz bytes (and the bin table, should
 * retiring the current chunk need one): of the doubling size or, when that
 * is refused, of the least size that serves, so that near its limit a reap
 * grows in small steps rather than failing far below it.  0 or ENOMEM. */
static int new_chunk(reap_t *r, size_t csz)
{
    size_t need = sizeof(rp_chunk_t) + csz + rp_request2size(r, sizeof(rp_heap_t)) + RP_FENCE_ROOM;
    need += bitmap_room(r, need);
    size_t size = r->next_chunk_size;
    while (size < need)
        size *= 2;
    size = rp_chunk_round(r->src, size);
    bool refused = false;
    rp_chunk_t *c = try_take(r, size, true, &refused);
    size_t least = rp_chunk_round(r->src, need);
    if (!c && size > least) {
        size = least;
        refused = false;
        c = try_take(r, size, true, &refused);
    }
    r->limit_failures += refused; /* once, for the last try */
    if (!c)
        return ENOMEM;
    rp_chunk_t *old = r->chunk;
    char *old_bump = r->bump, *old_end = r->bump_end;
    rp_chunk_list_push(&r->chunk, c);
    c->size = size;
    chunk_format(r, c);
    set_frontier(r, c);
    retire(r, old, old_bump, old_end, true); /* c was sized to hold the bins too */
    if (r->next_chunk_size < rp_opt.max_chunk)
        r->next_chunk_size *= 2;
    return 0;
}

bool rp_region_heap_ensure(reap_t *r)
{
    size_t csz = rp_request2size(r, sizeof(rp_heap_t));
    if (r->heap)
        return true;
    if (csz > (size_t)(r->bump_end - r->bump) && new_chunk(r, csz) != 0)
        return false;
    if (!r->heap) /* retiring the old chunk may have made it already */
        heap_create(r);
    return true;
}

/* A chunk holding just one block of csz bytes, linked behind the current
 * chunk and retired at once; it goes back when its block is freed. */
static rp_block_t *side_block(reap_t *r, size_t csz)
{
    size_t need = sizeof(rp_chunk_t) + csz + RP_FENCE_ROOM;
    size_t size = rp_chunk_round(r->src, need + bitmap_room(r, need));
    rp_chunk_t *c = take(r, size, true);
    if (!c)
        return NULL;
    c->size = size;
    chunk_format(r, c);
    rp_chunk_list_insert(&r->chunk, r->chunk, c); /* behind the current one */
    rp_block_t *b = (rp_block_t *)rp_chunk_arena(r, c);
    char *end = (char *)c + size;
    rp_ann_noaccess(b, (size_t)(end - (char *)b));
    if (c->starts)
        bit_set(c->starts, 0);
    else
        b->head = csz | r->head_bits;
    retire(r, c, (char *)b + csz, end - RP_FENCE_ROOM, false);
    return b;
}

rp_block_t *rp_region_bump(reap_t *r, size_t csz)
{
    size_t room = (size_t)(r->bump_end - r->bump);
    if (csz > room) {
        if (room >= rp_opt.tail_keep && csz > r->next_chunk_size / 4)
            return side_block(r, csz);
        if (new_chunk(r, csz) != 0)
            return NULL;
    }
    rp_block_t *b = (rp_block_t *)r->bump;
    r->bump += csz;
    RP_ASSERT((csz & r->grain_mask) == 0 && r->bump <= r->bump_end); /* the fence still fits */
    if (r->starts)
        bit_set(r->starts, (size_t)((char *)b - r->origin) / 8);
    else
        b->head = csz | r->head_bits;
    return b;
}

static void chunk_release(reap_t *r, rp_chunk_t *c) { give(r, c, c->size, true); }

bool rp_region_try_release(reap_t *r, rp_block_t *b, size_t size)
{
    fence_t *f = (fence_t *)rp_at(b, size);
    rp_chunk_t *c = f->chunk;
    if (c == r->first || (char *)b != rp_chunk_arena(r, c))
        return false;
    RP_ASSERT(c->newer != NULL); /* c is retired, so it has a newer one */
    rp_chunk_list_unlink(&r->chunk, c);
    chunk_release(r, c);
    return true;
}

/* ---- large objects --------------------------------------------------------- */

/* A large object: [padding][rp_large_t][prev_foot][head][payload ... end). */
#define LARGE_HEAD (sizeof(rp_large_t) + 2 * sizeof(size_t))

void *rp_large_alloc(reap_t *r, size_t n, size_t alignment)
{
    size_t pad = alignment > RP_GRAIN ? alignment - RP_GRAIN : 0;
    if (n >= RP_MAX_REQUEST || pad >= RP_MAX_REQUEST)
        return NULL;
    size_t size = rp_base_usable(LARGE_HEAD + n + pad);
    char *base = take(r, size, false);
    if (!base)
        return NULL;
    uintptr_t mem = ((uintptr_t)base + LARGE_HEAD + alignment - 1) & ~(uintptr_t)(alignment - 1);
    rp_large_t *lg = (rp_large_t *)(mem - LARGE_HEAD);
    rp_block_t *b = rp_mem2b((void *)mem);
    size_t usable = ((uintptr_t)base + size - mem) & ~(size_t)RP_FLAGS;
    lg->base = base;
    lg->base_size = size;
    rp_large_list_push(&r->large, lg);
    b->head = usable | RP_LARGE | RP_CINUSE | RP_PINUSE | ((size_t)r->tag << RP_TAG_SHIFT);
    r->live_bytes += size;
    rp_ann_noaccess(base, size); /* alloc.c opens the object itself */
    return (void *)mem;
}

static rp_large_t *large_of(const rp_block_t *b)
{
    return (rp_large_t *)((char *)b + 2 * sizeof(size_t) - LARGE_HEAD);
}

size_t rp_large_usable(const rp_block_t *b) { return rp_bsize(b); }

size_t rp_large_footprint(const rp_block_t *b) { return large_of(b)->base_size; }

void rp_large_free(reap_t *r, rp_block_t *b)
{
    rp_large_t *lg = large_of(b);
    rp_large_list_unlink(&r->large, lg);
    b->head &= ~RP_CINUSE;
    rp_live_sub(r, lg->base_size);
    give(r, lg->base, lg->base_size, false);
}

/* ---- clear and destroy ------------------------------------------------------- */

static void release_large(reap_t *r)
{
    rp_large_t *lg = r->large;
    r->large = NULL;
    while (lg) {
        rp_large_t *next = lg->next;
        give(r, lg->base, lg->base_size, false);
        lg = next;
    }
}

void rp_region_release_all(reap_t *r)
{
    rp_ann_pool_destroy(r);
    rp_ann_quiet_begin();
    release_large(r);
    rp_chunk_t *c = r->chunk;
    while (c) { /* side chunks may lie behind the first one */
        rp_chunk_t *older = c->older;
        if (c != r->first)
            chunk_release(r, c);
        c = older;
    }
    r->chunk = r->first;
    r->first->newer = r->first->older = NULL;
    rp_ann_quiet_end();
}

void rp_region_reset(reap_t *r)
{
    rp_region_release_all(r);
    rp_region_init(r, r->first, r->first->size);
}

bool rp_region_owns(const reap_t *r, const void *p)
{
    for (const rp_chunk_t *c = r->chunk; c; c = c->older)
        if ((const char *)p > (const char *)c && (const char *)p < (const char *)c + c->size)
            return true;
    for (const rp_large_t *lg = r->large; lg; lg = lg->next)
        if ((const char *)p == (const char *)lg + LARGE_HEAD)
            return true;
    return false;
}
