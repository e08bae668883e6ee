/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * lock.c - the slow paths of lock.h's lock: sleeping on the word and
 * waking a sleeper, through the futex system call.  The fast paths are
 * inline in lock.h; these run only when two threads meet on a reap's
 * child list.
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lock.h"

/* The contended paths.  A thread that finds the lock taken marks it
 * "held, with waiters" and sleeps until the word is no longer 2; whoever
 * takes the lock after a sleep keeps it marked 2, as another thread may
 * still sleep on it (a spare wake-up costs a system call, a lost one a
 * hang).  Woken on memory a reap no longer uses (the lock's holder unlocked
 * and destroyed the reap in between), the futex calls fail harmlessly. */
void rp_lock_sleep(rp_lock_t *l)
{
    while (atomic_exchange_explicit(&l->word, 2, memory_order_acquire) != 0)
        syscall(SYS_futex, &l->word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void rp_lock_wake(rp_lock_t *l)
{
    syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
