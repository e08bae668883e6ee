/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * env.h - reading REAP_* tunables from the environment.
 *
 * Both option tables (options.c for reaps, base/hoard_options.c for the base
 * allocator) describe each tunable once, with its range, and read them all
 * with rp_env_read().  It does not allocate, so it is safe inside the first
 * malloc of a program.
 */
#ifndef RP_ENV_H
#define RP_ENV_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rp_env_option {
    const char *env; /* REAP_* variable */
    size_t *value;   /* holds the default; overwritten by a valid setting */
    size_t min, max; /* a setting outside keeps the default (and is reported) */
    bool pow2;       /* only a power of two is valid */
    const char *const *words; /* NULL for a size; else the NULL-ended list of
                               * the words the variable may be set to, and
                               * *value becomes the index of the one set */
} rp_env_option_t;

/* Sizes take k, m or g suffixes ("64k"); a malformed or out-of-range
 * value, one that is not a power of two where the option asks for it, or
 * a word not in its list, keeps the default and is reported on stderr
 * (one line naming the variable). */
void rp_env_read(const rp_env_option_t *opts, size_t n);

#endif /* RP_ENV_H */
