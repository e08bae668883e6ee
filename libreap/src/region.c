/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * region.c - a reap's chunks, its bump frontier, and its solo chunks.
 *
 * This is the region half of a reap.  Blocks are bumped through chunks
 * whose sizes grow with the footprint, powers of two, from
 * rp_opt.first_chunk up to rp_opt.max_chunk; the first also holds the reap
 * and is kept by reap_clear().  A chunk is one block of the base allocator, or of the
 * reap's chunk source, which takes them from it, aligned to its size; its
 * descriptor (internal.h) is found from any pointer into it.  When a block
 * does not fit, the frontier moves to a new chunk and what is left of the
 * old one becomes a freed block, filed for reuse (leaheap.c).  An object
 * above rp_opt.large_threshold, or one too big for what the current chunk
 * has left while that is still much, gets a solo chunk of its own, given
 * back when the object is freed.  Every byte taken from or given back to
 * the source is charged or uncharged here, which is where limits bite, and
 * here are the bitmaps' bulk operations and the lazy count of bumps.
 *
 * Annotations (annotate.h): an arena is poisoned when its chunk is
 * formatted, since nothing there is the program's until alloc.c hands it
 * out; so is a solo chunk's.  Each reap is a Valgrind memory pool from
 * rp_region_init() to rp_region_release_all(), which frees its objects.
 */
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "region.h"

/* ---- descriptors ----------------------------------------------------------- */

unsigned rp_desc_min_shift;
intptr_t rp_desc_off[64];
uint32_t rp_desc_colours[64];
uint32_t rp_desc_bytes[64];

/* A chunk of 2^s bytes keeps its descriptor in its superblock's first
 * slot when a descriptor fits in 2^s / 16 bytes and the table of them for
 * all the superblock's blocks fits there, beside the base allocator's
 * header (128 bytes); the room left over on the header's page gives the
 * colours.  Colours reaching past that page put the descriptor of an 8,
 * 16 or 32 KiB chunk on a page of its own: one more resident page for
 * each such chunk, 8 KiB beside every 32 KiB of a large pool (a quarter
 * of what it holds) where the header's page alone is 4 KiB. */
static void desc_init(void)
{
    size_t sb = (size_t)1 << rp_base_map_shift, page = (size_t)sysconf(_SC_PAGESIZE);
    rp_desc_min_shift = (unsigned)rp_base_map_shift; /* none, unless one fits */
    for (unsigned s = rp_base_map_shift; s-- > 9;) {
        size_t z = (size_t)1 << s, bytes = sizeof(rp_chunk_t) + (z / 512 + 1) * sizeof(rp_pair_t);
        rp_desc_bytes[s] = (uint32_t)((bytes + 63) & ~(size_t)63);
        size_t table = 128 + (sb / z - 1) * (z / 16);
        if (bytes > z / 16 || table > z || rp_desc_min_shift != s + 1)
            continue; /* smaller chunks keep theirs at their start */
        rp_desc_min_shift = s;
        rp_desc_off[s] = 128 - (intptr_t)(z / 16);
        size_t room = z < page ? z : page;
        size_t colours = table < room ? (room - table) / (z / 32) + 1 : 1, mask = 1;
        while (mask * 2 <= colours && mask < 16)
            mask *= 2;
        rp_desc_colours[s] = (uint32_t)(mask - 1);
    }
}

_Atomic bool rp_ready;

void rp_region_once(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, desc_init);
}

rp_chunk_t *rp_chunk_block_slow(const void *p, uintptr_t *start)
{
    size_t size;
    void *b = rp_base_block_of(p, &size);
    *start = (uintptr_t)b;
    return b;
}

/* Where a chunk of size bytes at b has its descriptor, and where what
 * follows the descriptor starts (b itself when it is elsewhere). */
static rp_chunk_t *layout(char *b, size_t size, char **body)
{
    *body = b + rp_chunk_head(size);
    return rp_desc((uintptr_t)b, (unsigned)__builtin_ctzl(size));
}

/* ---- accounting ----------------------------------------------------------------
 * Each reap counts the bytes it holds.  A reap with a limit also counts its
 * whole subtree (tree_footprint), and every reap knows its nearest such
 * ancestor-or-self (acct), so a chunk charges only the accounting reaps
 * above it: reaps without limits never share a counter.  A reap's own
 * footprint has one writer and is stored atomically (peak first), so
 * reap_footprint() may read it from any thread. */

static reap_t *acct_up(const reap_t *a) { return a->parent ? a->parent->acct : NULL; }

static void peak_raise(_Atomic uint64_t *peak, uint64_t now)
{
    uint64_t old = atomic_load_explicit(peak, memory_order_relaxed);
    while (old < now && !atomic_compare_exchange_weak(peak, &old, now))
        ;
}

/* Charge n bytes to acct and every accounting reap above it, all or none.
 * A peak is raised from this thread's own sum, which passed the limit: a
 * fresh load could include another thread's charge about to be undone. */
int rp_charge_chain(reap_t *acct, size_t n)
{
    for (reap_t *a = acct; a; a = acct_up(a)) {
        uint64_t now = atomic_fetch_add(&a->tree_footprint, n) + n;
        if (a->limit && now > a->limit) {
            atomic_fetch_sub(&a->tree_footprint, n);
            for (reap_t *u = acct; u != a; u = acct_up(u))
                atomic_fetch_sub(&u->tree_footprint, n);
            return ENOMEM;
        }
        peak_raise(&a->tree_peak, now);
    }
    return 0;
}

void rp_uncharge_chain(reap_t *acct, size_t n)
{
    for (reap_t *a = acct; a; a = acct_up(a))
        atomic_fetch_sub(&a->tree_footprint, n);
}

int rp_charge(reap_t *r, size_t n)
{
    if (rp_charge_chain(r->acct, n) != 0)
        return ENOMEM;
    /* Only this thread writes both.  The peak goes first and the footprint
     * is released after it, so reap_footprint() never sees peak < footprint. */
    uint64_t now = r->footprint + n;
    if (now > r->peak_footprint)
        __atomic_store_n(&r->peak_footprint, now, __ATOMIC_RELAXED);
    __atomic_store_n(&r->footprint, now, __ATOMIC_RELEASE);
    return 0;
}

void rp_uncharge(reap_t *r, size_t n)
{
    rp_uncharge_chain(r->acct, n);
    __atomic_store_n(&r->footprint, r->footprint - n, __ATOMIC_RELAXED);
}

/* ---- counting what was bumped (internal.h: lazily) --------------------------------- */

/* The start bits in [from, to) of the bitmaps whose bias is bits: blocks
 * bumped.  A clone uses the popcnt instruction where the processor has it
 * (every x86-64 since 2008; Debian's baseline does not assume it).  The
 * clones are static: GCC exports a global target_clones function from a
 * shared library whatever its visibility, and rp_starts_between must stay
 * internal. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
/* (a clone's resolver runs while the loader relocates, before a
 * sanitizer's runtime is up, and ThreadSanitizer's instrumentation of it
 * faults there) */
__attribute__((target_clones("popcnt", "default")))
#endif
static uint64_t starts_between(uintptr_t bits, const char *from, const char *to)
{
    if (from >= to)
        return 0;
    const rp_pair_t *w = rp_pair(bits, from), *last = rp_pair(bits, to - 1);
    uint64_t lead = rp_bits_from(from), trail = rp_bits_through(to - 1);
    if (w == last)
        return (uint64_t)__builtin_popcountll(w->start & lead & trail);
    uint64_t n = (uint64_t)__builtin_popcountll(w->start & lead);
    while (++w < last)
        n += (uint64_t)__builtin_popcountll(w->start);
    return n + (uint64_t)__builtin_popcountll(w->start & trail);
}

uint64_t rp_starts_between(uintptr_t bits, const char *from, const char *to)
{
    return starts_between(bits, from, to);
}

void rp_settle(reap_t *r)
{
    r->allocs += starts_between(r->bits, r->settled, r->bump);
    r->settled = r->bump;
    rp_settle_live(r);
}

/* ---- bits ---------------------------------------------------------------------- */

void rp_freed_clear_range(const rp_chunk_t *c, char *b, char *e)
{
    if (b >= e)
        return;
    rp_pair_t *w = rp_pair_at(c, b), *last = rp_pair_at(c, e - 1);
    uint64_t lead = rp_bits_from(b), trail = rp_bits_through(e - 1);
    if (w == last) {
        w->freed &= ~(lead & trail);
        return;
    }
    w->freed &= ~lead;
    while (++w < last)
        w->freed = 0;
    w->freed &= ~trail;
}

void rp_bits_free_tail(reap_t *r, const rp_chunk_t *c, char *b, size_t size)
{
    rp_pair_t *w = rp_pair_at(c, b);
    w->start |= rp_bit(b);
    w->freed |= rp_bit(b);
    r->free_bytes += size;
    if (r->heap)
        rp_heap_file(r->heap, b, size);
}

/* ---- formatting ------------------------------------------------------------- */

static char *grain_up(char *p) { return (char *)(((uintptr_t)p + RP_GRAIN - 1) & ~(uintptr_t)(RP_GRAIN - 1)); }

/* Formats the chunk of size bytes at b for r: its descriptor (bitmaps
 * zeroed, the sentinel set) and its arena, from `from' (at or past the
 * body) to its end.  Returns the descriptor. */
static rp_chunk_t *chunk_format(reap_t *r, char *b, size_t size, char *from, uint32_t flags)
{
    char *body;
    rp_chunk_t *c = layout(b, size, &body);
    size_t bytes = rp_desc_bytes[__builtin_ctzl(size)] - sizeof(rp_chunk_t);
    RP_ASSERT(((uintptr_t)b & (size - 1)) == 0 && from >= body);
    rp_ann_metadata(c, sizeof *c + bytes);
    c->key = rp_chunk_key(c);
    c->reap = r;
    c->start = b;
    c->size = size;
    c->flags = flags;
    c->arena = grain_up(from);
    memset(c + 1, 0, bytes);
    rp_pair_at(c, rp_chunk_end(c))->start |= rp_bit(rp_chunk_end(c));
    rp_ann_noaccess(c->arena, (size_t)(rp_chunk_end(c) - c->arena));
    return c;
}

/* The frontier moves to the start of c's arena. */
static void set_frontier(reap_t *r, rp_chunk_t *c)
{
    r->chunk = c;
    r->bump = r->settled = r->live_mark = r->high = c->arena;
    r->bump_end = rp_chunk_end(c);
    r->bits = rp_pair_bias(c, (uintptr_t)c->start);
}

/* The size of the chunk after the frontier's: the least power of two
 * (within the chunk sizes) that is a third of the reap's footprint, so a
 * reap grows by about half of what it holds each time rather than by all
 * of it: the frontier's chunk, the one part of a region that waits to be
 * used, stays a small share of its footprint. */
static size_t next_size(const reap_t *r)
{
    size_t size = rp_opt.first_chunk;
    while (size < r->footprint / 3 && size < rp_opt.max_chunk)
        size *= 2;
    return size;
}

void rp_region_init(reap_t *r, char *b, size_t size, uint32_t flags)
{
    rp_ann_pool_create(r);
    rp_chunk_t *first = chunk_format(r, b, size, (char *)r + RP_REAP_SIZE + r->user_size, flags);
    first->older = first->newer = NULL;
    r->first = first;
    set_frontier(r, first);
}

/* ---- taking and giving memory ----------------------------------------------------- */

/* Chunks of REAP_CHUNK_GRAIN bytes and more come from r's source; smaller
 * ones, and every chunk of a reap without one, from the base allocator. */
static bool from_source(const reap_chunk_source_t *src, size_t size)
{
    return src != NULL && size >= REAP_CHUNK_GRAIN;
}

/* A chunk from src that is not a block the address map finds where it
 * starts (a source that broke reap.h's contract) goes back, and the base
 * allocator serves instead. */
static void *source_get(const reap_chunk_source_t *src, size_t size, uint32_t *flags)
{
    void *b = src->alloc(src->ctx, size);
    uint8_t aligned = (uint8_t)(RP_BASE_MAP_ALIGNED | (unsigned)__builtin_ctzl(size));
    if (b && (rp_base_map_aligned(b) != b || rp_base_map_get(b) != aligned)) {
        src->free(src->ctx, b, size);
        b = rp_base_alloc(size);
        *flags = RP_CHUNK_BASE;
    }
    return b;
}

void *rp_chunk_get(const reap_chunk_source_t *src, size_t size, uint32_t *flags)
{
    RP_ASSERT((size & (size - 1)) == 0 && size >= 1024);
    *flags = 0;
    return from_source(src, size) ? source_get(src, size, flags) : rp_base_alloc(size);
}

void rp_chunk_put(const reap_chunk_source_t *src, rp_chunk_t *c)
{
    char *b = c->start;
    size_t size = c->size;
    bool to_source = from_source(src, size) && !(c->flags & RP_CHUNK_BASE);
    c->key = 0; /* no longer a chunk: a free into it is foreign */
    if (to_source) {
        /* the source owns it now: open it, as the base allocator would be
         * open to itself (the arena was closed to the program) */
        rp_ann_undefined(b, size);
        src->free(src->ctx, b, size);
    } else {
        rp_base_free(b, size);
    }
}

/* size bytes for a chunk, charged to r's footprint; NULL when a limit
 * refuses them (*refused set) or memory runs out. */
static char *try_take(reap_t *r, size_t size, bool *refused, uint32_t *flags)
{
    if (rp_charge(r, size) != 0) {
        *refused = true;
        return NULL;
    }
    char *b = rp_chunk_get(r->src, size, flags);
    if (!b)
        rp_uncharge(r, size);
    return b;
}

static void give(reap_t *r, rp_chunk_t *c)
{
    size_t size = c->size;
    rp_chunk_put(r->src, c);
    rp_uncharge(r, size);
}

/* ---- the frontier ------------------------------------------------------------------- */

/* The least power of two, at least first_chunk, whose chunk holds a
 * block of bsize bytes. */
static size_t chunk_least(size_t bsize)
{
    size_t size = rp_opt.first_chunk;
    while (size < bsize + rp_chunk_head(size) + RP_GRAIN)
        size *= 2;
    return size;
}

/* A chunk that holds a block of bsize bytes: of the growing size or,
 * when that is refused, of the least size that serves, so that near its
 * limit a reap grows in small steps rather than failing far below it.
 * Formatted; NULL when nothing could be taken. */
static rp_chunk_t *chunk_take(reap_t *r, size_t bsize, size_t size)
{
    size_t least = chunk_least(bsize);
    if (size < least)
        size = least;
    bool refused = false;
    uint32_t flags;
    char *b = try_take(r, size, &refused, &flags);
    if (!b && size > least) {
        size = least;
        refused = false;
        b = try_take(r, size, &refused, &flags);
    }
    r->limit_failures += refused; /* once, for the last try */
    return b ? chunk_format(r, b, size, rp_chunk_body(b, size), flags) : NULL;
}

/* The frontier leaves its chunk for c: what is left of the old one is a
 * freed block, for the next sweep. */
static void advance(reap_t *r, rp_chunk_t *c)
{
    rp_chunk_t *old = r->chunk;
    char *tail = r->bump;
    rp_settle(r);
    rp_chunk_list_push(&r->chunk, c);
    set_frontier(r, c);
    if (tail < rp_chunk_end(old))
        rp_bits_free_tail(r, old, tail, (size_t)(rp_chunk_end(old) - tail));
}

/* Bumps bsize bytes at the frontier, which has room for them. */
static char *bump_at_frontier(reap_t *r, size_t bsize)
{
    char *b = reap_frontier_bump((reap_frontier_t *)(void *)r, bsize);
    RP_ASSERT(b != NULL && (bsize & r->grain_mask) == 0);
    return b;
}

char *rp_region_bump(reap_t *r, size_t bsize)
{
    if (bsize > (size_t)(r->bump_end - r->bump)) {
        rp_chunk_t *c = chunk_take(r, bsize, next_size(r));
        if (!c)
            return NULL;
        advance(r, c);
    }
    return bump_at_frontier(r, bsize);
}

/* ---- solo chunks -------------------------------------------------------------------- */

void *rp_solo_alloc(reap_t *r, size_t n, size_t alignment)
{
    if (alignment < RP_GRAIN)
        alignment = RP_GRAIN;
    if (n >= RP_MAX_REQUEST || alignment >= RP_MAX_REQUEST)
        return NULL;
    /* room for a descriptor at its start, if it keeps it there, and for
     * the slack of the alignment */
    size_t size = rp_base_usable(sizeof(rp_chunk_t) + alignment - RP_GRAIN + n);
    bool refused = rp_charge(r, size) != 0;
    char *b = refused ? NULL : rp_base_alloc(size);
    if (!b && !refused)
        rp_uncharge(r, size);
    r->limit_failures += refused;
    if (!b)
        return NULL;
    uintptr_t start;
    rp_chunk_t *c = rp_chunk_block(b, &start);
    char *from = (char *)c == b ? b + sizeof *c : b;
    rp_ann_metadata(c, sizeof *c);
    c->key = rp_solo_key(c);
    c->reap = r;
    c->start = b;
    c->size = size;
    c->arena = (char *)(((uintptr_t)from + alignment - 1) & ~(uintptr_t)(alignment - 1));
    c->flags = 0;
    rp_ann_noaccess(c->arena, (size_t)(rp_chunk_end(c) - c->arena)); /* alloc.c opens the object */
    rp_chunk_list_insert(&r->chunk, r->chunk, c); /* behind the frontier's chunk */
    r->live_bytes += size;
    r->allocs++;
    return c->arena;
}

/* Gives back a solo chunk, leaving key behind: the base allocator's free
 * writes a block's first two words only (and a descriptor in its
 * superblock's first slot not at all), so until the memory is used again
 * a free into it finds that key. */
static void solo_give(reap_t *r, rp_chunk_t *c, uintptr_t key)
{
    size_t size = c->size;
    c->key = key;
    rp_base_free(c->start, size);
    rp_uncharge(r, size);
}

void rp_solo_free(reap_t *r, rp_chunk_t *c)
{
    rp_chunk_list_unlink(&r->chunk, c);
    rp_ann_noaccess(c->arena, rp_solo_usable(c));
    solo_give(r, c, rp_solo_freed_key(c)); /* a second free: a double free */
}

/* ---- giving chunks back ---------------------------------------------------------------- */

void rp_region_release(reap_t *r, rp_chunk_t *c)
{
    RP_ASSERT(c != r->first && c != r->chunk);
    rp_chunk_list_unlink(&r->chunk, c);
    give(r, c);
}

void rp_region_release_all(reap_t *r)
{
    rp_ann_pool_destroy(r);
    rp_ann_quiet_begin();
    rp_chunk_t *c = r->chunk;
    while (c) {
        rp_chunk_t *older = c->older;
        __builtin_prefetch(older); /* its miss overlaps c's give-back (NULL: dropped) */
        if (c != r->first) {
            if (rp_chunk_solo(c))
                solo_give(r, c, 0);
            else
                give(r, c);
        }
        c = older;
    }
    r->chunk = r->first;
    r->first->newer = r->first->older = NULL;
    rp_ann_quiet_end();
}

void rp_region_reset(reap_t *r)
{
    rp_region_release_all(r);
    rp_region_init(r, r->first->start, r->first->size, r->first->flags);
}
