/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * hoard_stats.c - the base allocator's statistics, defined once.
 *
 * Mapping counters are atomics kept by os.c (rp_hd_cnt); heap figures are
 * read under each heap's lock, one heap at a time, so a snapshot is
 * consistent per heap but not across heaps.  rp_hoard_stats_print() writes
 * the same fields as text or JSON from one table, for mod_reap and tests,
 * and at exit when REAP_SHOW_STATS or REAP_STATS_FILE asks (both libraries).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "hoard.h"

void rp_hoard_get_stats(rp_hoard_stats_t *out)
{
    memset(out, 0, sizeof *out);
    rp_hd_init();
    for (uint32_t i = 0; i <= rp_hd_nheaps; i++) {
        rp_hd_heap_t *h = &rp_hd_heaps[i];
        pthread_mutex_lock(&h->lock);
        out->in_use += h->u;
        if (i < RP_HD_MAX_HEAPS + 1)
            out->sb_per_heap[i] = (uint32_t)h->nsb;
        if (i == 0)
            out->global_empty = (uint64_t)h->nempty * rp_hd_opt.sb_size;
        else
            out->heap_empty += (uint64_t)h->nempty * rp_hd_opt.sb_size;
        out->to_global += h->to_global;
        out->from_global += h->from_global;
        pthread_mutex_unlock(&h->lock);
    }
    out->nheaps = rp_hd_nheaps + 1;
    out->in_use += rp_hd_large_in_use();
    out->held = atomic_load(&rp_hd_cnt.mapped);
    out->peak_held = atomic_load(&rp_hd_cnt.peak_mapped);
    out->os_maps = atomic_load(&rp_hd_cnt.maps);
    out->os_unmaps = atomic_load(&rp_hd_cnt.unmaps);
    out->returned = atomic_load(&rp_hd_cnt.returned);
    out->large_cached = rp_hd_large_cached();
    out->release_ticks = atomic_load(&rp_hd_bg.ticks);
    out->release_trims = atomic_load(&rp_hd_bg.trims);
    out->release_returned = atomic_load(&rp_hd_bg.returned);
}

#define FIELDS(X)                                  \
    X(in_use, "bytes in use (incl. thread caches)") \
    X(held, "bytes mapped from the OS")            \
    X(peak_held, "peak bytes mapped")              \
    X(os_maps, "mmap calls")                       \
    X(os_unmaps, "munmap calls")                   \
    X(returned, "bytes returned to the OS")        \
    X(global_empty, "empty superblock bytes in the global heap") \
    X(heap_empty, "empty superblock bytes kept by the other heaps") \
    X(large_cached, "large mapping bytes cached")  \
    X(to_global, "superblocks moved to the global heap") \
    X(from_global, "superblocks taken from the global heap") \
    X(release_ticks, "decay periods the release thread ran") \
    X(release_trims, "whole trims the release thread made when quiet") \
    X(release_returned, "bytes the release thread gave back to the OS")

void rp_hoard_stats_print(const rp_hoard_stats_t *st, bool json,
                          void (*write)(void *arg, const char *s), void *arg)
{
    char buf[160];
    const char *sep = "{";
#define PRINT(name, what)                                                       \
    if (json)                                                                   \
        snprintf(buf, sizeof buf, "%s\"%s\":%" PRIu64, sep, #name, st->name);   \
    else                                                                        \
        snprintf(buf, sizeof buf, "%-14s %14" PRIu64 "  %s\n", #name, st->name, what); \
    write(arg, buf);                                                            \
    sep = ",";
    FIELDS(PRINT)
#undef PRINT
    write(arg, json ? ",\"sb_per_heap\":[" : "sb_per_heap   ");
    for (uint32_t i = 0; i < st->nheaps && i <= RP_HD_MAX_HEAPS; i++) {
        snprintf(buf, sizeof buf, json ? "%s%" PRIu32 : "%s%" PRIu32, i ? (json ? "," : " ") : "",
                 st->sb_per_heap[i]);
        write(arg, buf);
    }
    write(arg, json ? "]}" : "  (heap 0 is global)\n");
}

void rp_base_get_stats(rp_base_stats_t *out)
{
    rp_hoard_stats_t st;
    rp_hoard_get_stats(&st);
    *out = (rp_base_stats_t){0};
    out->in_use = st.in_use;
    out->held = st.held;
    out->peak_held = st.peak_held;
    out->cached = st.global_empty + st.heap_empty + st.large_cached;
    out->returned = st.returned;
    out->os_maps = st.os_maps;
    out->os_unmaps = st.os_unmaps;
    for (uint32_t i = 0; i < st.nheaps && i <= RP_HD_MAX_HEAPS; i++)
        out->superblocks += st.sb_per_heap[i];
    out->to_global = st.to_global;
    out->from_global = st.from_global;
    out->release_trims = st.release_trims;
    out->release_returned = st.release_returned;
}

/* ---- statistics at exit ------------------------------------------------------------ */

static void write_fd(void *arg, const char *text)
{
    (void)!write(*(int *)arg, text, strlen(text));
}

/* path with every %p replaced by the pid (and %% by %) into buf; false
 * when it does not fit. */
static bool expand_path(const char *path, char *buf, size_t len)
{
    char pid[24], *d = pid + sizeof pid;
    *--d = '\0';
    for (unsigned long v = (unsigned long)getpid();; v /= 10) {
        *--d = (char)('0' + v % 10);
        if (v < 10)
            break;
    }
    size_t at = 0;
    for (const char *s = path; *s; s++) {
        const char *add = s[0] == '%' && s[1] == 'p' ? d : s[0] == '%' && s[1] == '%' ? "%" : NULL;
        size_t n = add ? strlen(add) : 1;
        if (at + n >= len)
            return false;
        memcpy(buf + at, add ? add : s, n);
        at += n;
        s += add != NULL;
    }
    buf[at] = '\0';
    return true;
}

/* The descriptor the statistics go to: REAP_STATS_FILE (appended to,
 * created 0644) or stderr; -1, said on stderr, when the file cannot be
 * opened. */
static int stats_fd(const char *file)
{
    char path[4096];
    if (!file || !*file)
        return 2;
    int fd = -1;
    if (expand_path(file, path, sizeof path))
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        static const char msg[] = RP_HD_NAME ": cannot open REAP_STATS_FILE; statistics not written\n";
        (void)!write(2, msg, sizeof msg - 1);
    }
    return fd;
}

/* REAP_SHOW_STATS=1 (text) or =json prints the allocator's statistics
 * when the program exits (libreap-malloc.so, and libreap.so: the
 * reap-backed APR's programs), on stderr or, with REAP_STATS_FILE=path
 * (which alone means text), into that file: programs such as sort close
 * stderr before they exit. */
__attribute__((destructor)) static void show_stats(void)
{
    const char *how = getenv("REAP_SHOW_STATS"), *file = getenv("REAP_STATS_FILE");
    if (!how || !*how)
        how = file && *file ? "1" : "0";
    if (strcmp(how, "0") == 0 || !atomic_load(&rp_hd_once.ready))
        return;
    int fd = stats_fd(file);
    if (fd < 0)
        return;
    rp_hoard_stats_t st;
    rp_hoard_get_stats(&st);
    bool json = strcmp(how, "json") == 0;
    write_fd(&fd, json ? "" : RP_HD_NAME " statistics:\n");
    rp_hoard_stats_print(&st, json, write_fd, &fd);
    if (json)
        write_fd(&fd, "\n");
    if (fd != 2)
        close(fd);
}
