/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * env.c - reading REAP_* tunables from the environment (see env.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "env.h"

/* Parses "123", "64k", "1m", "2g"; false when it is not such a number or
 * does not fit in a size_t. */
static bool parse_size(const char *s, size_t *out)
{
    char *end;
    if (*s < '0' || *s > '9') /* strtoull would take "-1" and " 1" */
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return false;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10, end++;
    else if (*end == 'm' || *end == 'M')
        shift = 20, end++;
    else if (*end == 'g' || *end == 'G')
        shift = 30, end++;
    if (*end != '\0' || v > (SIZE_MAX >> shift))
        return false;
    *out = (size_t)v << shift;
    return true;
}

/* Why setting o to s (read as v when parsed) is not valid, or NULL. */
static const char *invalid(const rp_env_option_t *o, bool parsed, size_t v, char *buf, size_t len)
{
    if (!parsed)
        return "not a size (123, 64k, 1m, 2g)";
    if (v < o->min || v > o->max) {
        snprintf(buf, len, "not in %zu..%zu", o->min, o->max);
        return buf;
    }
    if (o->pow2 && (v & (v - 1)))
        return "not a power of two";
    return NULL;
}

/* One line on stderr, without allocating (this may run inside the first
 * malloc of a program). */
static void warn_ignored(const rp_env_option_t *o, const char *s, const char *why)
{
    char msg[256];
    int n = snprintf(msg, sizeof msg, "reap: ignoring %s=%.40s: %s\n", o->env, s, why);
    if (n > 0)
        (void)!write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

void rp_env_read(const rp_env_option_t *opts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = getenv(opts[i].env);
        if (!s)
            continue;
        size_t v = 0;
        char buf[64];
        bool parsed = parse_size(s, &v);
        const char *why = invalid(&opts[i], parsed, v, buf, sizeof buf);
        if (why)
            warn_ignored(&opts[i], s, why);
        else
            *opts[i].value = v;
    }
}
