/*
 * base_mmap.c - the simplest base allocator: mmap, with a cache of chunks.
 *
 * Implements base.h with one mapping per block.  Reaps ask for the same
 * few sizes over and over (chunks doubling from 8 KiB, side chunks of a few
 * pages) and a cleared reap gives them back at once, so freed blocks of up
 * to 1 MiB are kept on a list per page count, and larger ones whose size is
 * a power of two on a list per power, up to rp_opt.base_cache bytes in all,
 * instead of being unmapped; everything else is unmapped at once.  This file stands in
 * until the Hoard-style allocator (libreap/src/base/) takes its place.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

#define PAGE 4096
#define PAGE_CLASSES 256                 /* exact sizes of 1 .. 256 pages */
#define CACHE_CLASSES (PAGE_CLASSES + 48) /* then powers of two, by log2 */

typedef struct cached {
    struct cached *next;
} cached_t;

static struct {
    pthread_mutex_t lock;
    cached_t *list[CACHE_CLASSES]; /* free blocks of size 1 << i */
    rp_base_stats_t st;            /* guarded by lock */
} base = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t page_round(size_t size) { return (size + PAGE - 1) & ~(size_t)(PAGE - 1); }

/* The cache class of a page-rounded size, or -1 when it is not cached. */
static int cache_class(size_t size)
{
    if (size <= PAGE_CLASSES * PAGE)
        return (int)(size / PAGE) - 1;
    if ((size & (size - 1)) != 0)
        return -1;
    return PAGE_CLASSES + __builtin_ctzl(size);
}

size_t rp_base_usable(size_t size) { return page_round(size); }

void *rp_base_alloc(size_t size)
{
    size = page_round(size);
    int cls = cache_class(size);
    pthread_mutex_lock(&base.lock);
    if (cls >= 0 && base.list[cls]) {
        cached_t *c = base.list[cls];
        base.list[cls] = c->next;
        base.st.cached -= size;
        base.st.in_use += size;
        pthread_mutex_unlock(&base.lock);
        return c;
    }
    pthread_mutex_unlock(&base.lock);

    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_lock(&base.lock);
    base.st.in_use += size;
    base.st.held += size;
    base.st.os_maps++;
    if (base.st.held > base.st.peak_held)
        base.st.peak_held = base.st.held;
    pthread_mutex_unlock(&base.lock);
    return p;
}

void rp_base_free(void *p, size_t size)
{
    size = page_round(size);
    int cls = cache_class(size);
    pthread_mutex_lock(&base.lock);
    base.st.in_use -= size;
    if (cls >= 0 && base.st.cached + size <= rp_opt.base_cache) {
        cached_t *c = p;
        c->next = base.list[cls];
        base.list[cls] = c;
        base.st.cached += size;
        pthread_mutex_unlock(&base.lock);
        return;
    }
    base.st.held -= size;
    base.st.os_unmaps++;
    base.st.returned += size;
    pthread_mutex_unlock(&base.lock);
    munmap(p, size);
}

void rp_base_trim(void)
{
    pthread_mutex_lock(&base.lock);
    for (int cls = 0; cls < CACHE_CLASSES; cls++) {
        while (base.list[cls]) {
            cached_t *c = base.list[cls];
            size_t size = cls < PAGE_CLASSES ? (size_t)(cls + 1) * PAGE : (size_t)1 << (cls - PAGE_CLASSES);
            base.list[cls] = c->next;
            base.st.cached -= size;
            base.st.held -= size;
            base.st.os_unmaps++;
            base.st.returned += size;
            munmap(c, size);
        }
    }
    pthread_mutex_unlock(&base.lock);
}

void rp_base_get_stats(rp_base_stats_t *out)
{
    pthread_mutex_lock(&base.lock);
    *out = base.st;
    pthread_mutex_unlock(&base.lock);
}
