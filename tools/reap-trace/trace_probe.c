/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * trace_probe.c - a small program for record.sh to trace: two threads,
 * each with a tagged pool and short-lived subpools, allocating, freeing
 * half of what it allocates, reallocating, clearing and destroying.  Its
 * frees make a region hold more than a reap, which record.sh checks.
 * `trace_probe nodes' instead makes one pool and one subpool with
 * allocations whose footprint in APR's pools record.sh works out from
 * APR's node rules, to check reap-trace's apr-pool row.
 * Exits 0 unless an allocation fails.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "reap.h"

#define ROUNDS 40
#define OBJECTS 200

static void *worker(void *arg)
{
    uintptr_t id = (uintptr_t)arg, failed = 0;
    reap_t *pool = reap_create(NULL);
    reap_trace_tag(pool, id ? "worker-b" : "worker-a");
    for (int round = 0; round < ROUNDS && pool; round++) {
        reap_t *sub = reap_create(pool);
        reap_trace_tag(sub, "request");
        void *obj[OBJECTS];
        for (int i = 0; i < OBJECTS; i++) {
            obj[i] = reap_malloc(i % 2 ? sub : pool, 16 + (size_t)(i * 37 + round) % 700);
            failed |= obj[i] == NULL;
            if (obj[i] && i % 2 == 0 && i % 4 == 0) /* pool objects: free half */
                reap_free(pool, obj[i]);
        }
        void *grown = reap_realloc(sub, obj[1], 2000);
        failed |= grown == NULL;
        reap_destroy(sub);
        if (round % 10 == 9)
            reap_clear(pool);
    }
    reap_destroy(pool);
    return (void *)failed;
}

/* record.sh's figure: 78 objects of 100 bytes, 10,000 bytes, and a
 * subpool with 100 bytes. */
static int nodes(void)
{
    reap_t *pool = reap_create(NULL), *sub = pool ? reap_create(pool) : NULL;
    int failed = sub == NULL;
    for (int i = 0; i < 78 && !failed; i++)
        failed |= reap_malloc(pool, 100) == NULL;
    if (!failed)
        failed = reap_malloc(pool, 10000) == NULL || reap_malloc(sub, 100) == NULL;
    if (pool)
        reap_destroy(pool);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "nodes") == 0)
        return nodes();
    pthread_t t[2];
    void *failed[2] = {(void *)1, (void *)1};
    for (uintptr_t i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], &failed[i]);
    return failed[0] || failed[1];
}
