/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * annotate.h - tells AddressSanitizer and Valgrind which bytes of a reap the
 * program may touch, so that misuse of reap objects is reported as it would
 * be for malloc.
 *
 * Three builds:
 *   normal     every macro below is empty or constant: the code of the hot
 *              paths is exactly what it is without this file.
 *   ASan       (-fsanitize=address; detected with __SANITIZE_ADDRESS__ or
 *              __has_feature) poisoning through <sanitizer/asan_interface.h>.
 *   Valgrind   (configure --enable-valgrind, which defines REAP_VALGRIND when
 *              <valgrind/memcheck.h> exists) memcheck client requests, each
 *              a few instructions that do nothing when the program does not
 *              run under valgrind; RUNNING_ON_VALGRIND routes the public
 *              calls to the annotated paths only when it does.
 *
 * What the program may touch (the same in both tools):
 *   - exactly the n bytes it asked for, from the returned pointer: a read or
 *     write one byte past them, into the rounding of the block or into the
 *     neighbour's boundary tag, is reported (malloc under ASan does the same);
 *   - never a freed object, the bytes between the frontier and the end of a
 *     chunk (never handed out), block headers, the bin table, large-object
 *     bookkeeping, or anything a reap held after reap_clear/reap_destroy.
 * reap_usable_size() returns what it returns in a normal build, the whole
 * usable size of the block, and opens those bytes to the program, which
 * reap.h allows to use them; past them everything stays poisoned.  (glibc's
 * malloc_usable_size() under ASan returns the size asked for instead; a
 * reap keeps one answer in every build.)  realloc copies the bytes open.
 *
 * The allocator itself must still read and write headers and free-list
 * links inside poisoned memory.  Under ASan libreap is built with heap loads
 * and stores not instrumented (configure's REAP_LIB_SAN_CFLAGS: GCC's
 * --param asan-instrument-reads/writes=0, clang's -mllvm equivalents), so
 * only the program's own accesses are checked; stack and global accesses in
 * libreap still are.  Under Valgrind every annotated path runs between
 * rp_ann_quiet_begin() and rp_ann_quiet_end(), which turn off memcheck's
 * error reports for the calling thread (the allocator's own accesses), and
 * each reap is a memcheck memory pool (anchored at the reap), so reap_clear
 * and reap_destroy free all its objects at once.
 */
#ifndef RP_ANNOTATE_H
#define RP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "common.h" /* config.h: REAP_VALGRIND */

#if defined(__SANITIZE_ADDRESS__)
#define RP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RP_ASAN 1
#endif
#endif

#if defined(RP_ASAN)
#include <sanitizer/asan_interface.h>
#define RP_ANNOTATE 1
#define RP_ANNOTATED() 1
#elif defined(REAP_VALGRIND)
#include <valgrind/memcheck.h>
#define RP_VALGRIND 1
#define RP_ANNOTATE 1
#define RP_ANNOTATED() __builtin_expect(RUNNING_ON_VALGRIND != 0, 0)
#else
#define RP_ANNOTATE 0
#define RP_ANNOTATED() 0
#endif

#if RP_ANNOTATE

/* The program may not touch [p, p+n). */
static inline void rp_ann_noaccess(const void *p, size_t n)
{
#ifdef RP_ASAN
    ASAN_POISON_MEMORY_REGION(p, n);
#else
    VALGRIND_MAKE_MEM_NOACCESS(p, n);
#endif
}

/* [p, p+n) may be used, its contents undefined (fresh base memory). */
static inline void rp_ann_undefined(const void *p, size_t n)
{
#ifdef RP_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
    VALGRIND_MAKE_MEM_UNDEFINED(p, n);
#endif
}

/* [p, p+n) is zeroed memory the OS gave (again): usable, and defined, as
 * a fresh mapping is to both tools. */
static inline void rp_ann_fresh(const void *p, size_t n)
{
#ifdef RP_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
    VALGRIND_MAKE_MEM_DEFINED(p, n);
#endif
}

/* [p, p+n) is allocator metadata from now on (a chunk's descriptor, the
 * lists), written by libreap and by libc (memset, which ASan checks even
 * from libreap): open to both tools.  A descriptor may lie in a
 * superblock's first slot, where an older block of another size was
 * closed when it was freed. */
static inline void rp_ann_metadata(const void *p, size_t n)
{
#ifdef RP_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
    VALGRIND_MAKE_MEM_DEFINED(p, n);
#endif
}

/* The allocator is about to touch poisoned memory / is done with it. */
static inline void rp_ann_quiet_begin(void)
{
#ifdef RP_VALGRIND
    VALGRIND_DISABLE_ERROR_REPORTING;
#endif
}
static inline void rp_ann_quiet_end(void)
{
#ifdef RP_VALGRIND
    VALGRIND_ENABLE_ERROR_REPORTING;
#endif
}

/* A reap's objects form one pool (Valgrind); created when its region is
 * set up, destroyed, freeing every object, on clear and destroy. */
static inline void rp_ann_pool_create(const void *reap)
{
#ifdef RP_VALGRIND
    VALGRIND_CREATE_MEMPOOL(reap, 0, 0);
#endif
    (void)reap;
}
static inline void rp_ann_pool_destroy(const void *reap)
{
#ifdef RP_VALGRIND
    VALGRIND_DESTROY_MEMPOOL(reap);
#endif
    (void)reap;
}

/* p, n bytes asked for, was handed out by reap. */
static inline void rp_ann_object(const void *reap, const void *p, size_t n)
{
#ifdef RP_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
    VALGRIND_MEMPOOL_ALLOC(reap, p, n);
#endif
    (void)reap;
}

/* p, whose block spans span bytes from p, is being freed. */
static inline void rp_ann_object_free(const void *reap, const void *p, size_t span)
{
#ifdef RP_ASAN
    ASAN_POISON_MEMORY_REGION(p, span);
#else
    VALGRIND_MEMPOOL_FREE(reap, p);
    VALGRIND_MAKE_MEM_NOACCESS(p, span);
#endif
    (void)reap;
}

/* p stayed in place and now holds n bytes; it held old, its block spans
 * span bytes (>= old and >= n). */
static inline void rp_ann_object_resize(const void *reap, const void *p, size_t old, size_t span,
                                        size_t n)
{
#ifdef RP_ASAN
    ASAN_POISON_MEMORY_REGION(p, span);
    ASAN_UNPOISON_MEMORY_REGION(p, n);
    (void)old;
#else
    VALGRIND_MEMPOOL_CHANGE(reap, p, p, n);
    if (n > old)
        VALGRIND_MAKE_MEM_UNDEFINED((const char *)p + old, n - old);
    if (span > n)
        VALGRIND_MAKE_MEM_NOACCESS((const char *)p + n, span - n);
#endif
    (void)reap;
}

/* The program may now use [p, p+span): it has [p, p+open) already. */
static inline void rp_ann_open(const void *p, size_t open, size_t span)
{
#ifdef RP_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, span);
    (void)open;
#else
    if (span > open)
        VALGRIND_MAKE_MEM_UNDEFINED((const char *)p + open, span - open);
#endif
}

/* How many bytes from p the program may use, at most span: the size it
 * asked for.  Valgrind's check reports nothing between quiet_begin/end. */
static inline size_t rp_ann_accessible(const void *p, size_t span)
{
#ifdef RP_ASAN
    const char *bad = __asan_region_is_poisoned((void *)p, span);
#else
    rp_ann_quiet_begin();
    const char *bad = (const char *)VALGRIND_CHECK_MEM_IS_ADDRESSABLE(p, span);
    rp_ann_quiet_end();
#endif
    return bad ? (size_t)(bad - (const char *)p) : span;
}

#else
/* A normal build: nothing.  sizeof names the arguments (no unused
 * warnings) without evaluating them, so a size computed only for an
 * annotation costs nothing. */

#define rp_ann_noaccess(p, n) ((void)sizeof(p), (void)sizeof(n))
#define rp_ann_undefined(p, n) ((void)sizeof(p), (void)sizeof(n))
#define rp_ann_fresh(p, n) ((void)sizeof(p), (void)sizeof(n))
#define rp_ann_metadata(p, n) ((void)sizeof(p), (void)sizeof(n))
#define rp_ann_quiet_begin() ((void)0)
#define rp_ann_quiet_end() ((void)0)
#define rp_ann_pool_create(reap) ((void)sizeof(reap))
#define rp_ann_pool_destroy(reap) ((void)sizeof(reap))
#define rp_ann_object(reap, p, n) ((void)sizeof(reap), (void)sizeof(p), (void)sizeof(n))
#define rp_ann_object_free(reap, p, span) ((void)sizeof(reap), (void)sizeof(p), (void)sizeof(span))
#define rp_ann_object_resize(reap, p, old, span, n) \
    ((void)sizeof(reap), (void)sizeof(p), (void)sizeof(old), (void)sizeof(span), (void)sizeof(n))
#define rp_ann_accessible(p, span) ((void)sizeof(p), (span))
#define rp_ann_open(p, open, span) ((void)sizeof(p), (void)sizeof(open), (void)sizeof(span))

#endif /* RP_ANNOTATE */

#endif /* RP_ANNOTATE_H */
