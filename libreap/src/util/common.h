/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * common.h - what every file of libreap needs below both of its layers:
 * the build's configuration, branch hints and internal assertions.
 *
 * libreap is two layers over this folder: the reaps (libreap/src/) over
 * the Hoard-style base allocator (libreap/src/base/).  Both include this
 * header, env.h (tunables from the environment), annotate.h (ASan and
 * Valgrind), list.h (doubly linked lists) and misuse.h (one-line misuse
 * reports, REAP_MISUSE); nothing here calls up into either layer.
 *
 * RP_ASSERT(cond) states an invariant the comments describe.  Built with
 * configure --enable-debug (REAP_DEBUG) a false condition writes
 * "file:line: assertion failed: cond" to stderr with write(2), which does
 * not allocate, and aborts.  Otherwise it compiles to nothing: the
 * condition is type-checked (inside sizeof) but never evaluated, so the
 * hot paths are the same code with or without their assertions.
 */
#ifndef RP_COMMON_H
#define RP_COMMON_H

#ifdef HAVE_CONFIG_H
#include "config.h" /* REAP_DEBUG, REAP_VALGRIND */
#endif
#include <stdbool.h>

#ifdef REAP_DEBUG
static const bool config_debug = true;
#else
static const bool config_debug = false;
#endif

#define RP_LIKELY(x) __builtin_expect(!!(x), 1)
#define RP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RP_NOINLINE __attribute__((noinline))
#define RP_ALWAYS_INLINE inline __attribute__((always_inline))
#define RP_COLD __attribute__((cold, noinline))
/* A hot entry point starts a cache line: where the linker happened to put
 * reap_malloc() moved reapbench's region rows by 9% with the same
 * instructions (docs/benchmarks.md, "Where the code lies"). */
#define RP_HOT_ALIGN __attribute__((aligned(64)))
/* On the declaration of a global that only libreap's own objects read:
 * -fvisibility=hidden hides definitions, but an extern declaration
 * without this is read through the GOT (a load of its address, then of
 * it), in case another module defines it. */
#define RP_INTERNAL __attribute__((visibility("hidden")))

#ifdef REAP_DEBUG
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

RP_COLD __attribute__((noreturn, unused)) static void rp_assert_fail(const char *file, int line,
                                                                      const char *cond)
{
    char num[12], *p = num + sizeof num;
    unsigned n = (unsigned)line;
    do
        *--p = (char)('0' + n % 10);
    while (n /= 10);
    const char *part[] = {file, ":", p, ": assertion failed: ", cond, "\n"};
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++) {
        size_t len = part[i] == p ? (size_t)(num + sizeof num - p) : strlen(part[i]);
        (void)!write(2, part[i], len);
    }
    abort();
}

#define RP_ASSERT(cond) (RP_LIKELY(cond) ? (void)0 : rp_assert_fail(__FILE__, __LINE__, #cond))
#else
#define RP_ASSERT(cond) ((void)sizeof(!(cond)))
#endif

#endif /* RP_COMMON_H */
