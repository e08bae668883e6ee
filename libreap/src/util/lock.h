/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * lock.h - the lock of a reap's child list: one 32-bit word and a futex.
 *
 * A reap's lock is taken only to link or unlink a child and by walks, so
 * it is almost never contended; what it costs is its uncontended path,
 * paid twice for every reap created and destroyed (httpd: once or twice a
 * request).  pthread_mutex_init, lock and unlock cost about 150
 * instructions per create/destroy; this costs one store and two atomic
 * instructions.
 *
 * The word is 0 (free), 1 (held) or 2 (held, and a thread may be asleep
 * on it): the three-state mutex of Drepper's "Futexes Are Tricky" (2011).
 * A waiter sets 2 before it sleeps, so an unlock that swaps out a 2 knows
 * it must wake one.  Acquire on taking and release on leaving order the
 * list updates made under the lock, for the compiler, the CPU and
 * ThreadSanitizer alike.
 */
#ifndef RP_LOCK_H
#define RP_LOCK_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct rp_lock {
    _Atomic uint32_t word;
} rp_lock_t;

void rp_lock_sleep(rp_lock_t *l); /* lock.c: the contended paths */
void rp_lock_wake(rp_lock_t *l);

static inline void rp_lock_init(rp_lock_t *l)
{
    atomic_store_explicit(&l->word, 0, memory_order_relaxed);
}

static inline void rp_lock(rp_lock_t *l)
{
    uint32_t free_word = 0;

    if (__builtin_expect(!atomic_compare_exchange_strong_explicit(
                             &l->word, &free_word, 1, memory_order_acquire, memory_order_relaxed),
                         0))
        rp_lock_sleep(l);
}

static inline void rp_unlock(rp_lock_t *l)
{
    if (__builtin_expect(atomic_exchange_explicit(&l->word, 0, memory_order_release) == 2, 0))
        rp_lock_wake(l);
}

#endif /* RP_LOCK_H */
