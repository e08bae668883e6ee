/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * larson.c - Larson and Krishnan's server simulation: each thread owns a
 * set of slots holding blocks of random sizes and repeatedly frees a random
 * slot's block and allocates a new one.  After each round of operations a
 * thread hands its slots to a fresh thread (thread churn), which frees
 * blocks its predecessor allocated: cross-thread frees on every round.
 * Reports operations (malloc + free pairs) per second.
 */
#include "bench.h"

#define SLOTS 1000
#define MIN_SIZE 16
#define MAX_SIZE 128
#define ROUND_OPS 400000
#define ROUNDS 8

typedef struct lane {
    BENCH_LANE char **slot;
    uint64_t seed;
    long rounds_left;
} lane_t;

static lane_t lanes[BENCH_MAX_THREADS];

/* One round on one thread: frees and replaces random slots. */
static void *run_round(void *v)
{
    lane_t *l = v;
    for (long i = 0; i < ROUND_OPS; i++) {
        uint64_t r = bench_rand(&l->seed);
        size_t k = (size_t)(r % SLOTS);
        free(l->slot[k]);
        size_t size = MIN_SIZE + (size_t)((r >> 32) % (MAX_SIZE - MIN_SIZE + 1));
        l->slot[k] = malloc(size);
        l->slot[k][0] = 1;
    }
    return NULL;
}

/* A lane runs its rounds each on a new thread, which inherits the slots
 * (and frees the blocks) of the one before. */
static void *lane_main(void *v)
{
    lane_t *l = v;
    for (long r = 0; r < l->rounds_left; r++) {
        pthread_t t;
        if (pthread_create(&t, NULL, run_round, l) != 0) {
            perror("pthread_create");
            exit(1);
        }
        pthread_join(t, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    bench_args_t b = bench_parse(argc, argv, "larson", "server simulation with thread churn");
    long rounds = bench_work(&b, ROUNDS, false);
    for (int i = 0; i < b.threads; i++) {
        lanes[i].slot = malloc(sizeof(char *) * SLOTS);
        lanes[i].seed = 0x2545f4914f6cdd1dull * (uint64_t)(i + 1);
        for (int k = 0; k < SLOTS; k++)
            lanes[i].slot[k] = malloc(MIN_SIZE + (size_t)(bench_rand(&lanes[i].seed) % (MAX_SIZE - MIN_SIZE)));
        lanes[i].rounds_left = rounds;
    }
    bench_go(&b, lane_main, lanes, sizeof *lanes, (double)rounds * ROUND_OPS * b.threads);
    for (int i = 0; i < b.threads; i++) {
        for (int k = 0; k < SLOTS; k++)
            free(lanes[i].slot[k]);
        free(lanes[i].slot);
    }
    return 0;
}
