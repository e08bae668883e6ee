/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * internal.h - the structures of libreap and the prototypes its files share.
 *
 * Glossary
 *   reap    a region with per-object free: struct reap below.
 *   chunk   a piece of memory a reap got from the base allocator and bumps
 *           through (rp_chunk_t); the first one also holds the reap itself.
 *   region  (a reap that still is one) a reap started with
 *           reap_start_as_region() that has not yet seen a reap_free(): its
 *           blocks have no header.
 *   block   one object's memory inside a chunk, with a boundary tag: in use
 *           (handed to the program) or free (on the reap's heap).
 *   frontier the reap's bump pointer: everything from it to the end of the
 *           current chunk has never been handed out since the last clear.
 *   heap    the reap's Lea-style bins of free blocks (rp_heap_t), created on
 *           the first free.
 *   large   an object above the large threshold, with a base block of its
 *           own (rp_large_t), returned to the base allocator when freed.
 *   fence   a block marking the end of a retired chunk, always "in use".
 *   dv      the rest of the last block split for a small request, kept out
 *           of the bins so the next small requests carve it cheaply.
 *   quick   a small freed block parked on its size's LIFO quick list, still
 *           marked in use so nothing coalesces with it yet (dlmalloc 2.7's
 *           fastbins); rp_heap_consolidate() frees them for real.
 *
 * Block layout (dlmalloc-style boundary tags; every size a multiple of the
 * reap's grain, 16 bytes or, after reap_set_alignment(r, 8), 8):
 *
 *   b      prev_foot  size of the previous block when that one is free;
 *                     otherwise the last 8 bytes of its payload
 *   b+8    head       size | RP_PINUSE | RP_CINUSE | RP_LARGE | RP_FENCE |
 *                     RP_QUICK | tag
 *   b+16   payload    what the program gets (when free: fd, bk links)
 *   b+size            the next block, whose prev_foot ends our payload
 *
 * So a block costs 8 bytes of header, its payload is aligned to the grain,
 * and a request of n bytes takes rp_request2size(r, n) = max(16,
 * round_grain(n + 8)): APR's 8-byte-aligned pools pay their header and
 * nothing more.  A free block needs its links and a footer, so it is at
 * least RP_MIN_BLOCK (32) bytes: the "small" blocks of 16 and 24 bytes,
 * once freed, wait on a quick list, still marked in use, until a request
 * of their size takes them or a free neighbour lets them merge.
 *
 * A reap started as a region (reap_start_as_region) bumps blocks without
 * headers until its first reap_free(): a block of n bytes is n rounded up
 * to 8 (at least 8), its object 8 bytes in (where a head would be), so
 * objects lie side by side.  The chunk keeps a bitmap of where blocks start
 * and one of which are freed (rp_chunk_t), and region_end marks where its
 * headerless blocks stop: a free finds p's chunk by walking the reap's
 * chunks, sizes the block by the next start bit and checks it by both
 * bitmaps.  While the reap is still a region, a freed block of 16 bytes or
 * more waits on its holes, used again before the reap takes a new chunk
 * (a discard's memory: APR's outgrown hash and array storage); once the
 * region is closed, what is freed of it waits for the clear.  The first
 * block with a header starts at the frontier as it was then, so the last
 * headerless object is its prev_foot, and RP_PINUSE keeps anything from
 * coalescing into them.
 *
 * Invariants
 *   - RP_PINUSE of a block is set iff the block before it is in use (or it
 *     is the first block of its chunk, or the first after headerless ones).  RP_CINUSE is set iff it is in use
 *     or quick; RP_QUICK iff it is on a quick list.
 *   - No two free blocks are neighbours (frees coalesce at once), and no
 *     free block is smaller than RP_MIN_BLOCK.
 *   - The block just before the frontier is in use: a block freed there goes
 *     back to the frontier, with its free predecessor.
 *   - The tag (top 16 bits of head) is the owning reap's tag on every block.
 */
#ifndef RP_INTERNAL_H
#define RP_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/lock.h"
#include "reap.h"
#include "util/annotate.h" /* ASan/Valgrind annotations; nothing in normal builds */
#include "util/common.h"   /* config.h, RP_LIKELY, RP_ASSERT */
#include "util/list.h"

/* ---- blocks ------------------------------------------------------------- */

#define RP_GRAIN 16u                /* the default grain; the width of an exact bin */
#define RP_GRAIN_MIN 8u             /* the grain of reap_set_alignment(r, 8) */
#define RP_HEADER 8u                /* bytes a block spends on its header */
#define RP_MIN_SIZE 16u             /* head + 8 bytes of payload: an in-use block */
#define RP_MIN_BLOCK 32u            /* head + fd + bk + room for a footer: a free one */
#define RP_PINUSE ((size_t)1)       /* the previous block is in use */
#define RP_CINUSE ((size_t)2)       /* this block is in use */
#define RP_LARGE ((size_t)4)        /* a large object with its own base block */
#define RP_FLAGS ((size_t)7)        /* below the 8-byte grain */
#define RP_FENCE (((size_t)1) << 46) /* end of a retired chunk; never freed */
#define RP_QUICK (((size_t)1) << 47) /* on a quick list (freed, not coalesced) */
#define RP_TAG_SHIFT 48
#define RP_TAG_MASK (~(size_t)0 << RP_TAG_SHIFT)
#define RP_SIZE_MASK ((((size_t)1) << 46) - 1 - RP_FLAGS)
/* Requests at or above this can never be satisfied (sizes live in 46 bits);
 * checked first so the size arithmetic below cannot overflow. */
#define RP_MAX_REQUEST ((((size_t)1) << 45))

typedef struct rp_block {
    size_t prev_foot;
    size_t head;
    struct rp_block *fd; /* free blocks only: next in bin */
    struct rp_block *bk; /* free blocks only: previous in bin, NULL at head */
} rp_block_t;

static inline size_t rp_bsize(const rp_block_t *b) { return b->head & RP_SIZE_MASK; }
static inline void *rp_b2mem(rp_block_t *b) { return (char *)b + 2 * sizeof(size_t); }
static inline rp_block_t *rp_mem2b(const void *p)
{
    return (rp_block_t *)((char *)p - 2 * sizeof(size_t));
}
static inline rp_block_t *rp_at(void *b, size_t off) { return (rp_block_t *)((char *)b + off); }
/* The block that ends where b starts: a subtraction, as a size_t offset
 * wrapped round would overflow the pointer (undefined behaviour). */
static inline rp_block_t *rp_prev(void *b, size_t size) { return (rp_block_t *)((char *)b - size); }

/* ---- chunks and large objects -------------------------------------------- */

/* A chunk from the base allocator.  Blocks start at rp_chunk_arena(); the
 * last RP_FENCE_ROOM bytes are kept for the fence written when the chunk is
 * retired, so a block never runs into the chunk's end. */
typedef struct rp_chunk {
    struct rp_chunk *older; /* the chunk before this one; NULL for the first */
    struct rp_chunk *newer; /* the chunk after it; NULL for the current one */
    size_t size;            /* bytes from the base allocator (rp_base_free) */
    /* Blocks without headers (the reap was a region: reap_start_as_region)
     * lie from the arena up to region_end; starts and freed, a bit for
     * each 8 bytes from the arena, before it, say where they start and
     * which are freed.  All NULL in a chunk of headed blocks. */
    char *region_end;
    uint64_t *starts, *freed;
} rp_chunk_t;

#define RP_FENCE_ROOM 32u /* fence: prev_foot, head, owning chunk, pad */

/* rp_chunk_list_*: a reap's chunks from r->chunk, the current one, back
 * through ->older (util/list.h). */
RP_LIST(rp_chunk_list, rp_chunk_t, older, newer)

/* A large object's bookkeeping, just before its block header.  It lives on
 * the owning reap's doubly linked list of large objects. */
typedef struct rp_large {
    struct rp_large *next, *prev;
    void *base;       /* start of the base block (differs when over-aligned) */
    size_t base_size; /* bytes passed to rp_base_alloc */
} rp_large_t;

RP_LIST(rp_large_list, rp_large_t, next, prev) /* from r->large */

/* ---- the heap ------------------------------------------------------------ */

/* Bins: 64 exact bins for block sizes below 1 KiB (index size/16), then 64
 * ranged bins, four per power of two from 1 KiB up, in no order (leaheap.c
 * takes the best fit of a bin's first few).  bin[i] is NULL or the first block;
 * bit i of map is set iff bin[i] is not empty.  quick[i] is a LIFO list,
 * linked through fd, of quick blocks of size i*16.  In a reap of 8-byte
 * grain, exact bin i and quick[i] hold the sizes i*16 and i*16 + 8: a
 * request of i*16 + 8 bytes looks past the blocks of i*16 there. */
#define RP_NBINS 128
#define RP_NSMALL 64
#define RP_SMALL_LIMIT (RP_NSMALL * RP_GRAIN) /* 1024: first ranged size */

typedef struct rp_heap {
    uint64_t map[RP_NBINS / 64];
    rp_block_t *bin[RP_NBINS];
    rp_block_t *quick[RP_NSMALL];
} rp_heap_t;

RP_LIST(rp_bin_list, rp_block_t, fd, bk) /* a bin's free blocks */

/* ---- the reap ------------------------------------------------------------- */

/* Lists of a region's freed blocks by size (region.c's holes). */
#define RP_HOLE_BINS 4

struct reap {
    /* The bump paths read only these fields.  Up to allocs they are
     * reap.h's reap_frontier_t, which reap_malloc_bump() compiles into
     * callers (the assertions after this struct check that the two layouts
     * agree); the rest is libreap's own. */
    char *bump;        /* the frontier: where the next bumped block starts */
    char *bump_end;    /* the last place a block may end in this chunk */
    size_t head_bits;  /* tag | RP_CINUSE | RP_PINUSE, or'ed into new heads */
    size_t inline_limit; /* inline_open while heap_empty, else 0: one compare
                          * tells reap_malloc_bump() both (rp_set_heap_empty) */
    uint64_t live_bytes; /* statistics: bytes of live blocks */
    uint64_t allocs;     /* statistics: allocations since creation */
    size_t grain_mask;   /* the grain less one: 15, or 7 (reap_set_alignment) */
    size_t head_room;  /* RP_HEADER, or 0 while a region (reap_start_as_region) */
    uint64_t *starts;  /* the current chunk's starts while a region, else NULL */
    char *origin;      /* its arena: the block start of bit 0 */
    bool region_start; /* reap_start_as_region(): a region again after a clear */
    const char *region_lo, *region_hi; /* every block without header lies in
                                        * [region_lo, region_hi) (NULL: none) */
    void *holes[RP_HOLE_BINS]; /* freed blocks without header, for reuse
                                * before a new chunk; all NULL unless the
                                * reap is a region */
    bool heap_empty;   /* nothing freed waits for reuse: allocation bumps first
                        * (the bins may still hold retired chunks' tails,
                        * tried only before the reap takes a new chunk);
                        * false may lag: after the last quick block is
                        * reused it is set by the next allocation */
    size_t inline_open;  /* bump_max + 1, or 0 when annotating (RP_ANNOTATED) */
    size_t bump_max;   /* rp_opt.large_threshold: larger requests are large objects */

    /* Statistics kept on every free and clear. */
    uint64_t frees;      /* reap_free calls (non-NULL) since creation */
    uint64_t cleared_objects; /* objects dropped by reap_clear */
    uint64_t peak_live_bytes; /* updated lazily, before live_bytes falls */

    rp_heap_t *heap;        /* NULL until the first free since the last clear */
    size_t quick_below;     /* rp_opt.quick_limit while heap exists, else 0:
                             * one compare tells a free both */
    uint64_t heap_free_bytes; /* bytes of free blocks: the bins and dv */
    rp_block_t *dv;           /* free, not in a bin: the rest of the last split,
                               * carved first by small requests; NULL or dv_size
                               * bytes (dlmalloc 2.8's "designated victim") */
    size_t dv_size;
    uint64_t quick_bytes;     /* bytes of quick blocks */
    rp_block_t *lost;         /* freed while no bin table could be made (a
                               * limit): marked RP_QUICK so a second free is
                               * caught, linked by fd, binned as soon as the
                               * table exists; lost_bytes of them */
    uint64_t lost_bytes;
    rp_chunk_t *chunk;      /* current chunk; its ->older list ends at first */
    rp_chunk_t *first;      /* the chunk holding this struct, kept by clear */
    rp_large_t *large;      /* large objects, most recent first */
    size_t next_chunk_size; /* what the next new chunk asks for */

    /* Footprint and limits.  acct is the nearest reap, this one or an
     * ancestor, that has a limit (and so accounts its whole subtree);
     * NULL when there is none.  tree_footprint counts the subtree of an
     * accounting reap; it is atomic because children in other threads add
     * to it. */
    uint64_t footprint, peak_footprint;
    reap_t *acct;
    size_t limit;               /* 0: none; meaningful when acct == this */
    _Atomic uint64_t tree_footprint, tree_peak;
    uint64_t clears, limit_failures;

    /* Nesting.  The child list of a reap is guarded by its lock, which other
     * threads take when they create or destroy children of it. */
    reap_t *parent;
    reap_t *children;     /* first child */
    reap_t *next_sibling, *prev_sibling;
    rp_lock_t lock;

    size_t user_size; /* bytes of caller space after this struct */
    const reap_chunk_source_t *src; /* where chunks come from; NULL: the base */
    uint16_t tag;
};

/* reap.h's reap_frontier_t and reap_block_size() describe the head of
 * struct reap and the block format to code compiled outside libreap. */
#define RP_SAME_FIELD(f) \
    _Static_assert(offsetof(struct reap, f) == offsetof(reap_frontier_t, f) && \
                       sizeof(((struct reap *)0)->f) == sizeof(((reap_frontier_t *)0)->f), \
                   "reap_frontier_t." #f " is not struct reap's")
RP_SAME_FIELD(bump);
RP_SAME_FIELD(bump_end);
RP_SAME_FIELD(head_bits);
RP_SAME_FIELD(live_bytes);
RP_SAME_FIELD(allocs);
RP_SAME_FIELD(inline_limit);
RP_SAME_FIELD(grain_mask);
RP_SAME_FIELD(head_room);
RP_SAME_FIELD(starts);
RP_SAME_FIELD(origin);
#undef RP_SAME_FIELD
_Static_assert(RP_GRAIN == REAP_ALIGNMENT && RP_HEADER == 8 && RP_MIN_SIZE == 16 &&
                   offsetof(rp_block_t, head) == sizeof(size_t),
               "reap_block_size() and reap_frontier_bump() do not match the block format");

/* The block a request of n bytes (n < RP_MAX_REQUEST) takes in r. */
static inline size_t rp_request2size(const reap_t *r, size_t n)
{
    return reap_frontier_block_size((const reap_frontier_t *)(const void *)r, n);
}

/* rp_child_list_*: a reap's children, from r->children, under r->lock. */
RP_LIST(rp_child_list, reap_t, next_sibling, prev_sibling)

#define RP_REAP_SIZE ((sizeof(struct reap) + RP_GRAIN - 1) & ~(size_t)(RP_GRAIN - 1))

/* ---- options (options.c) ---------------------------------------------------- */

typedef struct rp_options {
    size_t first_chunk;     /* REAP_FIRST_CHUNK: size of a reap's first chunk */
    size_t max_chunk;       /* REAP_MAX_CHUNK: cap of the doubling chunk sizes */
    size_t large_threshold; /* REAP_LARGE_THRESHOLD: bigger objects get their own block */
    size_t tail_keep;       /* REAP_TAIL_KEEP: a retired chunk's tail at least this big goes on the heap */
    size_t quick_limit;     /* REAP_QUICK_LIMIT: freed blocks below this size wait on quick lists; 0: coalesce every free at once */
} rp_options_t;

extern rp_options_t rp_opt;
void rp_options_init(void);

/* ---- reap.c ------------------------------------------------------------- */

/* Reports a misuse (util/misuse.h, reap.h's handler) and aborts, or
 * returns when the report says to go on (REAP_MISUSE=report, or the
 * handler's REAP_MISUSE_LEAK): the caller then returns at once, leaving
 * the reap as it was.  REAP_MISUSE_CORRUPTION never returns. */
RP_COLD void rp_misuse(reap_misuse_kind_t kind, const char *what, reap_t *r, const void *p);
/* Charge n more bytes of footprint to r and its accounting ancestors.
 * Returns 0, or ENOMEM if a limit would pass (the caller counts that in
 * limit_failures once it gives up). */
int rp_charge(reap_t *r, size_t n);
void rp_uncharge(reap_t *r, size_t n);

/* ---- region.c: chunks, the frontier, large objects ---------------------- */

/* Bump-allocate a block of csz bytes, opening a new chunk when the current one
 * is full.  Returns the block with its head set, or NULL. */
rp_block_t *rp_region_bump(reap_t *r, size_t csz);
/* Return every chunk but the first and every large object to the base
 * allocator, and put the frontier back at the start of the first chunk. */
void rp_region_reset(reap_t *r);
void rp_region_release_all(reap_t *r);
/* Make sure r has its bin table; false when no memory (or limit) allows. */
bool rp_region_heap_ensure(reap_t *r);
void rp_region_init(reap_t *r, rp_chunk_t *first, size_t first_size);
/* A chunk of at least size bytes, rounded as src hands them out (src NULL:
 * the base allocator); taken from and given back to src.  rp_chunk_get()
 * takes a rounded size. */
size_t rp_chunk_round(const reap_chunk_source_t *src, size_t size);
void *rp_chunk_get(const reap_chunk_source_t *src, size_t size);
void rp_chunk_put(const reap_chunk_source_t *src, void *c, size_t size);
/* Where blocks start in the first chunk: after the reap and its user area
 * (user_size is stored rounded to RP_GRAIN). */
static inline char *rp_first_arena(const reap_t *r)
{
    return (char *)r + RP_REAP_SIZE + r->user_size;
}
/* Where a chunk's bitmaps go, or its blocks when it has none. */
static inline char *rp_chunk_start(const reap_t *r, const rp_chunk_t *c)
{
    return c == r->first ? rp_first_arena(r) : (char *)c + sizeof(rp_chunk_t);
}
/* Where c's blocks start: past its two bitmaps (of equal length) when it
 * has them. */
static inline char *rp_chunk_arena(const reap_t *r, const rp_chunk_t *c)
{
    if (c->starts)
        return (char *)(c->freed + (c->freed - c->starts));
    return rp_chunk_start(r, c);
}
/* Nothing allocated since creation or the last reset, so a reset would
 * change nothing: the frontier at the start of the first arena, no chunk
 * behind the first (a side chunk leaves the frontier where it was), no
 * bins, no lost blocks, no large objects.  Every allocation moves the
 * frontier or adds one of these; a block freed back to the frontier
 * leaves nothing behind. */
static inline bool rp_region_untouched(const reap_t *r)
{
    return r->bump == rp_chunk_arena(r, r->first) && r->chunk == r->first && r->first->older == NULL &&
           r->heap == NULL && r->lost == NULL && r->large == NULL;
}
/* A reset would change nothing: untouched, and a region still if it starts
 * as one (a free or a misuse report may close the region of an untouched
 * reap; the reset opens it again). */
static inline bool rp_region_at_rest(const reap_t *r)
{
    return rp_region_untouched(r) && !(r->region_start && r->head_room != 0);
}
void *rp_large_alloc(reap_t *r, size_t n, size_t alignment);
void rp_large_free(reap_t *r, rp_block_t *b);
size_t rp_large_usable(const rp_block_t *b);
/* b (size bytes, free, not binned) is followed by a fence: if b is the whole
 * arena of a retired chunk, give the chunk back and return true. */
bool rp_region_try_release(reap_t *r, rp_block_t *b, size_t size);
size_t rp_large_footprint(const rp_block_t *b);
/* Debug: is p inside a chunk or large object of r? */
bool rp_region_owns(const reap_t *r, const void *p);
/* Make r, untouched, a region: blocks without headers from its frontier
 * on (reap_start_as_region; rp_region_init does it again after a clear). */
void rp_region_begin(reap_t *r);
/* The first free of a region: blocks get headers from the frontier on. */
void rp_region_close(reap_t *r);
/* What a free or realloc of a pointer r did not hand out reports. */
#define RP_FREE_FOREIGN "free of a pointer this reap did not hand out:"
#define RP_REALLOC_FOREIGN "realloc of a pointer this reap did not hand out:"
/* The chunk of r that p lies in, or NULL. */
rp_chunk_t *rp_chunk_of(const reap_t *r, const void *p);
/* The chunk whose part without headers p lies in, or NULL when p is not
 * in such a part of r (then it has a header, or is foreign). */
rp_chunk_t *rp_region_chunk(const reap_t *r, const void *p);
/* p lies in c's part without headers (rp_region_chunk): the bytes of the
 * live block starting at p, or 0 once the misuse is reported (no block
 * starts there, or it is freed; a free's reports, or with realloc a
 * realloc's). */
size_t rp_region_checked(reap_t *r, const rp_chunk_t *c, const void *p, bool realloc);
/* Mark the live block p, size bytes (rp_region_checked), of c freed. */
void rp_region_release(reap_t *r, rp_chunk_t *c, void *p, size_t size);
/* Free p if it is a block without header of r (checked: a misuse is
 * reported); false, doing nothing, when it is not one. */
bool rp_region_free(reap_t *r, void *p);
/* False when p is surely not a block without header of r: outside the
 * address range of the reap's headerless blocks (what a reap that frees
 * mostly sees once its region is closed: that range is then often a part
 * of its first chunk).  Two compares, no call; true sends the caller to
 * rp_region_free(), which walks the chunks. */
static inline bool rp_region_may_own(const reap_t *r, const void *p)
{
    return (const char *)p >= r->region_lo && (const char *)p < r->region_hi;
}
/* p, n bytes, without header, was just handed out at the frontier's
 * previous place; it now starts at q, further on in the same block. */
void rp_region_move_start(reap_t *r, void *p, void *q);
/* While r is a region: a block of csz bytes (rp_request2size) cut from
 * the front of a freed block without header, or NULL when none fits. */
rp_block_t *rp_region_hole_take(reap_t *r, size_t csz);
/* A freed block without header waits on one of r's hole lists (so r is a
 * region): rp_region_hole_take() may find one. */
static inline bool rp_region_has_holes(const reap_t *r)
{
    for (unsigned i = 0; i < RP_HOLE_BINS; i++)
        if (r->holes[i])
            return true;
    return false;
}

/* ---- leaheap.c: the bins -------------------------------------------------- */

/* Take a quick or free block of at least csz bytes, split it, mark it in
 * use; NULL when the heap has none. */
rp_block_t *rp_heap_alloc(reap_t *r, size_t csz);
/* Free every quick block for real (coalescing), emptying the quick lists. */
void rp_heap_consolidate(reap_t *r);
/* Free an in-use block of r (not large): coalesce, then bin it or give it
 * back to the frontier. */
void rp_heap_free(reap_t *r, rp_block_t *b);
/* Put a block that is not marked in use and has no free neighbour on a bin.
 * It leaves heap_empty alone: a retired tail is binned but not a free. */
void rp_heap_insert(reap_t *r, rp_block_t *b, size_t size);
void rp_heap_unlink(reap_t *r, rp_block_t *b, size_t size);
/* Split block b (in use, size s) to keep csz bytes; the rest is freed. */
void rp_heap_trim(reap_t *r, rp_block_t *b, size_t csz);
/* Debug: walk every block of r and check the invariants above. */
void rp_heap_check(const reap_t *r);
unsigned rp_bin_index(size_t size);

/* live_bytes only falls here, so its peak is the value just before. */
static inline void rp_live_sub(reap_t *r, size_t n)
{
    if (r->live_bytes > r->peak_live_bytes)
        r->peak_live_bytes = r->live_bytes;
    r->live_bytes -= n;
}

/* heap_empty and the inline_limit that mirrors it change together. */
static inline void rp_set_heap_empty(reap_t *r, bool empty)
{
    r->heap_empty = empty;
    r->inline_limit = empty ? r->inline_open : 0;
}

static inline void rp_heap_update_empty(reap_t *r)
{
    rp_set_heap_empty(r, (r->heap_free_bytes | r->quick_bytes) == 0);
}

/* Split b (free or being taken) into an in-use block of csz bytes and a
 * free rest of rem bytes (rem >= RP_MIN_BLOCK), footer written; returns the
 * rest, which the caller files (bin, dv). */
static inline rp_block_t *rp_split(reap_t *r, rp_block_t *b, size_t csz, size_t rem)
{
    RP_ASSERT(((csz | rem) & r->grain_mask) == 0 && rem >= RP_MIN_BLOCK);
    size_t tag = (size_t)r->tag << RP_TAG_SHIFT;
    b->head = csz | (b->head & RP_PINUSE) | RP_CINUSE | tag;
    rp_block_t *rest = rp_at(b, csz);
    rest->head = rem | RP_PINUSE | tag;
    rp_at(rest, rem)->prev_foot = rem;
    return rest;
}

/* Pop a quick block of csz bytes (csz < RP_SMALL_LIMIT; at the 8-byte
 * grain it may be csz + 8: the caller counts rp_bsize()), marked in use
 * again; NULL when the block on top of the list is too small or there is
 * none.  It leaves heap_empty false even
 * when this was the last block waiting: reap_malloc's next trip past the
 * bump sets it (malloc_after_bump), and the pop stays a few stores. */
static inline rp_block_t *rp_quick_pop(reap_t *r, size_t csz)
{
    rp_block_t **q = &r->heap->quick[csz / RP_GRAIN], *b = *q;
    if (b) {
        size_t size = rp_bsize(b);
        RP_ASSERT((b->head & RP_QUICK) && (b->head & RP_CINUSE) && size / RP_GRAIN == csz / RP_GRAIN);
        if (size < csz) /* 8-byte grain: a block of csz - 8 */
            return NULL;
        *q = b->fd;
        b->head &= ~RP_QUICK;
        r->quick_bytes -= size;
    }
    return b;
}

/* Put b (in use, size bytes) on its quick list, still marked in use. */
static inline void rp_quick_push(reap_t *r, rp_block_t *b, size_t size)
{
    rp_block_t **q = &r->heap->quick[size / RP_GRAIN];
    b->head |= RP_QUICK;
    b->fd = *q;
    *q = b;
    r->quick_bytes += size;
    rp_set_heap_empty(r, false);
}

/* Does a bin hold a block of at least csz bytes (csz < RP_SMALL_LIMIT)?
 * Exact bins at and above csz's, or any ranged bin: the bitmap says. */
static inline bool rp_heap_fits(const rp_heap_t *h, size_t csz)
{
    _Static_assert(RP_NSMALL == 64 && RP_NBINS == 128, "one word of exact bins, one of ranged");
    return ((h->map[0] >> (csz / RP_GRAIN)) | h->map[1]) != 0;
}

/* Carve csz bytes from the front of dv, which keeps at least RP_MIN_BLOCK. */
static inline rp_block_t *rp_dv_carve(reap_t *r, size_t csz)
{
    rp_block_t *b = r->dv;
    RP_ASSERT(r->dv_size >= csz + RP_MIN_BLOCK);
    r->dv_size -= csz;
    r->dv = rp_split(r, b, csz, r->dv_size);
    r->heap_free_bytes -= csz;
    return b;
}

/* Mark b (size s, in use) and its successor's RP_PINUSE. */
static inline void rp_set_inuse(reap_t *r, rp_block_t *b, size_t s)
{
    b->head = s | (b->head & RP_PINUSE) | RP_CINUSE | ((size_t)r->tag << RP_TAG_SHIFT);
    rp_at(b, s)->head |= RP_PINUSE;
}

#endif /* RP_INTERNAL_H */
