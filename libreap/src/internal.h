/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * internal.h - the structures of libreap and the prototypes its files share.
 *
 * Glossary
 *   reap      a region with per-object free: struct reap below.
 *   chunk     a block of the base allocator (or of the reap's chunk source,
 *             which takes them from it) that a reap bumps through: a power
 *             of two aligned to its size, so any pointer into it finds it
 *             through the address map (rp_chunk_block); its descriptor
 *             (rp_chunk_t and its bitmaps) is in its superblock's first
 *             slot, or at its start for the small ones.  The first chunk
 *             also holds the reap itself.
 *   solo      a chunk holding one block, for an object too big to bump
 *             (large), given back when that object is freed.
 *   granule   8 bytes: chunks keep two bits for each.
 *   block     one object's bytes inside a chunk, a whole number of the
 *             reap's grain (16 bytes, or 8 after reap_set_alignment(r, 8)).
 *             A block has no header: where blocks start and which are free
 *             is in its chunk's bitmaps (rp_pair_t).
 *   frontier  the reap's bump pointer in its newest chunk: everything from
 *             it to the chunk's end was never handed out since formatting.
 *   freed     a block the program gave back.  A free sets its freed bit
 *             and files it on the heap's list of its size, writing one
 *             link into its first word; it reads nothing of the block.
 *   sweep     the pass that joins neighbouring freed blocks (leaheap.c):
 *             it gives the frontier back what borders it, releases chunks
 *             that came wholly free, and files the runs afresh.  It runs
 *             when the frontier's chunk is full, no list serves a request
 *             and enough was freed since the last one.
 *   heap      the reap's lists of freed blocks (rp_heap_t), made at its
 *             first free: exact lists by size below 1 KiB, eight ranged
 *             ones per power of two above.
 *
 * The bitmaps.  A chunk keeps, for every 512 bytes from its start rounded
 * down to 512, a pair of words (rp_pair_t): bit i of `start' and of
 * `freed' stand for the granule at 8 * i.  For a granule:
 *
 *   start freed
 *     1     0    a live block starts here (handed out, not freed)
 *     1     1    a freed block starts here
 *     0     1    a block started here and was freed, then joined to the
 *                freed block before it: a free of it is a double free
 *     0     0    inside a block, or past the frontier, or not a block
 *
 * A block ends where the next start bit is: the next block's start, the
 * frontier (the last block before it; its end is the frontier itself), or
 * the chunk's end, whose start bit is always set (a sentinel, one bit past
 * the arena).  So a block's size is found from the address alone, and
 * so are the checks of a free: a pointer that is misaligned, is not a
 * start (interior, foreign, never handed out) or is freed already is a
 * misuse, told apart without reading the block.
 *
 * Invariants
 *   - Inside a live block, and from the frontier to the chunk's end, every
 *     bit is 0 but the block's start bit (and the sentinel).
 *   - free_bytes is the sum of the sizes of the freed blocks (their start
 *     and freed bits both set) of every chunk.
 *   - A listed block is freed, and on one list once; a freed block may be
 *     on no list (freed while a limit left the reap no lists, or
 *     forgotten when a realloc took a listed block: the lists are dropped
 *     then, and the next sweep files every freed block afresh).  Every
 *     listed block is exactly as a free, a split or a sweep filed it: its
 *     start and freed bits set and its size its list's.
 *   - The frontier's chunk serves first, by the inline bump (reap.h)
 *     while its chunk has room; the lists serve once it is full, before
 *     a sweep or a new chunk.
 */
#ifndef RP_INTERNAL_H
#define RP_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/addrmap.h"
#include "util/lock.h"
#include "reap.h"
#include "util/annotate.h" /* ASan/Valgrind annotations; nothing in normal builds */
#include "util/common.h"   /* config.h, RP_LIKELY, RP_ASSERT */
#include "util/list.h"

/* ---- bitmaps --------------------------------------------------------------- */

#define RP_GRANULE 8u     /* bytes a bit of the bitmaps stands for */
#define RP_GRAIN 16u      /* the default grain: REAP_ALIGNMENT */
#define RP_GRAIN_MIN 8u   /* the grain of reap_set_alignment(r, 8) */
/* Requests at or above this can never be satisfied; checked first so the
 * size arithmetic below cannot overflow. */
#define RP_MAX_REQUEST (((size_t)1) << 45)

/* The bits of 64 granules (512 bytes): reap.h's inline bump sets start. */
typedef struct rp_pair {
    uint64_t start, freed;
} rp_pair_t;

/* The pair of p's granule, in the bitmaps whose bias is bias (rp_chunk_t),
 * and p's bit in it: what reap_frontier_bump() computes. */
static inline rp_pair_t *rp_pair(uintptr_t bias, const void *p)
{
    return (rp_pair_t *)(bias + ((uintptr_t)p >> 9 << 4));
}
static inline uint64_t rp_bit(const void *p) { return (uint64_t)1 << ((uintptr_t)p >> 3 & 63); }
/* The bits of p's word from p's on, and up to p's included. */
static inline uint64_t rp_bits_from(const void *p) { return ~(rp_bit(p) - 1); }
static inline uint64_t rp_bits_through(const void *p) { return (rp_bit(p) << 1) - 1; }

/* ---- chunks ----------------------------------------------------------------- */

/* A chunk's descriptor: this header, then its bitmaps (a pair for every 512
 * bytes of the chunk, and one more for the sentinel).  Where it lies is
 * rp_desc()'s: in the superblock's first slot, or at the chunk's start (a
 * small chunk, or a solo one that is no aligned block); docs/design.md
 * draws it. */
typedef struct rp_chunk {
    struct rp_chunk *older; /* the chunk before this one; NULL for the oldest */
    struct rp_chunk *newer; /* NULL for the newest (the frontier's) */
    uintptr_t key;          /* rp_chunk_key(this), or rp_solo_key(this), while a
                             * reap owns it */
    reap_t *reap;           /* its owner */
    char *start;            /* the chunk's first byte */
    char *arena;            /* where its first block may start (grain-aligned) */
    size_t size;            /* bytes taken from the source (or the base); its
                             * last block ends at start + size (rp_chunk_end),
                             * whose start bit is set */
    uint32_t flags;         /* RP_CHUNK_BASE */
    uint32_t spare;
} rp_chunk_t;

/* Taken from the base allocator though the reap has a chunk source (the
 * source handed out a chunk it may not: reap.h), and so given back there. */
#define RP_CHUNK_BASE 1u

static inline char *rp_chunk_end(const rp_chunk_t *c) { return c->start + c->size; }

/* A freed base block keeps all but its first two words (base/hoard.c):
 * rp_solo_free() relies on the key being past them. */
_Static_assert(offsetof(rp_chunk_t, key) >= 2 * sizeof(void *), "the key must outlive a base free");
_Static_assert(sizeof(rp_chunk_t) == 64, "a descriptor's header is a cache line");

/* The keys of a live bumped chunk's and a live solo chunk's descriptor at
 * c.  A free of a pointer into memory that is no live chunk of any reap
 * finds no key there (the key is never stored anywhere else). */
#define RP_CHUNK_SALT ((uintptr_t)0x7e4a9c3b5d1f0e29ull)
#define RP_SOLO_SALT ((uintptr_t)0x3c1d5e8f29a7b460ull)
static inline uintptr_t rp_chunk_key(const rp_chunk_t *c) { return (uintptr_t)c ^ RP_CHUNK_SALT; }
/* c, a lookup's answer (NULL or any descriptor-shaped memory the base
 * allocator owns), is not a live bumped chunk of r: what a free and a
 * take from the lists check before they trust its bits. */
static inline bool rp_chunk_not_owned(const rp_chunk_t *c, const reap_t *r)
{
    return RP_UNLIKELY(c == NULL) || RP_UNLIKELY(c->key != rp_chunk_key(c)) || RP_UNLIKELY(c->reap != r);
}
static inline uintptr_t rp_solo_key(const rp_chunk_t *c) { return (uintptr_t)c ^ RP_SOLO_SALT; }
/* A solo chunk whose object was freed keeps this key until its memory is
 * used again, so a second free of it is told as a double free. */
static inline uintptr_t rp_solo_freed_key(const rp_chunk_t *c) { return ~rp_solo_key(c); }
static inline bool rp_chunk_solo(const rp_chunk_t *c) { return c->key == rp_solo_key(c); }

/* rp_chunk_list_*: a reap's chunks from r->chunk (the newest) back through
 * ->older (util/list.h). */
RP_LIST(rp_chunk_list, rp_chunk_t, older, newer)

/* The pair of p in the bitmaps of the bumped chunk c starting at start:
 * from p and the lookup alone, so it loads beside c's header. */
static inline rp_pair_t *rp_pair_in(const rp_chunk_t *c, uintptr_t start, const void *p)
{
    return (rp_pair_t *)(void *)(c + 1) + (((uintptr_t)p - start) >> 9);
}
static inline rp_pair_t *rp_pair_at(const rp_chunk_t *c, const void *p)
{
    return rp_pair_in(c, (uintptr_t)c->start, p);
}
/* The bias of the bitmaps of c, starting at start (reap_frontier_t.bits):
 * rp_pair(bias, p) is p's pair. */
static inline uintptr_t rp_pair_bias(const rp_chunk_t *c, uintptr_t start)
{
    return (uintptr_t)(c + 1) - (start >> 9 << 4);
}

/* The address of the next start bit after p (p a start in c, not solo),
 * w its pair: the end of p's block, unless it is the last before the
 * frontier, whose end is the frontier (the caller compares).  The
 * sentinel at the chunk's end stops the search. */
static inline char *rp_next_start_in(const rp_pair_t *w, const char *p)
{
    uintptr_t base = (uintptr_t)p & ~(uintptr_t)511;
    uint64_t above = w->start & ~rp_bits_through(p); /* past p's bit */
    while (above == 0) { /* the block reaches into the next 512 bytes */
        w++;
        base += 512;
        above = w->start;
    }
    return (char *)(base + 8 * (uintptr_t)__builtin_ctzll(above));
}
static inline char *rp_next_start(const rp_chunk_t *c, const char *p)
{
    return rp_next_start_in(rp_pair_at(c, p), p);
}

/* ---- the heap ---------------------------------------------------------------- */

/* Lists: exact ones for blocks of 1 to 127 granules (list k holds k * 8
 * bytes), then 8 ranged ones per power of two from 1 KiB, the last one
 * open-ended.  map: bit i set iff list[i] holds a block; list[i] is NULL
 * when it holds none, so a block filed takes list[i] as its link without
 * reading the map (a branch on the map's bit that no predictor gets right
 * on a program of mixed sizes: a quarter of reap_free's samples). */
#define RP_NEXACT 128
#define RP_NLISTS (RP_NEXACT + 8 * 7)
/* A split's rest smaller than this goes with the block it was cut from:
 * an 8-byte fragment of an 8-byte-grain reap would serve few requests.
 * A block freed, swept or retired is filed whatever its size (a link
 * fits in 8 bytes). */
#define RP_REST_MIN 16u

typedef struct rp_heap {
    uint64_t map[(RP_NLISTS + 63) / 64];
    void *list[RP_NLISTS];
    /* The lists were dropped (rp_heap_forget): the next chance, sweep. */
    bool cut;
    /* Carved from a chunk (a limit refused the base allocator's memory):
     * gone with the next clear. */
    bool carved;
} rp_heap_t;

/* ---- the reap ------------------------------------------------------------------ */

struct reap {
    /* reap.h's reap_frontier_t, which reap_malloc_bump() compiles into
     * callers (the assertions below check the two layouts agree). */
    char *bump;          /* the frontier */
    char *bump_end;      /* the frontier chunk's end */
    uintptr_t bits;      /* its bitmaps' bias (rp_chunk_t.bias) */
    size_t inline_limit; /* rp_opt.large_threshold, or 0 while annotating or tracing */
    size_t grain_mask;   /* the grain less one: 15, or 7 (reap_set_alignment) */

    rp_chunk_t *chunk;    /* the frontier's chunk; ->older leads to the rest */
    char *high;           /* where the frontier stood before it last moved back
                           * (rp_frontier_back): what lies in [bump, high) was
                           * handed out and freed */
    rp_chunk_t *first;    /* the chunk holding this struct, kept by clear */
    rp_heap_t *heap;      /* NULL until the first free (or a limit refused it) */
    uint64_t free_bytes;  /* bytes of freed blocks (invariant above) */
    int64_t swept;        /* free_bytes as the last sweep left it, less what
                           * the lists handed out since (it may fall below
                           * 0): what free_bytes holds above it was freed
                           * since (rp_sweep_due); a free does not touch it */
    /* The first chunk for this reap's next child: the largest power of two
     * (within the chunk sizes) not above half the peak footprint of the
     * child destroyed last, so that a request's reap, made again and
     * again, starts near its size without holding more than it will use
     * (docs/design.md, "Chunks, growth, limits").  Relaxed atomic:
     * children come and go in any thread. */
    _Atomic size_t child_chunk;

    /* Statistics.  Bumps (the inline one and libreap's own) are counted
     * lazily: live_bytes is right as of live_mark and allocs as of
     * settled, places in the frontier's chunk at or before it; a free
     * adds the bytes bumped since (rp_settle_live, cheap), and
     * rp_settle() the blocks too, from the start bits. */
    char *live_mark, *settled;
    uint64_t live_bytes, allocs, frees, clears, cleared_objects, peak_live_bytes;

    /* Footprint and limits.  acct is the nearest reap, this one or an
     * ancestor, that has a limit (and so accounts its whole subtree); NULL
     * when there is none.  tree_footprint counts the subtree of an
     * accounting reap; atomic, as children in other threads add to it. */
    uint64_t footprint, peak_footprint, limit_failures;
    reap_t *acct;
    size_t limit; /* 0: none; meaningful when acct == this */
    _Atomic uint64_t tree_footprint, tree_peak;

    /* Nesting.  The child list is guarded by lock, which other threads
     * take when they create or destroy children of this reap. */
    reap_t *parent;
    reap_t *children; /* first child */
    reap_t *next_sibling, *prev_sibling;
    rp_lock_t lock;

    size_t user_size;               /* bytes of caller space after this struct */
    const reap_chunk_source_t *src; /* where chunks come from; NULL: the base */
};

#define RP_SAME_FIELD(f) \
    _Static_assert(offsetof(struct reap, f) == offsetof(reap_frontier_t, f) && \
                       sizeof(((struct reap *)0)->f) == sizeof(((reap_frontier_t *)0)->f), \
                   "reap_frontier_t." #f " is not struct reap's")
RP_SAME_FIELD(bump);
RP_SAME_FIELD(bump_end);
RP_SAME_FIELD(bits);
RP_SAME_FIELD(inline_limit);
RP_SAME_FIELD(grain_mask);
#undef RP_SAME_FIELD

/* rp_child_list_*: a reap's children, from r->children, under r->lock. */
RP_LIST(rp_child_list, reap_t, next_sibling, prev_sibling)

#define RP_REAP_SIZE ((sizeof(struct reap) + RP_GRAIN - 1) & ~(size_t)(RP_GRAIN - 1))

/* The block a request of n bytes takes in r (n < RP_MAX_REQUEST). */
static inline size_t rp_block_size(const reap_t *r, size_t n)
{
    return ((n ? n : 1) + r->grain_mask) & ~r->grain_mask;
}

/* The inline bump may run: nothing listed (and not annotating/tracing). */

/* The end of the block starting at p in c: the next start bit, or the
 * frontier for the last block before it (whose next start bit is the
 * sentinel at the chunk's end). */
static inline char *rp_block_end(const reap_t *r, const rp_chunk_t *c, const char *p)
{
    char *e = rp_next_start(c, p);
    return c == r->chunk && e > r->bump ? r->bump : e;
}

/* ---- options (options.c) ---------------------------------------------------- */

typedef struct rp_options {
    size_t first_chunk;     /* REAP_FIRST_CHUNK: size of a reap's first chunk */
    size_t max_chunk;       /* REAP_MAX_CHUNK: cap of the growing chunk sizes */
    size_t large_threshold; /* REAP_LARGE_THRESHOLD: bigger objects get a solo chunk */
    size_t sweep_share;     /* REAP_SWEEP_SHARE: sweep once bytes freed since are this
                             * many 1/64ths of the footprint */
} rp_options_t;

extern rp_options_t rp_opt RP_INTERNAL;
void rp_options_init(void);

/* Reports a misuse (util/misuse.h, reap.h's handler) and aborts, or
 * returns when the report says to go on (REAP_MISUSE=report, or the
 * handler's REAP_MISUSE_LEAK): the caller then returns at once, leaving
 * the reap as it was.  REAP_MISUSE_CORRUPTION never returns. */
RP_COLD void rp_misuse(reap_misuse_kind_t kind, const char *what, reap_t *r, const void *p);

#define RP_FREE_FOREIGN "free of a pointer this reap did not hand out:"
#define RP_REALLOC_FOREIGN "realloc of a pointer this reap did not hand out:"

/* ---- region.c: chunks, the frontier, solo chunks, accounting, bits ------------ */

/* Charge n more bytes of footprint to r and its accounting ancestors.
 * Returns 0, or ENOMEM if a limit would pass (the caller counts that in
 * limit_failures once it gives up). */
int rp_charge(reap_t *r, size_t n);
void rp_uncharge(reap_t *r, size_t n);
/* The same for acct (an accounting reap, or NULL) and those above it
 * alone: a new reap's first chunk, charged before the reap exists. */
int rp_charge_chain(reap_t *acct, size_t n);
void rp_uncharge_chain(reap_t *acct, size_t n);
/* The descriptors' tables (region.h), set up once, before the first reap. */
void rp_region_once(void);
/* rp_options_init() and rp_region_once(), done: what a reap needs before
 * its first chunk.  The check is one load on the path of every
 * reap_create; pthread_once's call stays off it. */
extern _Atomic bool rp_ready RP_INTERNAL;
static inline void rp_reap_once(void)
{
    if (RP_UNLIKELY(!atomic_load_explicit(&rp_ready, memory_order_acquire))) {
        rp_options_init();
        rp_region_once();
        atomic_store_explicit(&rp_ready, true, memory_order_release);
    }
}

/* Lays out r's first chunk (size bytes at b, r in it) and puts the
 * frontier at its arena. */
void rp_region_init(reap_t *r, char *b, size_t size, uint32_t flags);
/* Gives back every chunk but the first and formats the first again. */
void rp_region_reset(reap_t *r);
/* Gives back every chunk but the first (destroy gives that one). */
void rp_region_release_all(reap_t *r);
/* A block of bsize bytes bumped at the frontier, opening a new chunk (or a
 * solo one for a big block) when it has no room; NULL when memory or a
 * limit runs out.  Counted lazily, as the inline bump is. */
char *rp_region_bump(reap_t *r, size_t bsize);
/* An object of n bytes, aligned to alignment, in a solo chunk; counted. */
void *rp_solo_alloc(reap_t *r, size_t n, size_t alignment);
/* Gives back the solo chunk c, its object freed (counted by the caller). */
void rp_solo_free(reap_t *r, rp_chunk_t *c);
static inline size_t rp_solo_usable(const rp_chunk_t *c) { return (size_t)(rp_chunk_end(c) - c->arena); }
/* Gives back c (not the first chunk, not the frontier's), a retired chunk
 * all of whose blocks are freed; the caller takes their bytes out of
 * free_bytes. */
void rp_region_release(reap_t *r, rp_chunk_t *c);
/* A chunk of size bytes (a power of two, 1 KiB or more) from src (NULL:
 * the base allocator), and back; *flags says where it came from. */
void *rp_chunk_get(const reap_chunk_source_t *src, size_t size, uint32_t *flags);
void rp_chunk_put(const reap_chunk_source_t *src, rp_chunk_t *c);

/* Clears the freed bits of [b, e) of c: live again, or the frontier's. */
void rp_freed_clear_range(const rp_chunk_t *c, char *b, char *e);
/* Mark [b, b + size) of c a freed block (start and freed bits): the rest
 * of a split or a shrink, a retired chunk's tail; filed when r has lists. */
void rp_bits_free_tail(reap_t *r, const rp_chunk_t *c, char *b, size_t size);
/* The start bits in [from, to) of the bitmaps whose bias is bits: the
 * blocks bumped there. */
uint64_t rp_starts_between(uintptr_t bits, const char *from, const char *to);
/* rp_settle_live(), and the blocks bumped since r->settled into allocs:
 * before anything moves the frontier other than a bump. */
void rp_settle(reap_t *r);

/* ---- leaheap.c: the lists and the sweep ------------------------------------------ */

/* A freed block of bsize bytes from the lists, cut to size; NULL when none
 * fits.  Counted (live_bytes, allocs). */
char *rp_heap_take(reap_t *r, size_t bsize);
/* Whether a sweep is worth its walk before the reap takes a new chunk for
 * a block of need bytes: enough was freed since the last, REAP_SWEEP_SHARE
 * of the footprint and need, or RP_SWEEP_JOIN times need for a block above
 * the exact lists' sizes once the reap has lists (leaheap.c). */
#define RP_SWEEP_JOIN 4
bool rp_sweep_due(const reap_t *r, size_t need);
/* Joins freed neighbours, gives the frontier what borders it, gives back
 * retired chunks that came wholly free, files the rest on the lists. */
void rp_sweep(reap_t *r);
/* The same for a clear, which also drops lists carved from a chunk. */
void rp_heap_clear(reap_t *r);
/* The heap's memory goes back (destroy). */
void rp_heap_release(reap_t *r);
/* Debug: check the invariants above over every chunk of r. */
void rp_heap_check(const reap_t *r);

/* The list of blocks of size bytes (a multiple of 8, at least 8). */
static inline unsigned rp_list_of(size_t size)
{
    size_t k = size / RP_GRANULE;
    if (k < RP_NEXACT)
        return (unsigned)k;
    unsigned lg = 63u - (unsigned)__builtin_clzll(size); /* >= 10 */
    unsigned i = RP_NEXACT + (lg - 10) * 8 + (unsigned)((size >> (lg - 3)) & 7);
    return i < RP_NLISTS ? i : RP_NLISTS - 1;
}

/* Puts b, a freed block of size bytes (a grain or more), first on its
 * list of h, its reap's heap, writing the one link a freed block holds. */
static inline void rp_heap_file(rp_heap_t *h, char *b, size_t size)
{
    unsigned i = rp_list_of(size);
    rp_ann_quiet_begin(); /* the link lives in freed memory */
    *(void **)(void *)b = h->list[i];
    rp_ann_quiet_end();
    h->list[i] = b;
    h->map[i / 64] |= (uint64_t)1 << (i % 64);
}

/* The lists, made (charged to r, or carved at its frontier) when r has
 * none; NULL when neither its limit nor the frontier leaves room. */
rp_heap_t *rp_heap_ensure(reap_t *r);
/* The lists say nothing, and the next list miss sweeps: what was listed
 * is found again in the bitmaps.  For a realloc that took a listed block,
 * which a singly linked list cannot unlink: left there, it could be filed
 * a second time while still linked, and a list that leads back to itself
 * never ends. */
void rp_heap_forget(reap_t *r);

/* A list holds a block. */
static inline bool rp_heap_listed(const reap_t *r)
{
    _Static_assert(sizeof r->heap->map == 3 * sizeof(uint64_t), "three words of lists");
    return r->heap && (r->heap->map[0] | r->heap->map[1] | r->heap->map[2]) != 0;
}


/* The frontier moves back to p (a block freed at it, or a shrink): from
 * p on, the chunk is unused, as it was before the bumps that handed out
 * what lay there. */
static inline void rp_frontier_back(reap_t *r, char *p)
{
    if (r->bump > r->high)
        r->high = r->bump;
    r->bump = r->settled = r->live_mark = p;
}

/* ---- counting (region.c, stats.c) ----------------------------------------------------- */

/* size bytes of freed blocks handed out again from the lists. */
static inline void rp_count_taken(reap_t *r, size_t size)
{
    r->free_bytes -= size;
    r->swept -= (int64_t)size;
    r->live_bytes += size;
    r->allocs++;
}

/* Count the bytes bumped since r->live_mark into live_bytes and raise the
 * peak: before live_bytes falls. */
static inline void rp_settle_live(reap_t *r)
{
    r->live_bytes += (uint64_t)(r->bump - r->live_mark);
    r->live_mark = r->bump;
    if (r->live_bytes > r->peak_live_bytes)
        r->peak_live_bytes = r->live_bytes;
}

#endif /* RP_INTERNAL_H */
