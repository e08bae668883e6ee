/*
 * env.c - reading REAP_* tunables from the environment (see env.h).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "env.h"

/* Parse "123", "64k", "1m"; false when it is not such a number. */
static bool parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return false;
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end != '\0')
        return false;
    *out = (size_t)v;
    return true;
}

void rp_env_read(const rp_env_option_t *opts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = getenv(opts[i].env);
        size_t v;
        if (s && parse_size(s, &v) && v >= opts[i].min && v <= opts[i].max)
            *opts[i].value = v;
    }
}
