/*
 * stats.c - a reap's figures, for one reap or a subtree, as text or JSON.
 *
 * The fields are defined once, by REAP_STATS_FIELDS in reap.h; the struct,
 * the summing over a subtree and both printers expand that one list.
 * Peaks of live bytes are kept lazily (reap.c raises them just before live
 * bytes fall), so a snapshot takes the larger of the stored peak and now.
 */
#include <inttypes.h>
#include <stdio.h>

#include "internal.h"

void reap_get_stats(const reap_t *r, reap_stats_t *out)
{
    if (RP_UNLIKELY(r == NULL))
        rp_misuse("reap_get_stats of a NULL reap", r, NULL);
    out->reaps = 1;
    out->live_bytes = r->live_bytes;
    out->live_objects = r->allocs - r->frees - r->cleared_objects;
    out->peak_live_bytes = r->peak_live_bytes > r->live_bytes ? r->peak_live_bytes : r->live_bytes;
    out->footprint = r->footprint;
    out->peak_footprint = r->peak_footprint;
    out->heap_free_bytes = r->heap_free_bytes + r->quick_bytes;
    out->allocs = r->allocs;
    out->frees = r->frees;
    out->clears = r->clears;
    out->limit_failures = r->limit_failures;
}

static void add_tree(reap_t *r, reap_stats_t *sum)
{
    reap_stats_t one;
    reap_get_stats(r, &one);
#define ADD_(name, doc) sum->name += one.name;
    REAP_STATS_FIELDS(ADD_)
#undef ADD_
    pthread_mutex_lock(&r->lock);
    for (reap_t *c = r->children; c; c = c->next_sibling)
        add_tree(c, sum);
    pthread_mutex_unlock(&r->lock);
}

void reap_get_tree_stats(reap_t *r, reap_stats_t *out)
{
    if (RP_UNLIKELY(r == NULL))
        rp_misuse("reap_get_tree_stats of a NULL reap", r, NULL);
    *out = (reap_stats_t){0};
    add_tree(r, out);
    if (r->acct == r)
        out->peak_footprint = atomic_load(&r->tree_peak);
}

static void write_stderr(void *arg, const char *text)
{
    (void)arg;
    fputs(text, stderr);
}

void reap_stats_print(const reap_stats_t *s, int json, reap_write_fn write, void *arg)
{
    char line[128];
    const char *sep = "{";
    if (!write)
        write = write_stderr;
#define PRINT_(name, doc)                                                                  \
    if (json)                                                                              \
        snprintf(line, sizeof line, "%s\"%s\": %" PRIu64, sep, #name, s->name);            \
    else                                                                                   \
        snprintf(line, sizeof line, "%s: %" PRIu64 "\n", #name, s->name);                  \
    sep = ", ";                                                                            \
    write(arg, line);
    REAP_STATS_FIELDS(PRINT_)
#undef PRINT_
    if (json)
        write(arg, "}\n");
}
