/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * hoard.h - the structures of the Hoard-style base allocator and the
 * prototypes its files share (libreap/src/base/).
 *
 * The allocator serves every reap chunk and large object (through base.h)
 * and, in libreap-malloc.so, every malloc of a program.  It follows Berger's
 * Hoard (ASPLOS 2000; dissertation ch. 7) and adds two things Hoard lacks:
 * per-thread caches with a byte bound, and return of memory to the OS.
 *
 * Glossary
 *   S          superblock size, a power of two (rp_hd_opt.sb_size).
 *   superblock an S-aligned block of S bytes: a header (rp_hd_sb_t) then
 *              blocks of one size class; a LIFO free list of returned blocks
 *              plus a bump pointer over blocks never handed out (so a fresh
 *              superblock touches only the pages it hands out).
 *   large      an object above S/2: a piece of address space of its own
 *              (whole superblocks), with the same header at an S-aligned
 *              address inside it (magic RP_HD_LARGE).
 *   space      the address space superblocks and large objects are carved
 *              from (space.c): reserves mapped 1 to 64 MiB at a time, and
 *              what was given back, its pages returned to the OS.
 *   heap       a set of superblocks, per size class in fullness groups,
 *              plus a list of empty superblocks; one lock.  Heap 0 is the
 *              global heap; heaps 1..n are shared by threads (a thread is
 *              bound to the least-loaded heap when it first allocates).
 *   tcache     a thread's cache of free blocks per class in front of its
 *              heap (no lock), holding only blocks whose superblock its
 *              heap owned when they were freed; plus an outbox of blocks
 *              freed by this thread that belong to other heaps, given back
 *              to their superblocks in batches (one lock per owning heap).
 *   invariant  Hoard's emptiness invariant, kept per size class on heaps
 *              1..n (heap.c): u_c >= a_c - K*S or u_c >= (1 - f) * a_c,
 *              once the heap's slack is used up.
 *   slack      what a heap may hold that it has not handed out (a - u:
 *              free blocks and empty superblocks) before the invariant
 *              applies: heap_slack bytes (REAP_HEAP_SLACK).
 *   owner      the heap a superblock belongs to.  Any pointer's header is
 *              rp_hd_hdr(p) = (p - 1) rounded down to S: blocks never start
 *              at a superblock's first byte, large objects start after
 *              their header.
 *
 * Lock order: heap i (i >= 1) < global heap < space lock; the tcache
 * pool lock and the large-object lock are never held with another (fork
 * takes them all: pool, heaps 1..n, global, large, space, release); the
 * release thread's lock is a leaf under any of them (release.c).
 * A superblock's owner changes only with the old and the new heap both
 * locked, so holding the lock of the heap read from sb->owner and reading
 * the same owner again proves it is stable.
 *
 * Memory bound kept (Hoard's theorem per size class, plus our caches):
 *   held <= b * live / (1 - f) + H * (classes + 1) * K * S   (heaps 1..H)
 *         + H * E                                        (their slack)
 *         + R                                            (global empties)
 *         + (empties younger than 2 * decay_ms, at most retain_max)
 *         + T * (C + O) + min(T * G, G_total)            (thread caches)
 *         + L                                            (large cache)
 * where b = 1.2 (class spacing), f = empty fraction, K = slack superblocks,
 * E = heap_slack (free blocks and empty superblocks a heap keeps before
 * the invariant applies; empties beyond K only while the heap reuses them:
 * unused through a decay period, they go to the global heap at its next
 * balance or another heap's sweep),
 * H = heaps, R = retain_bytes, T = threads, C = sum over classes of
 * 3/2 * max(tcache_bytes, 2 * size) (a bin's list
 * holds up to cap blocks and its range, what is left of a refill's piece
 * of never-used blocks, fewer than cap/2 + 1 more; about classes * 12 KiB
 * + 72 KiB), G = tcache_grow (what bins that overflow after running
 * dry may add to their caps, per thread), G_total = tcache_grow_total
 * (what all threads' caps may add together: a server of hundreds of
 * threads does not keep hundreds of G), O = outbox_bytes,
 * L = max(large_cache_bytes, live large bytes / 2).  Blocks in a thread's cache or outbox count as
 * in use for the heaps, which is why T * (C + G + O) appears.  A live
 * large object holds at most its size rounded up to S, plus a page, of
 * address space (a cached mapping it reused is split), and at most 1.5x
 * its size of it resident (large.c).
 */
#ifndef RP_HOARD_H
#define RP_HOARD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/common.h" /* config.h, RP_LIKELY, RP_ASSERT */
#include "addrmap.h"
#include "../util/list.h"

/* The name misuse reports start with: "libreap-malloc" in the preloaded
 * library (local.mk), "libreap" where it serves reaps. */
#ifndef RP_HD_NAME
#define RP_HD_NAME "libreap"
#endif

#define RP_HD_MAX_CLASSES 64
#define RP_HD_MAX_SB (1u << 20) /* largest S REAP_SUPERBLOCK accepts */
#define RP_HD_HDR 128          /* superblock header bytes; blocks start here */
#define RP_HD_MIN_ALIGN 16     /* every block is at least 16-byte aligned */
#define RP_HD_SB_MAGIC 0x5eb10cu
#define RP_HD_LARGE_MAGIC 0x1a29eu
#define RP_HD_CACHED_MAGIC 0xf1a29eu /* a large object freed into the cache */
#define RP_HD_MAX_HEAPS 128
#define RP_HD_CAP_MAX 256      /* blocks a thread cache's bin may keep */

/* Fullness groups: 0 is unused (empty superblocks live on the heap's empty
 * list), 1..4 hold superblocks with used/n in [0,1/4), [1/4,1/2), [1/2,3/4),
 * [3/4,1); RP_HD_FULL holds those with no free block. */
#define RP_HD_GROUPS 6
#define RP_HD_FULL 5

/* ---- options (hoard_options.c) -------------------------------------- */

typedef struct rp_hd_options {
    size_t sb_size;        /* S: power of two, 16 KiB .. 1 MiB */
    size_t empty_pct;      /* f in percent: a heap more than f empty gives back */
    size_t k_slack;        /* K: slack superblocks per class a heap may always keep */
    size_t heap_slack;     /* bytes not handed out a heap keeps whatever its classes */
    size_t heaps;          /* per-thread heaps, 0 = 2 * CPUs rounded up (>= 4) */
    size_t retain_bytes;   /* empty superblocks the global heap keeps mapped */
    size_t retain_max;     /* beyond this, empties are unmapped at once */
    size_t decay_ms;       /* other empties are unmapped after this long */
    size_t tcache_bytes;   /* per thread and class, 0 disables thread caches */
    size_t tcache_after;   /* calls a thread makes, each under a heap lock, before
                              it gets a cache (RP_HD_TCACHE_AFTER) */
    size_t outbox_bytes;   /* per thread: remote frees batched before locking */
    size_t tcache_grow;    /* per thread: bytes the caps of busy bins may grow by */
    size_t tcache_grow_total; /* per process: what all threads' caps may grow by
                                 together */
    size_t large_cache;    /* freed large mappings kept for reuse, in bytes */
    size_t batch;          /* superblocks carved at once from the address space */
    size_t release;        /* 1: the release thread runs (release.c), 0: off */
    size_t idle_ms;        /* quiet before the release thread trims all; 0 never
                              (read and written atomically: reap_base_idle_release) */
} rp_hd_options_t;

extern rp_hd_options_t rp_hd_opt RP_INTERNAL;

/* REAP_TCACHE_AFTER's default.  A program's threads call malloc all the
 * time, and a thread's first frees are best checked from a cache (a block
 * freed straight to its superblock may empty it and change its key,
 * hoard.c's free_nocache); a server's threads on reaps seldom call the
 * base allocator, and most of their caches would cost 2.8 KB for nothing
 * (tcache.c). */
#ifdef RP_HD_MALLOC
#define RP_HD_TCACHE_AFTER 0
#else
#define RP_HD_TCACHE_AFTER 64
#endif
/* Reads REAP_* from the environment once; called by rp_hd_init(). */
void rp_hd_options_init(void);

/* ---- OS layer (os.c): mappings, their counters, locks, the clock ------ */

/* The counters of the mappings, kept by os.c (and read by hoard_stats.c).
 * Written only when the allocator maps or unmaps, so no operation that
 * stays inside the allocator's memory writes a line every thread shares.
 * A cache line of its own, as is rp_hd_once, which every malloc above
 * 1 KiB reads. */
typedef struct rp_hd_counters {
    _Atomic uint64_t mapped;       /* bytes mapped from the OS now */
    _Atomic uint64_t peak_mapped;  /* peak_mapped >= mapped */
    _Atomic uint64_t maps, unmaps; /* mmap and munmap calls */
    _Atomic uint64_t returned;     /* bytes given back to the OS, ever */
} __attribute__((aligned(64))) rp_hd_counters_t;

extern rp_hd_counters_t rp_hd_cnt RP_INTERNAL;

/* Initialises an allocator lock (heaps, large objects) as an adaptive
 * mutex: they are held for a few list operations, so a thread that finds
 * one taken spins a little instead of paying a futex sleep and wake-up. */
void rp_hd_lock_init(pthread_mutex_t *lock);
/* One of the allocator's leaf locks around fork: phase 0 locks it (before
 * fork), 1 unlocks it (parent), 2 initialises it again (child). */
void rp_hd_lock_fork(pthread_mutex_t *lock, int phase);

/* A decay clock (each heap's empty superblocks, the large-object
 * cache): periods of decay_ms on a coarse monotonic clock.  Whatever was
 * stamped with an epoch before the period that just ended has stayed
 * unused through a whole period.  The caller's lock guards it. */
typedef struct rp_hd_decay {
    uint32_t epoch; /* periods begun: the stamp for what is parked now */
    uint64_t start; /* ms when the current period began */
} rp_hd_decay_t;

/* Starts a new period when the current one is over: returns true and sets
 * *stale to the period that just ended (stamps below it are stale). */
bool rp_hd_decay_tick(rp_hd_decay_t *d, uint32_t *stale);

/* Maps len bytes aligned to align (a power of two >= page); NULL on failure.
 * Never touches the memory, so untouched pages cost no RSS. */
void *rp_hd_os_map(size_t len, size_t align);
/* The same without unmapping the ragged ends: the mapping is the
 * *map_len bytes at *base (both set), to be unmapped whole. */
void *rp_hd_os_map_loose(size_t len, size_t align, char **base, size_t *map_len);
void rp_hd_os_unmap(void *p, size_t len);
size_t rp_hd_os_page(void);
/* For space.c: maps a reserve (counted as a mapping made, not as bytes
 * held), unmaps address space that holds nothing, counts a carve of len
 * bytes at p as held (and fresh to the sanitizers), and gives the pages
 * of len bytes at p back to the OS, keeping the addresses mapped (false,
 * nothing counted, if the kernel refused). */
void *rp_hd_os_reserve(size_t len, size_t align);
void rp_hd_os_unreserve(void *p, size_t len);
void rp_hd_os_count_carve(void *p, size_t len);
bool rp_hd_os_purge(void *p, size_t len);
/* The same for pages inside memory the allocator keeps (free blocks of a
 * superblock in use, retained empties): what the sanitizers know of them
 * stays, and so does mapped (held), as the allocator still holds them;
 * only returned counts them. */
bool rp_hd_os_purge_in_place(void *p, size_t len);

/* The region: address space reserved at start-up without access
 * (64 GiB, fewer under RLIMIT_AS) from whose start the address space of
 * space.c is taken, reserve after reserve with no gap, each made
 * readable when taken.  Every address from base to base + len can be
 * read, so free() reads the header of any pointer in it at once: one
 * subtract and compare instead of the address map's two loads (addrmap.c
 * stays the truth for every other pointer, and for reaps).  len only
 * grows. */
typedef struct rp_hd_region {
    _Atomic uintptr_t base;  /* 0: no region */
    _Atomic size_t len;      /* readable from base */
    size_t cap;              /* reserved */
} __attribute__((aligned(64))) rp_hd_region_t;
extern rp_hd_region_t rp_hd_region RP_INTERNAL;
void rp_hd_os_region_init(void);
/* A reserve for space.c: from the region while it lasts, else mapped. */
void *rp_hd_os_reserve_space(size_t len, size_t align);
static inline bool rp_hd_in_region(const void *p)
{
    return (uintptr_t)p - atomic_load_explicit(&rp_hd_region.base, memory_order_relaxed) <
           atomic_load_explicit(&rp_hd_region.len, memory_order_relaxed);
}

/* ---- the address map (addrmap.c, addrmap.h) -------------------------- */

/* Reads S (rp_hd_opt.sb_size); rp_hd_init() calls it before any mapping. */
void rp_hd_map_init(void);
/* Sets the byte of every granule whose start lies in len bytes at start to
 * v (addrmap.h: 1 mapped by the allocator, 0 not, 0x80 | s a superblock
 * of aligned 2^s-byte blocks); false when a leaf could not be
 * made (out of memory) or the range lies above the map. */
bool rp_hd_map_set(const void *start, size_t len, uint8_t v);
/* Marks the granules after a large object's header at head, up to end,
 * as its own (live) or as plain mapped memory again. */
void rp_hd_map_large(const void *head, const void *end, bool live);
/* Leads the granules of [from, end), which the large mapping at head has
 * just taken over (or, from == head, that start a mapping cut off
 * another), to head.  Only the first RP_BASE_MAP_CONT_MAX - 1 of them can
 * change, so a split or a join costs at most that many stores whatever
 * the mapping's size. */
void rp_hd_map_large_from(const void *head, const void *from, const void *end);
/* The header p's granule belongs to (a superblock, a large object, or
 * zeroed or stale memory: check its magic), or NULL when reading it could
 * fault.  Reads nothing at p. */
const struct rp_hd_sb *rp_hd_map_header(const void *p);

/* ---- size classes (sizeclass.c) ----------------------------------------- */

typedef struct rp_hd_classes {
    uint32_t n;                             /* number of classes */
    uint32_t size[RP_HD_MAX_CLASSES];       /* ascending, multiples of 16 */
    uint32_t nblocks[RP_HD_MAX_CLASSES];    /* blocks per superblock */
    /* log2 of where a superblock's first block starts: 7 (RP_HD_HDR), or
     * for a power-of-two size above RP_HD_HDR the size itself, so that
     * every block is aligned to its size (reap chunks are found by
     * rounding down, addrmap.h) at no cost: the header takes a block's
     * room either way, (S - 128) / size being S / size - 1 */
    uint8_t first_shift[RP_HD_MAX_CLASSES];
    /* class of sizes <= 1024 by (n+15)/16; atomic (relaxed) because malloc's
     * fast path reads it in threads that have not yet waited for
     * rp_hd_init(), while the first thread fills it: what they read then
     * does not matter (their cache is rp_hd_none, whose bins are empty) */
    _Atomic uint8_t small[1024 / 16 + 1];
    uint8_t big[RP_HD_MAX_SB / 2 / 64 + 1]; /* class of sizes 1024..S/2 by (n+63)/64: every
                                               class above 1 KiB is a multiple of 64 */
    uint8_t aligned64[RP_HD_MAX_CLASSES];   /* smallest class >= c whose size is a multiple of 64 */
} rp_hd_classes_t;

extern rp_hd_classes_t rp_hd_sc RP_INTERNAL;

/* Builds the table for superblocks of sb_size bytes: exact classes every 16
 * bytes up to 128, then each at most 1.2 times the one before, up to S/2. */
void rp_hd_sc_init(size_t sb_size);
/* The largest size served from superblocks (S/2). */
static inline size_t rp_hd_sc_max(void) { return rp_hd_sc.size[rp_hd_sc.n - 1]; }
/* Class of a size <= 1024; for 0, rp_hd_sc.n, the bin past the last
 * class, which every cache has and keeps empty, so that malloc(0) leaves
 * the fast path without a test of its own (zero.c). */
static inline uint32_t rp_hd_sc_small(size_t size)
{
    return atomic_load_explicit(&rp_hd_sc.small[(size + 15) >> 4], memory_order_relaxed);
}
/* Class of a size <= rp_hd_sc_max(): two table lookups, no search (a reap
 * chunk of 8 KiB or more asks for its class on every create and free). */
static inline uint32_t rp_hd_sc_of(size_t size)
{
    if (size <= 1024)
        return rp_hd_sc_small(size + (size == 0));
    return rp_hd_sc.big[(size + 63) >> 6];
}

/* ---- superblocks (superblock.c) ----------------------------------------- */

struct rp_hd_heap;

typedef struct rp_hd_sb {
    /* First cache line: everything free() reads (magic, owner, cls, and
     * the checks: divc, key), so its common path misses on one
     * header line, not two. */
    uint32_t magic;                      /* RP_HD_SB_MAGIC, RP_HD_LARGE_MAGIC or (a large
                                          * object freed into the cache) RP_HD_CACHED_MAGIC */
    uint32_t cls;                        /* size class; blocks are size bytes */
    _Atomic(struct rp_hd_heap *) owner;  /* see lock order above; NULL for large */
    uint64_t key;                        /* word 1 of every block freed since the last
                                          * reset, and of no block handed out (malloc
                                          * clears it): a free that finds it is a
                                          * suspected double free; nonzero, new at every
                                          * format and reset (rp_hd_sb_new_key) */
    _Atomic uint64_t divc;               /* ceil(2^64 / size): off % size == 0 iff
                                          * off * divc < divc, for off < 2^32; 0 while
                                          * interior or while blocks are parked, so that
                                          * every free takes the unusual path */
    uint32_t size;                       /* block size (superblocks) */
    _Atomic uint8_t interior;            /* an aligned alloc handed out an interior pointer */
    uint8_t group;                       /* fullness group it is listed in */
    uint8_t first_shift;                 /* blocks start 2^first_shift bytes in
                                          * (rp_hd_sb_blocks) */
    void *free;                          /* LIFO list of returned blocks */
    char *bump;                          /* first never-used block: stored atomically
                                          * (rp_hd_sb_set_bump), as free reads it without
                                          * a lock: no block at or past it is handed out */
    char *end;                           /* end of the last whole block; large: of the object */
    uint64_t recip;                      /* ceil(2^64 / size): a block's index is the high
                                          * word of its offset times recip (superblocks) */
    struct rp_hd_sb *prev, *next;        /* in owner's group or empty list */
    uint32_t used;                       /* blocks out: program, tcache or outbox */
    uint32_t nblocks;                    /* used <= nblocks */
    uint32_t empty_epoch;                /* decay period of its heap it became empty in */
    _Atomic uint32_t parked;             /* free blocks a trim gave back whole (bit i:
                                          * block i), off the free list and without
                                          * link or key (RP_HD_PARK_MAX) */
    /* large objects only */
    char *map_base;                      /* start of the mapping (before the header when
                                          * the mapping was aligned loosely) */
    size_t map_len;                      /* length of the mapping, ragged ends included */
    size_t usable;                       /* bytes from the user pointer to the end */
} rp_hd_sb_t;

_Static_assert(sizeof(rp_hd_sb_t) <= RP_HD_HDR, "superblock header too big");
_Static_assert(offsetof(rp_hd_sb_t, cls) < 64 &&
                   offsetof(rp_hd_sb_t, owner) < 64 && offsetof(rp_hd_sb_t, key) < 64 &&
                   offsetof(rp_hd_sb_t, divc) < 64,
               "free()'s fields in the header's first line");

/* rp_hd_sb_list_push/insert/unlink: a heap's lists of superblocks. */
RP_LIST(rp_hd_sb_list, rp_hd_sb_t, next, prev)

extern size_t rp_hd_sb_mask RP_INTERNAL; /* ~(S - 1) */

/* Where sb's blocks start. */
static inline char *rp_hd_sb_blocks(const rp_hd_sb_t *sb)
{
    return (char *)sb + ((size_t)1 << sb->first_shift);
}

/* Header of any pointer this allocator handed out. */
static inline rp_hd_sb_t *rp_hd_hdr(const void *p)
{
    return (rp_hd_sb_t *)(((uintptr_t)p - 1) & rp_hd_sb_mask);
}

/* Formats the superblock at sb (S bytes) for class cls, empty. */
void rp_hd_sb_format(rp_hd_sb_t *sb, uint32_t cls);
/* A key for a superblock's next generation of frees (rp_hd_sb_t.key):
 * never 0, never one handed out since the process started. */
uint64_t rp_hd_sb_new_key(void);
void rp_hd_sb_keys_init(void);
/* Whether p is not the start of one of sb's blocks, p in sb's block area
 * (true for every pointer while sb->interior is set, as divc is 0 then):
 * a multiply and a compare, no division.  A pointer into the header or
 * the slack after the last block passes when its offset happens to be a
 * multiple of the size; only a wild pointer is there. */
static inline bool rp_hd_sb_misplaced(const rp_hd_sb_t *sb, const void *p)
{
    uint64_t off = (uint64_t)((uintptr_t)p - (uintptr_t)rp_hd_sb_blocks(sb));
    uint64_t divc = atomic_load_explicit(&sb->divc, memory_order_relaxed);
    return off * divc >= divc;
}
/* Moves the bump pointer (the owner's lock held). */
static inline void rp_hd_sb_set_bump(rp_hd_sb_t *sb, char *bump)
{
    __atomic_store_n(&sb->bump, bump, __ATOMIC_RELAXED);
}
/* Whether p, a block start of sb, lies past the bump pointer: never
 * handed out.  Any thread, no lock: a block handed out lies below bump
 * until it comes back (the pointer moves back only over blocks never
 * handed out, and to the start only when none is out). */
static inline bool rp_hd_sb_unborn(const rp_hd_sb_t *sb, const void *p)
{
    return (const char *)p >= __atomic_load_n(&sb->bump, __ATOMIC_RELAXED);
}
/* Takes one block or returns NULL when the superblock is full. */
static inline void *rp_hd_sb_pop(rp_hd_sb_t *sb)
{
    void *p = sb->free;
    if (p) {
        sb->free = *(void **)p;
    } else if (sb->bump < sb->end) {
        p = sb->bump;
        rp_hd_sb_set_bump(sb, p + sb->size);
    } else {
        return NULL;
    }
    sb->used++;
    RP_ASSERT(sb->used <= sb->nblocks);
    return p;
}
/* Gives back a block (its start, not an interior pointer). */
static inline void rp_hd_sb_push(rp_hd_sb_t *sb, void *p)
{
    RP_ASSERT(sb->used > 0);
    *(void **)p = sb->free;
    sb->free = p;
    sb->used--;
}
/* The index of sb's block that holds p (p in its block area). */
static inline size_t rp_hd_sb_index(const rp_hd_sb_t *sb, const void *p)
{
    return (size_t)((const char *)p - rp_hd_sb_blocks(sb)) / sb->size;
}

/* Parked blocks.  A free block keeps its first page resident for its
 * link and key, so a trim that returns the rest of it leaves a page a
 * block: about 200 pages in each httpd child at idle, all of 4 KiB classes
 * and up.  Where a superblock has at most RP_HD_PARK_MAX blocks, a trim
 * instead parks its free blocks: off the free list into the bitmap, so
 * that their pages can go whole.  A parked block carries no key, so while
 * any is parked divc is 0 and every free of the superblock takes the
 * unusual path, which reads the bitmap (a double free of a parked block
 * is caught there; one that races the trim parking it may not be, as a
 * block in another thread's cache is not).  Allocation takes parked
 * blocks after the free list and the bump space. */
#define RP_HD_PARK_MAX 32
_Static_assert(RP_HD_PARK_MAX <= 32, "parked is a 32-bit map");

/* The divc that routes frees through the fast path, or 0 while that path
 * cannot vouch for a block (an interior pointer is out, blocks are
 * parked). */
static inline void rp_hd_sb_set_divc(rp_hd_sb_t *sb)
{
    bool unusual = atomic_load_explicit(&sb->interior, memory_order_relaxed) ||
                   atomic_load_explicit(&sb->parked, memory_order_relaxed) != 0;
    atomic_store_explicit(&sb->divc, unusual ? 0 : UINT64_MAX / sb->size + 1, memory_order_relaxed);
}

static inline uint32_t rp_hd_sb_nparked(const rp_hd_sb_t *sb)
{
    return (uint32_t)__builtin_popcount(atomic_load_explicit(&sb->parked, memory_order_relaxed));
}

/* Whether block b of sb is parked. */
static inline bool rp_hd_sb_is_parked(const rp_hd_sb_t *sb, const void *b)
{
    size_t i = rp_hd_sb_index(sb, b);
    return i < RP_HD_PARK_MAX && (atomic_load_explicit(&sb->parked, memory_order_relaxed) >> i & 1);
}

/* Empties a superblock with no block out: allocation bumps in address
 * order again instead of following a scattered free list. */
static inline void rp_hd_sb_reset(rp_hd_sb_t *sb)
{
    sb->free = NULL;
    rp_hd_sb_set_bump(sb, rp_hd_sb_blocks(sb));
    sb->key = rp_hd_sb_new_key(); /* the old one is in blocks bump order hands out */
    if (atomic_load_explicit(&sb->parked, memory_order_relaxed)) {
        atomic_store_explicit(&sb->parked, 0, memory_order_relaxed);
        rp_hd_sb_set_divc(sb);
    }
}
/* The start of the block holding p (p may point inside after memalign). */
void *rp_hd_sb_block_of(rp_hd_sb_t *sb, void *p);
/* The fullness group for the superblock's current use. */
static inline uint8_t rp_hd_sb_group(const rp_hd_sb_t *sb)
{
    uint32_t q = 4 * sb->used, n = sb->nblocks; /* 1 + 4*used/n, without dividing */
    if (sb->used == n)
        return RP_HD_FULL;
    return (uint8_t)(1 + (q >= n) + (q >= 2 * n) + (q >= 3 * n));
}

/* ---- heaps (heap.c) ------------------------------------------------------ */

typedef struct rp_hd_heap {
    pthread_mutex_t lock;
    _Atomic uint64_t ops;          /* blocks taken or given back, counted under lock: the
                                    * release thread reads them to tell quiet from busy */
    uint32_t index;                /* 0 = global */
    uint32_t nthreads;             /* threads bound to it (guarded by the pool lock) */
    size_t u;                      /* bytes of blocks out (used * size summed) */
    size_t a;                      /* S * superblocks owned */
    size_t nsb;                    /* superblocks owned (a / S) */
    size_t cu[RP_HD_MAX_CLASSES];  /* u of the class's superblocks */
    size_t ca[RP_HD_MAX_CLASSES];  /* S * non-empty superblocks of the class; on heaps >= 1,
                                    * after every balance, unless a - u <= heap_slack:
                                    * cu >= ca - K*S or cu >= (1-f) ca, and nempty <= K */
    uint64_t dirty;                /* classes freed into since the last balance */
    rp_hd_sb_t *group[RP_HD_MAX_CLASSES][RP_HD_GROUPS]; /* doubly linked, most recently freed first */
    rp_hd_sb_t *empty;             /* superblocks with used == 0, any class */
    size_t nempty;
    rp_hd_decay_t decay;           /* stamps of the empties (empty_epoch) */
    bool cap_poked;                /* global: the release thread was woken for empties
                                    * past retain_max and has not given them back yet */
    bool giving;                   /* global: the release thread holds a batch of them,
                                    * the lock let go (a fork waits it out) */
    uint32_t balances;             /* rp_hd_heap_balance calls (heap.c's sweep) */
    uint64_t to_global, from_global; /* superblock transfers */
} __attribute__((aligned(64))) rp_hd_heap_t;

extern rp_hd_heap_t *rp_hd_heaps RP_INTERNAL; /* [0] global, [1..rp_hd_nheaps] */
extern uint32_t rp_hd_nheaps RP_INTERNAL;

void rp_hd_heaps_init(void);
/* Locks the heap owning sb (stable while held); returns it. */
rp_hd_heap_t *rp_hd_lock_owner(rp_hd_sb_t *sb);
/* Takes up to n blocks of class cls from heap h (locked) as one NULL-ended
 * chain in *chain, splicing superblock free lists instead of copying them;
 * returns how many, 0 only when the OS refused memory.  When the fullest
 * superblock's whole free list holds at most whole_max blocks (which may
 * be more than n), it takes that list alone, in O(1). */
size_t rp_hd_heap_take_chain(rp_hd_heap_t *h, uint32_t cls, size_t n, size_t whole_max, void **chain);
/* Takes up to n never-used blocks of class cls in one piece when the
 * fullest superblock with room has no free list; sets *start and returns
 * how many (0: use rp_hd_heap_take_chain).  h locked. */
size_t rp_hd_heap_take_range(rp_hd_heap_t *h, uint32_t cls, size_t n, char **start);
/* Gives back n blocks of sb linked from head to tail to h, their owner
 * (locked by the caller).  Does not restore the emptiness invariant: call
 * rp_hd_heap_balance after. */
void rp_hd_heap_give_chain(rp_hd_heap_t *h, rp_hd_sb_t *sb, void *head, void *tail, uint32_t n);
/* The same for the never-used blocks from start to end of sb, a piece
 * rp_hd_heap_take_range handed out: when nothing was carved from sb after
 * it, its bump pointer moves back over it and no block is written;
 * otherwise the blocks are linked onto its free list. */
void rp_hd_heap_give_range(rp_hd_heap_t *h, rp_hd_sb_t *sb, char *start, char *end);
/* Restores Hoard's emptiness invariant on h (locked) by moving mostly
 * empty superblocks to the global heap. */
void rp_hd_heap_balance(rp_hd_heap_t *h);
/* Frees one block from any thread: locks its owner, gives it back. */
void rp_hd_free_locked(rp_hd_sb_t *sb, void *p);
/* The same for the piece start..end of never-used blocks of sb
 * (rp_hd_heap_give_range). */
void rp_hd_free_range(rp_hd_sb_t *sb, char *start, char *end);
/* Called, with no lock held, when the last thread bound to h has exited:
 * h's empties go to the global heap; without the release thread, which
 * would give them back in time, the global heap keeps retain_bytes of
 * empties, their pages purged, and gives back the rest and the large
 * cache now. */
void rp_hd_heap_orphaned(rp_hd_heap_t *h);
/* Gives back now every empty superblock beyond retain_bytes, and the
 * pages of free blocks and unused tails of all superblocks (in place). */
void rp_hd_heap_trim(void);
/* One decay period of every heap and of the global heap, for the release
 * thread (no lock held): stale empties move on and the global heap's go
 * back.  True while some empties wait for a later period. */
bool rp_hd_heap_decay(void);
/* Walks every list of h (locked) and checks links, owners, groups, free
 * block counts and the u/a/cu/ca/nsb/nempty totals; true when consistent. */
bool rp_hd_heap_check(const rp_hd_heap_t *h);
void rp_hd_heaps_lock_all(void);
void rp_hd_heaps_unlock_all(bool reinit);

/* ---- thread caches (tcache.c) ------------------------------------------- */

typedef struct rp_hd_bin {
    void *head;     /* LIFO list of free blocks, linked through their first word */
    uint32_t count; /* blocks on the list, count <= cap */
    uint32_t cap;   /* blocks kept: tcache_bytes / size (0 when disabled),
                     * grown by rp_hd_tcache_overflow */
    /* The run: when run_sb is a superblock (not NULL or RP_HD_RUN_BROKEN)
     * and count > run_base, the blocks at list positions run_base..count-1
     * (counted from the bottom; the newest count - run_base blocks) all
     * belong to run_sb, and run_first, the deepest of them, is at position
     * run_base.  Kept by frees (rp_hd_bin_push); pops leave it true;
     * refills and flushes that walk the list set run_sb = NULL. */
    rp_hd_sb_t *run_sb;
    void *run_first;
    uint32_t run_base;
    uint32_t size;  /* the class's block size */
    /* The range: never-used blocks from next to end (size apart) taken by
     * the last refill, handed out in address order once the list is
     * empty, so a refill writes no link into blocks the program is about
     * to write anyway.  Not counted in count. */
    char *next, *end;
    uint32_t dry;   /* refilled since it last overflowed: may grow (tcache.c) */
} __attribute__((aligned(64))) rp_hd_bin_t; /* 64 bytes: a bin is found with a shift */

_Static_assert(sizeof(rp_hd_bin_t) == 64, "a bin is one cache line");

/* Takes a block from the list, else from the range; NULL when both are
 * empty (always, in rp_hd_none and rp_hd_nocache). */
static inline void *rp_hd_bin_take(rp_hd_bin_t *bin)
{
    void *p = bin->head;
    if (__builtin_expect(p != NULL, 1)) {
        bin->head = *(void **)p;
        bin->count--;
        ((uint64_t *)p)[1] = 0; /* not the key: handed out (rp_hd_sb_t.key) */
        return p;
    }
    char *q = bin->next;
    if (q < bin->end) {
        bin->next = q + bin->size;
        return q;
    }
    return NULL;
}

/* run_sb of a bin whose run a free of another superblock broke (with
 * run_base 0): no run until the list empties, or a refill or flush
 * starts afresh (run_sb NULL). */
#define RP_HD_RUN_BROKEN ((rp_hd_sb_t *)1)

/* A push that does not continue the run: starts one at position n when
 * the old one is gone (the list fell to its base, or there was none) or
 * was long (frees in address order crossing into the next superblock),
 * else marks the bin broken. */
#define RP_HD_RUN_LONG 8
static inline void rp_hd_bin_run_turn(rp_hd_bin_t *bin, rp_hd_sb_t *sb, void *p, uint32_t n)
{
    if (n <= bin->run_base || bin->run_sb == NULL ||
        (bin->run_sb != RP_HD_RUN_BROKEN && n - bin->run_base >= RP_HD_RUN_LONG)) {
        bin->run_sb = sb;
        bin->run_base = n;
        bin->run_first = p;
    } else {
        bin->run_sb = RP_HD_RUN_BROKEN;
        bin->run_base = 0;
    }
}

/* Pushes block p of superblock sb on bin (count < cap), keeping the run.
 * A broken run stays broken until the list empties or the bin is
 * refilled or flushed, so the branch is predictable both where frees
 * come in runs (threadtest, whose flushes give a run back in O(1)) and
 * where a class's live blocks sit in a few superblocks, so that whether a
 * free continues the run is a coin toss (mstress).  Restarting
 * the run on every such free mispredicted this branch on 60% of frees
 * (cachegrind, random frees of 10,000 live blocks of 8-264 bytes); that
 * loop took 0.29-0.32 s with it, 0.22-0.25 s with this (0.22 s with no
 * run kept at all, but then threadtest's flushes walk its lists). */
static inline void rp_hd_bin_push(rp_hd_bin_t *bin, rp_hd_sb_t *sb, void *p)
{
    uint32_t n = bin->count;
    RP_ASSERT(n < bin->cap);
    rp_hd_sb_t *r = bin->run_sb;
    /* & and |, not && and ||: three short-circuit branches here made
     * larson 4-10% slower at 8 threads (alike in three code alignments) */
    if (__builtin_expect(((r != sb) & (r != RP_HD_RUN_BROKEN)) | (n <= bin->run_base), 0))
        rp_hd_bin_run_turn(bin, sb, p, n);
    *(void **)p = bin->head;
    bin->head = p;
    bin->count = n + 1;
}

/* A thread's cache.  Only rp_hd_none and rp_hd_nocache are whole;
 * the others end after bin[rp_hd_sc.n - 1] (rp_hd_tcache_bytes). */
typedef struct rp_hd_tcache {
    rp_hd_heap_t *heap;           /* the heap this thread allocates from */
    struct rp_hd_tcache *live_prev, *live_next; /* caches of live threads (pool lock) */
    _Atomic uint32_t park;        /* RP_HD_RUNNING, _PARKED, _FLUSHING or _RELEASED */
    uint32_t trim_gen;            /* the last trim that flushed it while parked */
    void *outbox;                 /* blocks of other heaps' superblocks, linked */
    size_t outbox_bytes;          /* <= rp_hd_opt.outbox_bytes */
    size_t grow_left;             /* bytes the caps may still grow by (of tcache_grow) */
    size_t grown;                 /* bytes taken from the process's grow budget */
    rp_hd_bin_t bin[RP_HD_MAX_CLASSES];
} rp_hd_tcache_t;

/* The calling thread's cache; rp_hd_none until its first allocation.  Default
 * (dynamic) TLS model, which works in a dlopen'ed module (libreap.so);
 * built with RP_HD_TLS_IE (libreap-malloc.so only, which is preloaded and
 * so always part of the initial static TLS block) the initial-exec model,
 * one %fs-relative load instead of a call per malloc and free. */
#ifdef RP_HD_TLS_IE
#define RP_HD_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define RP_HD_TLS_MODEL
#endif
extern __thread rp_hd_tcache_t *rp_hd_tls RP_HD_TLS_MODEL;
/* What rp_hd_tls points to before a thread's first allocation, instead of
 * NULL, so the fast paths test nothing: no heap (no superblock's owner),
 * empty bins, caps 0.  Never written. */
extern rp_hd_tcache_t rp_hd_none RP_INTERNAL;
/* What a thread without a cache of its own uses: caps 0, so each malloc
 * takes one block and each free gives its block back under the heap's
 * lock (tcache.c; a thread before its first tcache_after calls, or
 * exiting).  Never written. */
extern rp_hd_tcache_t rp_hd_nocache RP_INTERNAL;

/* tc is a thread's own cache, not one of the two shared ones. */
static inline bool rp_hd_own_cache(const rp_hd_tcache_t *tc)
{
    return tc != &rp_hd_none && tc != &rp_hd_nocache;
}

/* A thread that waits for work (rp_hd_thread_park .. _unpark) lets a trim
 * in another thread take its cache: the trim moves the cache from PARKED
 * to FLUSHING, flushes it, and leaves it RELEASED, no longer the thread's
 * (its pages may go back to the OS).  The owner, waking, waits while it is
 * FLUSHING, takes it back (RUNNING) if it is still PARKED, and otherwise
 * gives it up and starts again as a new thread does (rp_hd_tcache_get).  RELEASED is 0,
 * what a page given back reads as.  Nothing on malloc's or free's paths
 * looks at it. */
enum { RP_HD_RELEASED = 0, RP_HD_RUNNING = 1, RP_HD_PARKED = 2, RP_HD_FLUSHING = 3 };
void rp_hd_thread_park(void);
void rp_hd_thread_unpark(void);
/* Flushes the cache of every parked thread and releases it, then gives
 * back the pages that hold no live thread's cache (rp_hoard_trim). */
void rp_hd_tcache_flush_parked(void);

/* Thread caches by state, for tests and statistics (the pool lock). */
typedef struct rp_hd_tcache_census {
    size_t owned;    /* caches of live threads */
    size_t released; /* taken from their parked threads by a trim */
    size_t free;     /* for the next thread */
    size_t purged;   /* bytes of cache pages given back to the OS now */
} rp_hd_tcache_census_t;
void rp_hd_tcache_census(rp_hd_tcache_census_t *out);

/* Returns the calling thread's cache, creating it when the thread has
 * none, or rp_hd_nocache while the thread has made fewer than
 * tcache_after calls.  The caller has seen rp_hd_init() return. */
rp_hd_tcache_t *rp_hd_tcache_get(void);
/* The bytes of a thread's cache: a header and the bins of the classes in
 * use, less than a whole rp_hd_tcache_t. */
size_t rp_hd_tcache_bytes(void);
void *rp_hd_tcache_refill(rp_hd_tcache_t *tc, uint32_t cls);
/* Makes room in tc's full bin of class cls: grows its cap out of the
 * thread's budget, or gives half of it back to the heap. */
void rp_hd_tcache_overflow(rp_hd_tcache_t *tc, uint32_t cls);
void rp_hd_tcache_flush_bin(rp_hd_tcache_t *tc, uint32_t cls, uint32_t keep);
void rp_hd_tcache_free_remote(rp_hd_tcache_t *tc, rp_hd_sb_t *sb, void *p);
void rp_hd_tcache_flush_all(rp_hd_tcache_t *tc);
void rp_hd_tcache_init(void);
void rp_hd_tcache_fork(int phase);

/* ---- zero-size allocations (zero.c) -------------------------------------- */

/* A distinct address for malloc(0) in a region reserved without access,
 * so a read or write of it faults; NULL when the region is used up (or
 * cannot be mapped): the caller hands out a 16-byte block instead. */
void *rp_hd_zero_alloc(void);
extern char *_Atomic rp_hd_zero_base RP_INTERNAL;
#define RP_HD_ZERO_BYTES ((size_t)64 << 20)
/* Whether p is one of them: its free is a no-op, its size 0. */
static inline bool rp_hd_zero_has(const void *p)
{
    char *b = atomic_load_explicit(&rp_hd_zero_base, memory_order_acquire);
    return b != NULL && (uintptr_t)p - (uintptr_t)b < RP_HD_ZERO_BYTES;
}

/* ---- large objects (large.c) -------------------------------------------- */

/* The bytes before a large object are the allocator's (its header page):
 * they carry a pattern from allocation to free, and a free that finds it
 * changed reports an underflow.  Costs a large allocation one store of
 * 64 bytes on a page it writes anyway. */
#define RP_HD_GUARD 64
#define RP_HD_GUARD_BYTE 0xa5
static inline void rp_hd_large_guard_set(void *obj)
{
    __builtin_memset((char *)obj - RP_HD_GUARD, RP_HD_GUARD_BYTE, RP_HD_GUARD);
}
static inline bool rp_hd_large_guard_ok(const void *obj)
{
    const uint64_t *g = (const uint64_t *)((const char *)obj - RP_HD_GUARD);
    uint64_t bad = 0;
    for (int i = 0; i < RP_HD_GUARD / 8; i++)
        bad |= g[i] ^ (UINT64_C(0x0101010101010101) * RP_HD_GUARD_BYTE);
    return bad == 0;
}

/* Maps an object of size bytes aligned to align (power of two); *fresh is
 * set when its memory is known to be zero.  NULL on failure.  The caller
 * has seen rp_hd_init() return. */
void *rp_hd_large_alloc(size_t size, size_t align, bool *fresh);
void rp_hd_large_free(rp_hd_sb_t *hdr);
/* Bytes a default-aligned large request of size really gets. */
size_t rp_hd_large_usable(size_t size);
void rp_hd_large_fork(int phase);
void rp_hd_large_trim(void);
/* One decay period of the large cache (no lock held); true while mappings
 * are cached. */
bool rp_hd_large_decay(void);
/* Large allocations and frees so far (the release thread's activity). */
uint64_t rp_hd_large_ops(void);

/* ---- address space (space.c) --------------------------------------------- */

/* Carves between min and want bytes (multiples of S, min > 0) at an
 * S-aligned address, of zeroed pages that cost no RSS until touched; sets
 * *got.  NULL when the OS refused memory. */
void *rp_hd_space_take(size_t want, size_t min, size_t *got);
/* Gives len bytes at p, carved by rp_hd_space_take, back: their pages to
 * the OS at once, their addresses to later carves. */
void rp_hd_space_give(void *p, size_t len);
/* Spans of free address space kept at most: 64 KiB of them (space.c). */
#define RP_HD_SPAN_MAX 4096
/* How many spans of free address space there are, and (bytes, unless
 * NULL) how much address space they hold (tests). */
size_t rp_hd_space_spans(size_t *bytes);
void rp_hd_space_fork(int phase);

/* ---- the release thread (release.c) -------------------------------------- */

/* It starts once the allocator holds this much: a small program never
 * gets a thread, and keeps at most about this much when idle. */
#define RP_HD_RELEASE_MIN ((size_t)2 << 20)
enum { RP_HD_BG_NONE, RP_HD_BG_STARTING, RP_HD_BG_RUNNING, RP_HD_BG_FAILED };
typedef struct rp_hd_release {
    _Atomic int state;    /* RP_HD_BG_*: read on allocation's slow path */
    _Atomic int asleep;   /* it waits for an operation to wake it */
    char pad[56];         /* the figures below change; the flags above are read */
    _Atomic uint64_t ticks;    /* decay periods it ran */
    _Atomic uint64_t trims;    /* whole trims after idle_ms of quiet */
    _Atomic uint64_t returned; /* bytes given back to the OS in its periods and trims */
} __attribute__((aligned(64))) rp_hd_release_t;
extern rp_hd_release_t rp_hd_bg RP_INTERNAL;

void rp_hd_release_init(void);
/* Starts the thread when it is not running and the allocator holds
 * RP_HD_RELEASE_MIN; the caller holds no allocator lock and is not inside
 * a free (release.c says why). */
void rp_hd_release_start(void);
static inline void rp_hd_release_maybe_start(void)
{
    if (RP_UNLIKELY(atomic_load_explicit(&rp_hd_bg.state, memory_order_relaxed) == RP_HD_BG_NONE))
        rp_hd_release_start();
}
void rp_hd_release_wake_slow(void);
/* An operation of the allocator, counted (a heap's ops under its lock):
 * wakes the thread if it sleeps.  One relaxed load otherwise. */
static inline void rp_hd_release_wake(void)
{
    if (RP_UNLIKELY(atomic_load_explicit(&rp_hd_bg.asleep, memory_order_relaxed)))
        rp_hd_release_wake_slow();
}
void rp_hd_release_fork(int phase);
/* idle_ms from now on (reap_base_idle_release). */
void rp_hd_release_set_idle(size_t ms);

/* ---- statistics (hoard_stats.c) ------------------------------------------ */

/* Bytes of the mappings of live large objects, and of the large cache
 * (large.c: the cache's sums change under its lock, the bytes mapped
 * with each mmap and munmap; a reader may see them a moment apart). */
uint64_t rp_hd_large_in_use(void);
uint64_t rp_hd_large_cached(void);

typedef struct rp_hoard_stats {
    uint64_t in_use;        /* bytes of blocks out (incl. thread caches) and large objects */
    uint64_t held;          /* bytes mapped from the OS */
    uint64_t peak_held;
    uint64_t os_maps, os_unmaps;
    uint64_t returned;      /* bytes unmapped, ever */
    uint64_t global_empty;  /* bytes of empty superblocks in the global heap */
    uint64_t heap_empty;    /* bytes of empty superblocks kept by heaps 1..H */
    uint64_t large_cached;
    uint64_t to_global, from_global; /* superblock transfers, all heaps */
    uint64_t release_ticks, release_trims, release_returned; /* rp_hd_bg */
    uint32_t nheaps;        /* entries used in sb_per_heap ([0] = global) */
    uint32_t sb_per_heap[RP_HD_MAX_HEAPS + 1];
} rp_hoard_stats_t;

void rp_hoard_get_stats(rp_hoard_stats_t *out);
/* Writes the statistics as text (json false) or one JSON object. */
void rp_hoard_stats_print(const rp_hoard_stats_t *st, bool json,
                          void (*write)(void *arg, const char *s), void *arg);

/* ---- entry points (hoard.c) ------------------------------------------------ */

/* Initialises the allocator once; safe to call from any thread, any time. */
void rp_hd_init(void);
typedef struct rp_hd_once {
    _Atomic int ready;   /* rp_hd_init() has finished */
    _Atomic int claimed; /* a thread has begun it */
} __attribute__((aligned(64))) rp_hd_once_t;
extern rp_hd_once_t rp_hd_once RP_INTERNAL;

/* malloc-like: NULL (errno ENOMEM) on failure; size 0 gives a unique block. */
void *rp_hoard_malloc(size_t size);
/* *zeroed is set when the memory is known to be zero already (fresh mapping). */
void *rp_hoard_malloc_z(size_t size, bool *zeroed);
/* Frees p; a double free, or a pointer it did not hand out (foreign, or
 * inside a block), is reported on stderr and aborts, or with
 * REAP_MISUSE=report is ignored. */
void rp_hoard_free(void *p);
/* True when p is a live block or large object; otherwise reports "<op> of
 * ..." as free does and returns false (REAP_MISUSE=report) or aborts.
 * Finds a freed block as free does, in this thread's cache and outbox
 * and on its superblock's free list. */
bool rp_hoard_check(const void *p, const char *op);
/* align a power of two; NULL (errno ENOMEM) on failure. */
void *rp_hoard_memalign(size_t align, size_t size);
size_t rp_hoard_usable_size(const void *p);
/* Gives the calling thread's cached blocks back and returns every empty
 * superblock beyond the retain threshold and every cached large mapping
 * to the OS now (malloc_trim). */
void rp_hoard_trim(void);

#endif /* RP_HOARD_H */
