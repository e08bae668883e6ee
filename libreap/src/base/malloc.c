/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * malloc.c - the C allocation functions of libreap-malloc.so, for
 * LD_PRELOAD: malloc, free, calloc, realloc, posix_memalign, aligned_alloc,
 * memalign, valloc, pvalloc, malloc_usable_size and malloc_trim, all served by the
 * Hoard-style base allocator of this folder (its entry points, hoard.c).
 *
 * glibc routes its own internal allocations (stdio buffers, getpwnam,
 * dlopen, pthread keys) through these same symbols, and the first call can
 * come before any constructor runs: the allocator initialises itself on
 * the first call without allocating.  Errors follow POSIX: NULL with errno
 * ENOMEM, EINVAL returned by posix_memalign for a bad alignment.
 *
 * With REAP_TRACE=prefix each call is recorded (util/trace.h) as an
 * allocation, free or realloc of the "malloc" pseudo-reap (id 0); the
 * first call reads the variable.  Untraced, a call pays one test of
 * rp_trace_state.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hoard.h"
#include "../util/trace.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT void *malloc(size_t size);
EXPORT void free(void *p);
EXPORT void *calloc(size_t n, size_t size);
EXPORT void *realloc(void *p, size_t size);
EXPORT int posix_memalign(void **out, size_t align, size_t size);
EXPORT void *aligned_alloc(size_t align, size_t size);
EXPORT void *memalign(size_t align, size_t size);
EXPORT void *valloc(size_t size);
EXPORT void *pvalloc(size_t size);
EXPORT size_t malloc_usable_size(void *p);
EXPORT int malloc_trim(size_t pad);

/* ---- tracing ---------------------------------------------------------------------- */

/* The first call of the process reads REAP_TRACE (rp_trace_state is -1
 * until then); the rest record.  NULL results are not events. */
static RP_NOINLINE void *traced(void *p, size_t size)
{
    if (rp_tracing() < 0)
        rp_trace_init(RP_TRACE_MALLOC);
    if (p)
        rp_trace_alloc(NULL, size, p);
    return p;
}

static RP_NOINLINE void traced_free(void *p)
{
    if (rp_tracing() < 0)
        rp_trace_init(RP_TRACE_MALLOC);
    if (p)
        rp_trace_free(NULL, p);
}

#define TRACED(p, size) (RP_UNLIKELY(rp_tracing()) ? traced(p, size) : (p))

/* ---- the entry points -------------------------------------------------------------- */

/* malloc and free test the flag first, so the traced path is a tail call
 * and the untraced one the same code as without tracing. */
static RP_NOINLINE void *traced_malloc(size_t size) { return traced(rp_hoard_malloc(size), size); }

void *malloc(size_t size)
{
    if (RP_UNLIKELY(rp_tracing()))
        return traced_malloc(size);
    return rp_hoard_malloc(size);
}

void free(void *p)
{
    if (RP_UNLIKELY(rp_tracing())) {
        traced_free(p); /* before: another thread may get p at once */
        rp_hoard_free(p);
        return;
    }
    rp_hoard_free(p);
}

void *calloc(size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    bool zeroed;
    void *p = rp_hoard_malloc_z(total, &zeroed);
    if (p && !zeroed)
        memset(p, 0, total);
    return TRACED(p, total);
}

/* Grows or shrinks by moving, unless the block already fits and would not
 * waste more than half of itself.  Traced, the event is written before
 * the old block is freed: another thread may get it at once. */
void *realloc(void *p, size_t size)
{
    if (!p)
        return malloc(size);
    if (size == 0) { /* glibc's behaviour: free and return NULL */
        free(p);
        return NULL;
    }
    if (!rp_hoard_check(p, "realloc")) { /* reported; REAP_MISUSE=report */
        errno = EINVAL;
        return NULL;
    }
    size_t have = rp_hoard_usable_size(p);
    void *q = size <= have && size >= have / 2 ? p : rp_hoard_malloc(size);
    if (!q)
        return NULL; /* p stays valid, errno is ENOMEM */
    if (RP_UNLIKELY(rp_tracing()))
        rp_trace_realloc(NULL, p, q, size);
    if (q != p) {
        memcpy(q, p, size < have ? size : have);
        rp_hoard_free(p);
    }
    return q;
}

static bool power_of_two(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

int posix_memalign(void **out, size_t align, size_t size)
{
    if (!power_of_two(align) || align % sizeof(void *) != 0)
        return EINVAL;
    int saved = errno;
    void *p = TRACED(rp_hoard_memalign(align, size), size);
    errno = saved;
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
    if (!power_of_two(align)) {
        errno = EINVAL;
        return NULL;
    }
    return TRACED(rp_hoard_memalign(align, size), size);
}

/* glibc rounds a non-power-of-two alignment up; so do we. */
void *memalign(size_t align, size_t size)
{
    if (align > SIZE_MAX / 2) {
        errno = EINVAL;
        return NULL;
    }
    size_t a = 1;
    while (a < align)
        a <<= 1;
    return TRACED(rp_hoard_memalign(a, size), size);
}

void *valloc(size_t size)
{
    return TRACED(rp_hoard_memalign((size_t)sysconf(_SC_PAGESIZE), size), size);
}

void *pvalloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX - page) {
        errno = ENOMEM;
        return NULL;
    }
    size_t rounded = (size + page - 1) & ~(page - 1);
    return TRACED(rp_hoard_memalign(page, rounded ? rounded : page), size);
}

size_t malloc_usable_size(void *p) { return rp_hoard_usable_size(p); }

/* Returns free memory to the OS now; 1 as glibc does when it could. */
int malloc_trim(size_t pad)
{
    (void)pad;
    rp_hoard_trim();
    return 1;
}
