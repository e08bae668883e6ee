/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * misuse_probe.c - one misuse of malloc per run, for tests/base/misuse.sh,
 * which runs it under LD_PRELOAD=libreap-malloc.so: `misuse_probe CASE`.
 *
 * Before the misuse it prints the pointer it will pass ("ptr=%p"; for an
 * interior pointer also "block=%p") on stdout and flushes, so the script can build the exact report it
 * expects.  If the process survives (REAP_MISUSE=report), it checks the
 * allocator still hands out distinct blocks and prints "ok".
 * The frees of pointers the allocator never handed out (stack, alloca,
 * static, wild, far, unborn, inside a large block) must be reported, not
 * fault inside the allocator.  `misuse_probe zero` frees a malloc(0)
 * twice, which is no misuse; with PROBE_TOUCH it then writes one, which
 * faults.  `misuse_probe close-stderr` does nothing wrong: it closes stderr and
 * exits, as sort does, for REAP_STATS_FILE.  Built without libreap: the
 * allocator comes from LD_PRELOAD only.
 */
#include <alloca.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *volatile sink; /* keeps the compiler from seeing the misuse */
static char static_buf[64];

static void announce(const void *p)
{
    printf("ptr=%p\n", p);
    fflush(stdout);
}

/* The allocator still works: 1000 blocks of one size, all distinct and
 * holding what was written. */
static int still_sound(size_t size)
{
    enum { N = 1000 };
    unsigned char *b[N];
    for (int i = 0; i < N; i++) {
        b[i] = malloc(size);
        if (!b[i])
            return 0;
        memset(b[i], i & 0xff, size);
    }
    for (int i = 0; i < N; i++)
        for (size_t k = 0; k < size; k++)
            if (b[i][k] != (i & 0xff)) {
                printf("block %d overwritten\n", i);
                return 0;
            }
    for (int i = 0; i < N; i++)
        free(b[i]);
    return 1;
}

static int by_address(const void *x, const void *y)
{
    const char *a = *(char *const *)x, *b = *(char *const *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    size_t size = 40;
    char *p = malloc(size);
    memset(p, 7, size);
    sink = p;
    if (strcmp(c, "double-free") == 0) {
        free(p);
        announce(p);
        free(sink);
        char *a = malloc(size), *b = malloc(size); /* glibc-style bug: the same block twice */
        if (a == b) {
            printf("the block was handed out twice\n");
            return 1;
        }
    } else if (strcmp(c, "interior") == 0) {
        printf("block=%p\n", (void *)p);
        announce(p + 16);
        free((char *)sink + 16);
    } else if (strcmp(c, "foreign") == 0) {
        /* memory the allocator never saw, a superblock's length in */
        char *m = mmap(NULL, 1 << 21, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        char *q = (char *)(((unsigned long)m + (1 << 20)) & ~((1ul << 20) - 1)) + 4096;
        announce(q);
        sink = q;
        free(sink);
    } else if (strcmp(c, "realloc-freed") == 0) {
        free(p);
        announce(p);
        if (realloc(sink, 100) != NULL) {
            printf("realloc of a freed pointer returned a block\n");
            return 1;
        }
    } else if (strcmp(c, "parked-double-free") == 0) {
        /* A block a trim parked: off the free list, its pages (and key)
         * given back whole.  Of four blocks the highest stays out; the
         * next one down, whose first page it shares with a free block
         * below, is freed again. */
        size = 8000;
        char *q[4], *keep, *b;
        for (int i = 0; i < 4; i++)
            memset(q[i] = malloc(size), i + 1, size);
        qsort(q, 4, sizeof q[0], by_address);
        keep = q[3], b = q[2];
        for (int i = 0; i < 3; i++)
            free(q[i]);
        malloc_trim(0);
        announce(b);
        sink = b;
        free(sink);
        char *x = malloc(size), *y = malloc(size), *z = malloc(size);
        if (x == y || y == z || x == z || x == keep || y == keep || z == keep) {
            printf("a parked block was handed out twice\n");
            return 1;
        }
    } else if (strcmp(c, "large-double-free") == 0) {
        size = 1 << 20;
        char *l = malloc(size);
        free(l);
        announce(l);
        sink = l;
        free(sink);
        char *a = malloc(size), *b = malloc(size);
        if (a == b) {
            printf("the large block was handed out twice\n");
            return 1;
        }
    } else if (strcmp(c, "stack") == 0 || strcmp(c, "alloca") == 0) {
        char local[64];
        char *q = strcmp(c, "stack") == 0 ? local : alloca(100);
        announce(q);
        sink = q;
        free(sink);
    } else if (strcmp(c, "static") == 0) {
        announce(static_buf);
        sink = static_buf;
        free(sink);
    } else if (strcmp(c, "wild") == 0) {
        announce((void *)1);
        sink = (void *)1;
        free(sink);
    } else if (strcmp(c, "far") == 0) {
        char *q = p + (1ul << 30); /* 1 GiB past a block: nobody's, or unmapped */
        announce(q);
        sink = q;
        free(sink);
    } else if (strcmp(c, "unborn") == 0) {
        /* a block start of p's superblock that nobody was handed: past
         * what the first refills carved (p is among the superblock's
         * first blocks, well inside its 64 KiB) */
        char *q = p + 16384 / 48 * 48; /* 40 bytes are a block of 48 */
        announce(q);
        sink = q;
        free(sink);
    } else if (strcmp(c, "large-interior") == 0 || strcmp(c, "large-far-interior") == 0) {
        char *l = malloc(1 << 20);
        printf("block=%p\n", (void *)l);
        char *q = l + (strcmp(c, "large-interior") == 0 ? 4096 : 700000);
        announce(q);
        sink = q;
        free(sink);
    } else if (strcmp(c, "large-underflow") == 0) {
        char *l = malloc(1 << 20);
        announce(l);
        ((volatile char *)l)[-1] ^= 'A';
        sink = l;
        free(sink);
    } else if (strcmp(c, "zero") == 0) {
        /* malloc(0): freed quietly, twice even; a write faults */
        char *z = malloc(0);
        announce(z);
        sink = z;
        free(sink);
        free(sink);
        if (malloc_usable_size(z) != 0 || realloc(z, 10) == NULL) {
            printf("malloc(0) is not a zero-size block\n");
            return 1;
        }
        if (getenv("PROBE_TOUCH"))
            *(volatile char *)malloc(0) = 1;
    } else if (strcmp(c, "close-stderr") == 0) {
        for (int i = 0; i < 100; i++)
            sink = malloc(100);
        printf("pid=%ld\n", (long)getpid());
        fflush(stdout);
        close(2);
        return 0;
    } else {
        fprintf(stderr, "usage: misuse_probe double-free|interior|foreign|realloc-freed|large-double-free|"
                        "parked-double-free|stack|alloca|static|wild|far|unborn|large-interior|"
                        "large-far-interior|large-underflow|zero|close-stderr\n");
        return 2;
    }
    if (!still_sound(40) || !still_sound(size))
        return 1;
    printf("ok\n");
    return 0;
}
