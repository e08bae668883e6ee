/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * malloc.c - the C allocation functions of libreap-malloc.so, for
 * LD_PRELOAD: malloc, free, calloc, realloc, posix_memalign, aligned_alloc,
 * memalign, valloc, pvalloc, malloc_usable_size and malloc_trim, all served by the
 * Hoard-style base allocator of this folder (its entry points, hoard.c),
 * and C++'s replaceable operator new and delete (below).
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
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
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

/* The bodies of malloc and free, also C++'s operators' (a call of the
 * exported names from inside the library would go through the PLT). */
static inline void *do_malloc(size_t size)
{
    if (RP_UNLIKELY(rp_tracing()))
        return traced_malloc(size);
    return rp_hoard_malloc(size);
}

static inline void do_free(void *p)
{
    if (RP_UNLIKELY(rp_tracing())) {
        traced_free(p); /* before: another thread may get p at once */
        rp_hoard_free(p);
        return;
    }
    rp_hoard_free(p);
}

void *malloc(size_t size) { return do_malloc(size); }

void free(void *p) { do_free(p); }

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

/* ---- C++'s operator new and delete --------------------------------------------- */

/*
 * The C++ runtime's operator new calls malloc through the PLT, and its
 * operator delete calls free: two calls for each new and delete where
 * tcmalloc, jemalloc and mimalloc, which replace the operators, make one.
 * The program's own code calls operator new through its PLT either way.
 * So the replaceable operators are defined here, under their Itanium
 * C++ ABI names, with the malloc and free above as their bodies.
 *
 * Only success is served here.  When the allocator has no memory, the
 * call goes to the next definition in the process (the C++ runtime's,
 * dlsym(RTLD_NEXT)).  That one calls malloc (this library's) again in
 * the loop the standard asks for: the new-handler, then std::bad_alloc,
 * or NULL for the nothrow forms.  A throwing operator new with no C++
 * runtime behind it cannot throw from C: it reports and aborts.
 */

/* The next definition of the operator symbol sym, or NULL: the one after
 * this library in the global scope, else libstdc++'s, which a C program
 * may have loaded only as the dependency of a C++ library it opened with
 * RTLD_LOCAL (that library's operator new is still ours: the preloaded
 * definition comes first in every lookup). */
static RP_COLD void *next_operator(const char *sym)
{
    void *f = dlsym(RTLD_NEXT, sym);
    if (!f) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            f = dlsym(h, sym); /* its own scope: libstdc++ and its dependencies */
            dlclose(h); /* loaded already: the reference just taken */
        }
    }
    return f;
}

static RP_COLD __attribute__((noreturn)) void no_runtime(const char *sym, size_t size)
{
    fprintf(stderr, "libreap-malloc: %s(%zu): out of memory, and no C++ runtime to throw "
                    "std::bad_alloc\n", sym, size);
    abort();
}

typedef struct nothrow nothrow_t; /* std::nothrow_t, passed by reference */

/* One replaceable operator new: name, its parameter list, the arguments
 * that pass them on (the size first), the allocation, and whether it is a
 * nothrow form (with no runtime behind it, those return NULL; the others
 * abort, naming the size). */
#define CXX_FIRST(...) CXX_FIRST_(__VA_ARGS__, 0)
#define CXX_FIRST_(first, ...) first
#define CXX_NEW(name, params, args, call, nothrow)                          \
    EXPORT void *name params;                                              \
    static RP_COLD void *next_##name params                                \
    {                                                                      \
        __typeof__(&name) f = (__typeof__(&name))next_operator(#name);     \
        if (!f) {                                                          \
            if (nothrow)                                                   \
                return NULL;                                               \
            no_runtime(#name, CXX_FIRST args);                             \
        }                                                                  \
        return f args;                                                     \
    }                                                                      \
    void *name params                                                      \
    {                                                                      \
        void *p = call;                                                    \
        return RP_LIKELY(p != NULL) ? p : next_##name args;                \
    }

/* An alignment std::align_val_t may hold that the allocator cannot meet
 * (not a power of two) fails here, and the next definition decides. */
static inline void *new_aligned(size_t size, size_t align)
{
    return power_of_two(align) ? TRACED(rp_hoard_memalign(align, size), size) : NULL;
}

/* operator new(size_t), new[](size_t), and their nothrow forms */
CXX_NEW(_Znwm, (size_t size), (size), do_malloc(size), 0)
CXX_NEW(_Znam, (size_t size), (size), do_malloc(size), 0)
CXX_NEW(_ZnwmRKSt9nothrow_t, (size_t size, const nothrow_t *nt), (size, nt), do_malloc(size), 1)
CXX_NEW(_ZnamRKSt9nothrow_t, (size_t size, const nothrow_t *nt), (size, nt), do_malloc(size), 1)

/* C++17's over-aligned forms: operator new(size_t, std::align_val_t) */
CXX_NEW(_ZnwmSt11align_val_t, (size_t size, size_t align), (size, align),
        new_aligned(size, align), 0)
CXX_NEW(_ZnamSt11align_val_t, (size_t size, size_t align), (size, align),
        new_aligned(size, align), 0)
CXX_NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, (size_t size, size_t align, const nothrow_t *nt),
        (size, align, nt), new_aligned(size, align), 1)
CXX_NEW(_ZnamSt11align_val_tRKSt9nothrow_t, (size_t size, size_t align, const nothrow_t *nt),
        (size, align, nt), new_aligned(size, align), 1)

/* Every operator delete frees: the size and alignment the sized and
 * aligned forms pass are what the allocator finds from the address. */
#define CXX_DELETE(name, params)                                            \
    EXPORT void name params;                                               \
    void name params { do_free(p); }

CXX_DELETE(_ZdlPv, (void *p))
CXX_DELETE(_ZdaPv, (void *p))
CXX_DELETE(_ZdlPvm, (void *p, size_t size))
CXX_DELETE(_ZdaPvm, (void *p, size_t size))
CXX_DELETE(_ZdlPvRKSt9nothrow_t, (void *p, const nothrow_t *nt))
CXX_DELETE(_ZdaPvRKSt9nothrow_t, (void *p, const nothrow_t *nt))
CXX_DELETE(_ZdlPvSt11align_val_t, (void *p, size_t align))
CXX_DELETE(_ZdaPvSt11align_val_t, (void *p, size_t align))
CXX_DELETE(_ZdlPvmSt11align_val_t, (void *p, size_t size, size_t align))
CXX_DELETE(_ZdaPvmSt11align_val_t, (void *p, size_t size, size_t align))
CXX_DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, (void *p, size_t align, const nothrow_t *nt))
CXX_DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, (void *p, size_t align, const nothrow_t *nt))
