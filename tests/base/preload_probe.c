/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * preload_probe.c - exercises every C allocation function the way programs
 * do, run by preload.sh with and without LD_PRELOAD=libreap-malloc.so:
 * contents survive realloc, alignments hold, errors are the POSIX ones,
 * threads and fork work.  With REAP_PROBE_EXPECT=reap it also checks that
 * malloc really resolves to libreap-malloc.so; with REAP_CXX_PLUGIN=PATH,
 * that a C++ library it opens with RTLD_LOCAL still gets std::bad_alloc.
 * Prints "probe ok".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "probe: %s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static void check_realloc(void)
{
    char *p = NULL;
    size_t old = 0;
    for (size_t n = 2; n < (4u << 20); n = n * 3 / 2 + 1) {
        char *q = realloc(p, n);
        CHECK(q != NULL);
        if (p) /* the old contents survived */
            CHECK(q[0] == 'a' && q[old - 1] == 'b');
        memset(q, 'b', n);
        q[0] = 'a';
        p = q;
        old = n;
    }
    p = realloc(p, 10); /* shrink */
    CHECK(p && p[0] == 'a' && p[9] == 'b');
    free(p);
}

static void check_align(void)
{
    void *p = NULL;
    CHECK(posix_memalign(&p, 3, 10) == EINVAL);
    CHECK(posix_memalign(&p, 4, 10) == EINVAL); /* not a multiple of sizeof(void *) */
    for (size_t a = 8; a <= (2u << 20); a *= 2) {
        CHECK(posix_memalign(&p, a, 100) == 0 && (uintptr_t)p % a == 0);
        free(p);
        p = aligned_alloc(a, 3 * a);
        CHECK(p && (uintptr_t)p % a == 0);
        free(p);
        p = memalign(a, 7);
        CHECK(p && (uintptr_t)p % a == 0 && malloc_usable_size(p) >= 7);
        free(p);
    }
    long page = sysconf(_SC_PAGESIZE);
    p = valloc(1);
    CHECK(p && (uintptr_t)p % (uintptr_t)page == 0);
    free(p);
    p = pvalloc(1);
    CHECK(p && (uintptr_t)p % (uintptr_t)page == 0 && malloc_usable_size(p) >= (size_t)page);
    free(p);
}

static void check_calloc(void)
{
    volatile size_t huge = SIZE_MAX / 2; /* volatile: keep gcc from warning */
    errno = 0;
    CHECK(calloc(huge, 4) == NULL && errno == ENOMEM);
    for (size_t n = 1; n < (1u << 20); n *= 5) {
        unsigned char *p = malloc(n);
        memset(p, 0xff, n);
        free(p);
        p = calloc(n, 1);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += p[i] != 0;
        CHECK(bad == 0);
        free(p);
    }
    errno = 0;
    CHECK(malloc(huge * 2 - 4096) == NULL && errno == ENOMEM);
    CHECK(malloc_usable_size(NULL) == 0);
    free(NULL);
}

static void *thread_main(void *arg)
{
    void **box = arg;
    for (int i = 0; i < 10000; i++) {
        void *p = malloc((size_t)(i % 700) + 1);
        /* two threads share a box: swap atomically, or both could free
         * the same object (a double free in the test, not the allocator) */
        free(__atomic_exchange_n(box, p, __ATOMIC_ACQ_REL)); /* often another thread's */
    }
    return NULL;
}

static void check_threads_and_fork(void)
{
    void *boxes[4] = {0};
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, thread_main, &boxes[i % 2]);
    pid_t pid = fork(); /* while other threads allocate */
    if (pid == 0) {
        void *p = malloc(1000);
        free(p);
        _exit(p ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    free(boxes[0]);
    free(boxes[1]);
}

/* A C++ library opened with RTLD_LOCAL (REAP_CXX_PLUGIN, cxx_plugin.cc):
 * the C++ runtime is in no global scope, and an operator new that fails
 * must still throw std::bad_alloc, which the library catches. */
static void check_cxx_plugin(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    if (!h)
        return;
    int (*bad_alloc)(void) = (int (*)(void))(uintptr_t)dlsym(h, "cxx_plugin_bad_alloc");
    CHECK(bad_alloc != NULL && bad_alloc() == 1);
    dlclose(h);
}

int main(void)
{
    const char *expect = getenv("REAP_PROBE_EXPECT");
    if (expect && strcmp(expect, "reap") == 0) {
        Dl_info info;
        CHECK(dladdr((void *)(uintptr_t)dlsym(RTLD_DEFAULT, "malloc"), &info) && info.dli_fname &&
              strstr(info.dli_fname, "libreap-malloc") != NULL);
    }
    check_realloc();
    check_align();
    check_calloc();
    check_threads_and_fork();
    if (getenv("REAP_CXX_PLUGIN"))
        check_cxx_plugin(getenv("REAP_CXX_PLUGIN"));
    if (failures)
        return 1;
    puts("probe ok");
    return 0;
}
