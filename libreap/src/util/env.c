/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * env.c - reading REAP_* tunables from the environment (see env.h): sizes,
 * and words from a list (REAP_MISUSE=abort|report).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The index of s in words (NULL-ended); false when it is not there. */
static bool parse_word(const char *const *words, const char *s, size_t *out)
{
    for (size_t i = 0; words[i]; i++) {
        if (strcmp(words[i], s) == 0) {
            *out = i;
            return true;
        }
    }
    return false;
}

/* "not abort or report": the words of o, for the report. */
static const char *not_a_word(const rp_env_option_t *o, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "not");
    for (size_t i = 0; o->words[i] && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i == 0 ? " " : o->words[i + 1] ? ", " : " or ",
                               o->words[i]);
    return buf;
}

void rp_env_read(const rp_env_option_t *opts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = getenv(opts[i].env);
        if (!s)
            continue;
        size_t v = 0;
        char buf[64];
        const char *why;
        if (opts[i].words) {
            why = parse_word(opts[i].words, s, &v) ? NULL : not_a_word(&opts[i], buf, sizeof buf);
        } else {
            bool parsed = parse_size(s, &v);
            why = invalid(&opts[i], parsed, v, buf, sizeof buf);
        }
        if (why)
            warn_ignored(&opts[i], s, why);
        else
            *opts[i].value = v;
    }
}
