/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * dlopen_probe.c - loads libreap.so with dlopen, as httpd loads a module,
 * and runs reaps from several threads at once: the base allocator's
 * thread-local state must work in a module loaded after startup (no
 * initial-exec TLS).  Run by dlopen.sh with the library's path; prints
 * "dlopen ok".
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef void *(*create_fn)(void *parent);
typedef void *(*malloc_fn)(void *reap, size_t size);
typedef void (*free_fn)(void *reap, void *p);
typedef void (*destroy_fn)(void *reap);

static create_fn create;
static malloc_fn rmalloc;
static free_fn rfree;
static destroy_fn destroy;

static void *worker(void *arg)
{
    long bad = 0;
    for (int i = 0; i < 300; i++) {
        void *r = create(NULL);
        if (!r)
            return (void *)1;
        for (int j = 0; j < 200; j++) {
            char *p = rmalloc(r, (size_t)(16 + (i * 31 + j * 17) % 20000));
            if (!p) {
                bad++;
                break;
            }
            memset(p, j, 16);
            if (j % 3 == 0)
                rfree(r, p);
        }
        destroy(r);
    }
    return (void *)bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s path/to/libreap.so\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen_probe: %s\n", dlerror());
        return 1;
    }
    create = (create_fn)dlsym(lib, "reap_create");
    rmalloc = (malloc_fn)dlsym(lib, "reap_malloc");
    rfree = (free_fn)dlsym(lib, "reap_free");
    destroy = (destroy_fn)dlsym(lib, "reap_destroy");
    if (!create || !rmalloc || !rfree || !destroy) {
        fprintf(stderr, "dlopen_probe: missing symbols in %s\n", argv[1]);
        return 1;
    }
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    long bad = 0;
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (long)r;
    }
    if (bad) {
        fprintf(stderr, "dlopen_probe: %ld failures\n", bad);
        return 1;
    }
    puts("dlopen ok");
    return 0;
}
