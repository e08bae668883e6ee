/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * mod_reap_status.c - memory figures of every httpd child, kept in shared
 * memory, and the pages that show them: a section (and ?auto lines) in
 * mod_status's /server-status, and the reap-status handler (JSON or HTML).
 *
 * The parent creates one anonymous shared segment per configuration
 * generation at post_config, with a slot per possible child (the MPM's
 * ServerLimit); children inherit it through fork and claim a free slot at
 * child_init.  A slot holds two kinds of figures:
 *  - counters of finished requests (count, frees, allocations, peaks, limit
 *    stops), added atomically by the child's threads as requests end;
 *  - a snapshot: the reap figures of the child's whole pool tree (from APR's
 *    root pool down) and the live pools with the largest footprint, taken at
 *    most every MR_REFRESH_INTERVAL as requests end, and always by the child
 *    answering a status request.  A sequence lock lets other processes copy
 *    it without tearing.
 * Pools for the top list come from one of two sources, and the JSON says
 * which ("pools_source"):
 *  - "walk": every pool of the child, when the reap-backed APR has
 *    apr_pool_walk() and apr_pool_tag_get() (APR_POOL_HAS_WALK) and
 *    ReapPoolWalk is On.  The snapshot walks the tree from APR's global
 *    pool, visiting at most MR_WALK_MAX pools ("pools_seen", and
 *    "pools_capped" when it stopped there), and names each pool by its APR
 *    tag.  An untagged pool is named after its nearest tagged ancestor
 *    followed by "/sub" (an untagged subpool of a request pool shows as
 *    "request/sub"), or "(untagged)" when no ancestor has a tag.  While the
 *    walk is in a pool's subtree, threads creating or destroying subpools of
 *    that pool's ancestors wait, so the callback only copies a few figures;
 *    figures of pools other threads are using are a moment old.
 *  - "hooks": otherwise (ReapPoolWalk Off, or a reap-backed APR without
 *    apr_pool_walk), the pools mod_reap meets through hooks (pglobal,
 *    pconf, pchild, each connection's "transaction" pool and each "request"
 *    pool), tracked until their pre-cleanups run, named with the tags httpd
 *    gives them.
 * On a stock APR there are no reaps, so no figures and no pools ("none").
 * The snapshot also reads what the APR allocators keep on their free lists
 * (apr_allocator_lists_get(), "allocator_lists"): that memory is in the
 * base allocator's in_use but in no pool.  The child's resident memory
 * ("rss": VmRSS and RssAnon, on either APR), to set what the pools and the
 * base allocator account for against what the child costs the machine, is
 * not in the snapshot: the child that answers a status request reads every
 * child's /proc/PID/status itself (read_slot), since a child busy with one
 * long request, or idle on a stock APR, takes no snapshot, and its RSS is
 * what an operator looks for then.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "http_protocol.h"
#include "ap_mpm.h"
#include "mod_status.h"
#include "apr_lib.h"
#include "apr_shm.h"
#include "apr_strings.h"
#include "apr_thread_mutex.h"

#include "mod_reap_private.h"

extern module AP_MODULE_DECLARE_DATA reap_module;

/* ---- shared memory layout -------------------------------------------------------- */

typedef struct mr_pool_fig {
    char tag[MR_TAG_MAX];       /* NUL-terminated, cut to fit */
    uint64_t footprint, peak_footprint, live_bytes;
} mr_pool_fig;

/* Where a snapshot's top list came from (see the header comment). */
typedef enum mr_pools_source {
    MR_POOLS_NONE = 0, MR_POOLS_HOOKS, MR_POOLS_WALK
} mr_pools_source;

static const char *const mr_pools_source_name[] = {"none", "hooks", "walk"};

typedef struct mr_snapshot {
    apr_time_t taken;           /* 0: not taken yet */
    reap_stats_t process;       /* the child's whole pool tree */
    uint32_t source;            /* mr_pools_source */
    uint32_t seen;              /* pools looked at for the top list */
    uint32_t capped;            /* 1: the walk stopped at MR_WALK_MAX */
    uint32_t npools;            /* used entries of pools[], largest first */
    uint32_t untracked;         /* pools the tracker had no room for */
    mr_pool_fig pools[MR_TOP_POOLS];
    reap_base_stats_t base;     /* the base allocator of this process */
    uint64_t lists;             /* bytes on the APR allocators' free lists */
    uint64_t parked;            /* of which on parked allocators' lists */
} mr_snapshot;

typedef struct mr_slot {
    pid_t pid;                  /* 0: free; claimed by compare-and-swap */
    uint32_t seq;               /* over snap: odd while being written */
    mr_snapshot snap;           /* written by one thread at a time */
    mr_req_counters_t req;      /* atomic adds, from any thread */
} mr_slot;

typedef struct mr_shared {
    uint32_t nslots;
    mr_slot slots[];
} mr_shared;

/* Set in the parent at post_config, inherited by children. */
static mr_shared *shared;

/* ---- this child's state ------------------------------------------------------------ */

typedef struct mr_tracked {
    apr_pool_t *pool;           /* NULL: free entry */
    const char *tag;
} mr_tracked;

static struct {
    mr_slot *slot;              /* NULL until attached (or no room) */
    apr_pool_t *root;           /* APR's root pool, top of the tree */
    apr_thread_mutex_t *lock;   /* guards tracked[] */
    mr_tracked *tracked;
    unsigned ntracked;          /* capacity of tracked[] */
    uint32_t untracked;         /* pools turned away, under lock */
    apr_time_t last;            /* last snapshot, atomic */
    int busy;                   /* a thread is taking a snapshot, atomic */
} child;

/* ---- creating and claiming slots ----------------------------------------------------- */

apr_status_t mr_slots_create(apr_pool_t *pconf, server_rec *s)
{
    apr_shm_t *shm;
    apr_status_t rv;
    int limit = 0;
    apr_size_t size;

    shared = NULL;
    ap_mpm_query(AP_MPMQ_HARD_LIMIT_DAEMONS, &limit);
    if (limit < 1)
        limit = 1;
    size = sizeof(mr_shared) + (apr_size_t)limit * sizeof(mr_slot);
    rv = apr_shm_create(&shm, size, NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, "mod_reap: no shared "
                     "memory for %d child slots; figures stay per process",
                     limit);
        return rv;
    }
    shared = apr_shm_baseaddr_get(shm);
    memset(shared, 0, size);
    shared->nslots = (uint32_t)limit;
    return APR_SUCCESS;
}

/* A slot whose child died without releasing it may be taken again. */
static int slot_is_free(pid_t pid)
{
    return pid == 0 || (kill(pid, 0) == -1 && errno == ESRCH);
}

static mr_slot *claim_slot(void)
{
    pid_t me = getpid();

    for (uint32_t i = 0; shared && i < shared->nslots; i++) {
        mr_slot *sl = &shared->slots[i];
        pid_t pid = __atomic_load_n(&sl->pid, __ATOMIC_ACQUIRE);

        if (slot_is_free(pid)
            && __atomic_compare_exchange_n(&sl->pid, &pid, me, 0,
                                           __ATOMIC_ACQ_REL,
                                           __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&sl->seq, 1, __ATOMIC_RELEASE);
            memset(&sl->snap, 0, sizeof sl->snap);
            memset(&sl->req, 0, sizeof sl->req);
            __atomic_store_n(&sl->seq, 2, __ATOMIC_RELEASE);
            return sl;
        }
    }
    return NULL;
}

static apr_status_t release_slot(void *data)
{
    mr_slot *sl = data;

    __atomic_store_n(&sl->pid, 0, __ATOMIC_RELEASE);
    child.slot = NULL;
    return APR_SUCCESS;
}

static apr_pool_t *root_of(apr_pool_t *p)
{
    apr_pool_t *up;

    while ((up = apr_pool_parent_get(p)) != NULL)
        p = up;
    return p;
}

void mr_child_attach(apr_pool_t *pchild, server_rec *s)
{
    int threads = 1;

    ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads);
    if (threads < 1)
        threads = 1;
    child.ntracked = 2 * (unsigned)threads + MR_TRACK_SPARE;
    child.tracked = apr_pcalloc(pchild, child.ntracked * sizeof(mr_tracked));
    apr_thread_mutex_create(&child.lock, APR_THREAD_MUTEX_DEFAULT, pchild);
    child.root = root_of(pchild);
    child.slot = claim_slot();
    if (child.slot == NULL) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, "mod_reap: no free "
                     "status slot for child %" APR_PID_T_FMT, getpid());
        return;
    }
    apr_pool_cleanup_register(pchild, child.slot, release_slot,
                              apr_pool_cleanup_null);
    if (mr_reap_backed()) {
        mr_track_pool(ap_pglobal, "pglobal");
        mr_track_pool(s->process->pconf, "pconf");
        mr_track_pool(pchild, "pchild");
    }
}

/* ---- tracking live pools ---------------------------------------------------------- */

static apr_status_t untrack_pool(void *data)
{
    mr_tracked *t = data;

    apr_thread_mutex_lock(child.lock);
    t->pool = NULL;
    apr_thread_mutex_unlock(child.lock);
    return APR_SUCCESS;
}

void mr_track_pool(apr_pool_t *p, const char *tag)
{
    mr_tracked *t = NULL;

    if (child.lock == NULL || !mr_reap_backed() || mr_pools_walked())
        return;
    apr_thread_mutex_lock(child.lock);
    for (unsigned i = 0; i < child.ntracked && t == NULL; i++)
        if (child.tracked[i].pool == NULL)
            t = &child.tracked[i];
    if (t != NULL) {
        t->pool = p;
        t->tag = tag;
    }
    else {
        child.untracked++;
    }
    apr_thread_mutex_unlock(child.lock);
    if (t != NULL)
        apr_pool_pre_cleanup_register(p, t, untrack_pool);
}

/* ---- taking a snapshot -------------------------------------------------------------- */

/* Insert @p fig into the top list of @p s, kept sorted by footprint. */
static void top_insert(mr_snapshot *s, const mr_pool_fig *fig)
{
    uint32_t i = s->npools;

    if (i == MR_TOP_POOLS) {
        if (fig->footprint <= s->pools[i - 1].footprint)
            return;
        i--;
    }
    else {
        s->npools++;
    }
    while (i > 0 && s->pools[i - 1].footprint < fig->footprint) {
        s->pools[i] = s->pools[i - 1];
        i--;
    }
    s->pools[i] = *fig;
}

/* @return whether a pool of @p footprint would enter the top list. */
static int top_takes(const mr_snapshot *s, uint64_t footprint)
{
    return s->npools < MR_TOP_POOLS
           || footprint > s->pools[MR_TOP_POOLS - 1].footprint;
}

/* Append @p in to the @p n bytes at @p out, cut to fit MR_TAG_MAX with its
 * NUL; @return the new length.  Any byte that is not printable ASCII, and
 * the characters JSON and HTML treat specially, become '?', so a tag needs
 * no escaping later: tags come from any module. */
static size_t append_safe(char *out, size_t n, const char *in)
{
    for (; in != NULL && *in && n + 1 < MR_TAG_MAX; in++)
        out[n++] = (*in < 0x20 || *in > 0x7e || strchr("\"\\<>&", *in))
                   ? '?' : *in;
    return n;
}

/* @p out (MR_TAG_MAX bytes) = @p tag followed by @p suffix (or NULL). */
static void copy_tag(char *out, const char *tag, const char *suffix)
{
    size_t n = append_safe(out, 0, tag);

    n = append_safe(out, n, suffix);
    out[n] = '\0';
}

static void add_pool(mr_snapshot *s, reap_t *reap, const char *tag,
                     const char *suffix)
{
    mr_pool_fig fig;
    reap_stats_t st;

    memset(&fig, 0, sizeof fig);
    fig.footprint = reap_footprint(reap, &fig.peak_footprint);
    if (!top_takes(s, fig.footprint))
        return;
    /* Only live_bytes is read without synchronisation (see reap_walk). */
    reap_get_stats(reap, &st);
    fig.live_bytes = st.live_bytes;
    copy_tag(fig.tag, tag, suffix);
    top_insert(s, &fig);
}

static void tracked_top_pools(mr_snapshot *s)
{
    apr_thread_mutex_lock(child.lock);
    for (unsigned i = 0; i < child.ntracked; i++) {
        mr_tracked *t = &child.tracked[i];

        if (t->pool == NULL)
            continue;
        add_pool(s, mr_reap_of(t->pool), t->tag, NULL);
        s->seen++;
    }
    s->untracked = child.untracked;
    apr_thread_mutex_unlock(child.lock);
}

/* State of one walk: the snapshot, and the name an untagged pool at each
 * depth of the current path would inherit (the walk is depth first, so
 * named[d - 1] belongs to the parent of a pool at depth d). */
typedef struct mr_walk {
    mr_snapshot *snap;
    const char *named[MR_WALK_DEPTH];
} mr_walk;

/* apr_pool_walk() callback: runs with pool locks held (see the header
 * comment), so it copies a few figures and takes no lock itself. */
static int walk_pool(apr_pool_t *pool, unsigned int depth, void *data)
{
    mr_walk *w = data;
    mr_snapshot *s = w->snap;
    unsigned int d = depth < MR_WALK_DEPTH ? depth : MR_WALK_DEPTH - 1;
    const char *tag = mr_apr.tag_get(pool);
    const char *inherited = d > 0 ? w->named[d - 1] : NULL;

    if (s->seen == MR_WALK_MAX) {
        s->capped = 1;
        return 1;
    }
    s->seen++;
    w->named[d] = tag != NULL ? tag : inherited;
    if (tag != NULL)
        add_pool(s, mr_reap_of(pool), tag, NULL);
    else if (inherited != NULL)
        add_pool(s, mr_reap_of(pool), inherited, "/sub");
    else
        add_pool(s, mr_reap_of(pool), "(untagged)", NULL);
    return 0;
}

static void walked_top_pools(mr_snapshot *s)
{
    mr_walk w;

    memset(&w, 0, sizeof w);
    w.snap = s;
    mr_apr.pool_walk(child.root, walk_pool, &w);
}

static void collect_top_pools(mr_snapshot *s)
{
    if (mr_pools_walked()) {
        s->source = MR_POOLS_WALK;
        walked_top_pools(s);
    }
    else {
        s->source = MR_POOLS_HOOKS;
        tracked_top_pools(s);
    }
}

/* The number after @p key ("VmRSS:", "PPid:") in /proc/PID/status text
 * @p text; 0 when it is not there. */
static uint64_t status_field(const char *text, const char *key)
{
    const char *at = strstr(text, key);

    return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

/* The resident and anonymous resident bytes of child @p pid, from
 * /proc/PID/status; zeros where it cannot be read (not Linux, no /proc,
 * the process gone) or is not a child of this child's parent (the pid was
 * reused). */
static void read_rss(pid_t pid, uint64_t *rss, uint64_t *anon)
{
    char path[64], text[4096];
    ssize_t n = -1;
    int fd;

    *rss = *anon = 0;
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, text, sizeof text - 1);
        close(fd);
    }
    if (n <= 0)
        return;
    text[n] = '\0';
    if (status_field(text, "\nPPid:") != (uint64_t)getppid())
        return;
    *rss = status_field(text, "\nVmRSS:") * 1024; /* the file says kB */
    *anon = status_field(text, "\nRssAnon:") * 1024;
}

static void take_snapshot(void)
{
    mr_snapshot s;
    mr_slot *sl = child.slot;

    memset(&s, 0, sizeof s);
    s.taken = apr_time_now();
    if (mr_reap_backed()) {
        reap_get_tree_stats(mr_reap_of(child.root), &s.process);
        collect_top_pools(&s);
        reap_get_base_stats(&s.base);
    }
    if (mr_apr.lists_get) {
        apr_size_t lists, parked;

        mr_apr.lists_get(&lists, &parked);
        s.lists = lists;
        s.parked = parked;
    }
    __atomic_add_fetch(&sl->seq, 1, __ATOMIC_ACQ_REL);
    memcpy(&sl->snap, &s, sizeof s);
    __atomic_add_fetch(&sl->seq, 1, __ATOMIC_RELEASE);
}

/* Take a snapshot when the last is older than the interval (or always with
 * @p force), unless another thread of this child is taking one. */
static void refresh(int force)
{
    apr_time_t now = apr_time_now();
    apr_time_t last = __atomic_load_n(&child.last, __ATOMIC_RELAXED);

    if (child.slot == NULL || (!force && now - last < MR_REFRESH_INTERVAL))
        return;
    if (__atomic_exchange_n(&child.busy, 1, __ATOMIC_ACQUIRE))
        return;
    take_snapshot();
    __atomic_store_n(&child.last, now, __ATOMIC_RELAXED);
    __atomic_store_n(&child.busy, 0, __ATOMIC_RELEASE);
}

static void max_u64(uint64_t *at, uint64_t v)
{
    uint64_t cur = __atomic_load_n(at, __ATOMIC_RELAXED);

    while (v > cur && !__atomic_compare_exchange_n(at, &cur, v, 1,
                                                   __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED))
        ;
}

void mr_request_done(const mr_request_figures_t *f)
{
    mr_req_counters_t *c;

    if (child.slot == NULL)
        return;
    c = &child.slot->req;
    __atomic_add_fetch(&c->count, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->limited, f->limited ? 1 : 0, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->allocs, f->allocs, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->frees, f->frees, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->peak_sum, f->peak_footprint, __ATOMIC_RELAXED);
    max_u64(&c->peak_max, f->peak_footprint);
    refresh(0);
}

/* ---- reading slots ------------------------------------------------------------------ */

/* One child's figures as copied out of its slot. */
typedef struct mr_view {
    pid_t pid;
    mr_snapshot snap;
    uint64_t rss;               /* VmRSS in bytes, read now; 0: unknown */
    uint64_t rss_anon;          /* of which anonymous (RssAnon) */
    mr_req_counters_t req;
} mr_view;

/* Copy the snapshot under the sequence lock; give up after a few tries
 * (a writer died mid-way) and keep the last copy. */
static void read_snapshot(const mr_slot *sl, mr_snapshot *out)
{
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t s1 = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);

        if (s1 & 1) {
            sched_yield();
            continue;
        }
        memcpy(out, &sl->snap, sizeof *out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&sl->seq, __ATOMIC_RELAXED) == s1)
            return;
    }
}

/* @return 1 and fill @p v when slot @p sl belongs to a live child: its
 * RSS read now, the rest as of its snapshot. */
static int read_slot(const mr_slot *sl, mr_view *v)
{
    v->pid = __atomic_load_n(&sl->pid, __ATOMIC_ACQUIRE);
    if (slot_is_free(v->pid))
        return 0;
    read_snapshot(sl, &v->snap);
    read_rss(v->pid, &v->rss, &v->rss_anon);
#define MR_LOAD_(name, doc) \
    v->req.name = __atomic_load_n(&sl->req.name, __ATOMIC_RELAXED);
    MR_REQ_FIELDS(MR_LOAD_)
#undef MR_LOAD_
    return 1;
}

/* Every live child's figures, in slot order; @p total gets their sums
 * (peak_max: the largest). */
static mr_view *read_all(apr_pool_t *p, int *n, mr_view *total)
{
    mr_view *v;

    memset(total, 0, sizeof *total);
    *n = 0;
    refresh(1);
    if (shared == NULL)
        return NULL;
    v = apr_pcalloc(p, shared->nslots * sizeof *v);
    for (uint32_t i = 0; i < shared->nslots; i++) {
        if (!read_slot(&shared->slots[i], &v[*n]))
            continue;
#define MR_SUM_(name, doc) total->snap.process.name += v[*n].snap.process.name;
        REAP_STATS_FIELDS(MR_SUM_)
#undef MR_SUM_
#define MR_SUM_(name, doc) total->req.name += v[*n].req.name;
        MR_REQ_FIELDS(MR_SUM_)
#undef MR_SUM_
#define MR_SUM_(name, doc) total->snap.base.name += v[*n].snap.base.name;
        REAP_BASE_STATS_FIELDS(MR_SUM_)
#undef MR_SUM_
        total->snap.lists += v[*n].snap.lists;
        total->snap.parked += v[*n].snap.parked;
        total->rss += v[*n].rss;
        total->rss_anon += v[*n].rss_anon;
        (*n)++;
    }
    total->req.peak_max = 0;    /* a maximum, not a sum */
    for (int i = 0; i < *n; i++)
        if (v[i].req.peak_max > total->req.peak_max)
            total->req.peak_max = v[i].req.peak_max;
    return v;
}

/* ---- JSON --------------------------------------------------------------------------- */

/* libreap's printers write one JSON object and a newline; the object is
 * kept on its line here, where the totals stay one line. */
static void rputs_line(void *arg, const char *text)
{
    size_t len = strlen(text);

    if (len && text[len - 1] == '\n')
        len--;
    ap_rwrite(text, (int)len, (request_rec *)arg);
}

/* null on a stock APR: there are no reaps to report. */
static void json_process(request_rec *r, const reap_stats_t *s)
{
    if (!mr_reap_backed())
        ap_rputs("null", r);
    else
        reap_stats_print(s, 1, rputs_line, r);
}

static void json_requests(request_rec *r, const mr_req_counters_t *c)
{
    const char *sep = "";

    ap_rputs("{", r);
#define MR_JSON_(name, doc) \
    ap_rprintf(r, "%s\"%s\": %" PRIu64, sep, #name, c->name); sep = ", ";
    MR_REQ_FIELDS(MR_JSON_)
#undef MR_JSON_
    ap_rputs("}", r);
}

/* The base allocator's figures (REAP_BASE_STATS_FIELDS in reap.h). */
static void json_base(request_rec *r, const mr_snapshot *s)
{
    reap_base_stats_print(&s->base, 1, rputs_line, r);
}

/* null on an APR without apr_allocator_lists_get(). */
static void json_lists(request_rec *r, const mr_snapshot *s)
{
    if (!mr_apr.lists_get)
        ap_rputs("null", r);
    else
        ap_rprintf(r, "{\"bytes\": %" PRIu64 ", \"parked\": %" PRIu64 "}",
                   s->lists, s->parked);
}

/* null where the child's /proc/PID/status could not be read (no /proc);
 * the totals sum the children's. */
static void json_rss(request_rec *r, const mr_view *v)
{
    if (v->rss == 0)
        ap_rputs("null", r);
    else
        ap_rprintf(r, "{\"bytes\": %" PRIu64 ", \"anon\": %" PRIu64 "}",
                   v->rss, v->rss_anon);
}

/* Tags were made safe for JSON and HTML when copied (copy_tag), so they
 * need no escaping; writing without allocating keeps a status request's own
 * pool figures the same from one request to the next. */
static void json_child(request_rec *r, const mr_view *v, apr_time_t now)
{
    ap_rprintf(r, "    {\"pid\": %" APR_PID_T_FMT ", \"snapshot_age_ms\": %"
               APR_INT64_T_FMT ",\n     \"process\": ", v->pid,
               v->snap.taken ? apr_time_as_msec(now - v->snap.taken) : -1);
    json_process(r, &v->snap.process);
    ap_rputs(",\n     \"requests\": ", r);
    json_requests(r, &v->req);
    ap_rputs(",\n     \"base\": ", r);
    json_base(r, &v->snap);
    ap_rputs(", \"allocator_lists\": ", r);
    json_lists(r, &v->snap);
    ap_rputs(", \"rss\": ", r);
    json_rss(r, v);
    ap_rprintf(r, ",\n     \"pools_source\": \"%s\", \"pools_seen\": %u, "
               "\"pools_capped\": %s, \"untracked_pools\": %u,"
               "\n     \"top_pools\": [",
               mr_pools_source_name[v->snap.source < 3 ? v->snap.source : 0],
               v->snap.seen, v->snap.capped ? "true" : "false",
               v->snap.untracked);
    for (uint32_t i = 0; i < v->snap.npools; i++) {
        const mr_pool_fig *f = &v->snap.pools[i];
        ap_rprintf(r, "%s\n       {\"tag\": \"%s\", \"footprint\": %" PRIu64
                   ", \"peak_footprint\": %" PRIu64 ", \"live_bytes\": %"
                   PRIu64 "}", i ? "," : "", f->tag,
                   f->footprint, f->peak_footprint, f->live_bytes);
    }
    ap_rputs("]}", r);
}

static void send_json(request_rec *r, const mr_view *v, int n,
                      const mr_view *total)
{
    apr_time_t now = apr_time_now();

    ap_set_content_type(r, "application/json");
    ap_rprintf(r, "{\"reap_backed\": %s, \"libreap\": \"%s\", \"apr\": \"%s\","
               " \"pid\": %" APR_PID_T_FMT ",\n \"totals\": {\"children\": %d,"
               " \"process\": ", mr_reap_backed() ? "true" : "false",
               reap_version(), apr_version_string(), getpid(), n);
    json_process(r, &total->snap.process);
    ap_rputs(", \"requests\": ", r);
    json_requests(r, &total->req);
    ap_rputs(", \"base\": ", r);
    json_base(r, &total->snap);
    ap_rputs(", \"allocator_lists\": ", r);
    json_lists(r, &total->snap);
    ap_rputs(", \"rss\": ", r);
    json_rss(r, total);
    ap_rputs("},\n \"children\": [\n", r);
    for (int i = 0; i < n; i++) {
        json_child(r, &v[i], now);
        ap_rputs(i + 1 < n ? ",\n" : "\n", r);
    }
    ap_rputs(" ]}\n", r);
}

/* ---- HTML and ?auto ------------------------------------------------------------------- */

/* "live_bytes" -> "LiveBytes" */
static const char *camel(apr_pool_t *p, const char *name)
{
    char *out = apr_pstrdup(p, name), *o = out;
    int up = 1;

    for (const char *c = name; *c; c++) {
        if (*c == '_') {
            up = 1;
            continue;
        }
        *o++ = up ? apr_toupper(*c) : *c;
        up = 0;
    }
    *o = '\0';
    return out;
}

static void auto_lines(request_rec *r, int n, const mr_view *t)
{
    ap_rprintf(r, "ReapBacked: %d\nReapVersion: %s\nReapChildren: %d\n",
               mr_reap_backed(), reap_version(), n);
#define MR_AUTO_(name, doc) \
    ap_rprintf(r, "Reap%s: %" PRIu64 "\n", camel(r->pool, #name), \
               t->snap.process.name);
    REAP_STATS_FIELDS(MR_AUTO_)
#undef MR_AUTO_
#define MR_AUTO_(name, doc) \
    ap_rprintf(r, "ReapRequest%s: %" PRIu64 "\n", camel(r->pool, #name), \
               t->req.name);
    MR_REQ_FIELDS(MR_AUTO_)
#undef MR_AUTO_
#define MR_AUTO_(name, doc) \
    ap_rprintf(r, "ReapBase%s: %" PRIu64 "\n", camel(r->pool, #name), \
               (uint64_t)t->snap.base.name);
    REAP_BASE_STATS_FIELDS(MR_AUTO_)
#undef MR_AUTO_
    if (mr_apr.lists_get)
        ap_rprintf(r, "ReapAllocatorListBytes: %" PRIu64 "\n"
                   "ReapAllocatorListParkedBytes: %" PRIu64 "\n",
                   t->snap.lists, t->snap.parked);
    if (t->rss)
        ap_rprintf(r, "ReapRssBytes: %" PRIu64 "\nReapRssAnonBytes: %" PRIu64
                   "\n", t->rss, t->rss_anon);
}

static void html_row(request_rec *r, const char *who, const mr_view *v)
{
    ap_rprintf(r, "<tr><td>%s</td>", who);
#define MR_TD_(name, doc) ap_rprintf(r, "<td>%" PRIu64 "</td>", v->snap.process.name);
    REAP_STATS_FIELDS(MR_TD_)
#undef MR_TD_
#define MR_TD_(name, doc) ap_rprintf(r, "<td>%" PRIu64 "</td>", v->req.name);
    MR_REQ_FIELDS(MR_TD_)
#undef MR_TD_
    ap_rputs("</tr>\n", r);
}

static void html_pools(request_rec *r, const mr_view *v)
{
    ap_rprintf(r, "<p>Child %" APR_PID_T_FMT ", largest of %u pools (%s%s):",
               v->pid, v->snap.seen,
               mr_pools_source_name[v->snap.source < 3 ? v->snap.source : 0],
               v->snap.capped ? ", stopped at the cap" : "");
    for (uint32_t i = 0; i < v->snap.npools; i++) {
        const mr_pool_fig *f = &v->snap.pools[i];
        ap_rprintf(r, " %s %" PRIu64 " B (peak %" PRIu64 ", live %" PRIu64
                   ")%s", ap_escape_html(r->pool, f->tag), f->footprint,
                   f->peak_footprint, f->live_bytes,
                   i + 1 < v->snap.npools ? ";" : "");
    }
    ap_rputs(v->snap.npools ? "</p>\n" : " none seen</p>\n", r);
    ap_rputs("<p>Base allocator:", r);
#define MR_BASE_(name, doc) \
    ap_rprintf(r, " %s %" PRIu64, #name, (uint64_t)v->snap.base.name);
    REAP_BASE_STATS_FIELDS(MR_BASE_)
#undef MR_BASE_
    if (mr_apr.lists_get)
        ap_rprintf(r, "; APR allocators' free lists %" PRIu64 " (parked %"
                   PRIu64 ")", v->snap.lists, v->snap.parked);
    if (v->rss)
        ap_rprintf(r, "; the child's RSS %" PRIu64 " (anonymous %" PRIu64 ")",
                   v->rss, v->rss_anon);
    ap_rputs("</p>\n", r);
}

static void html_body(request_rec *r, const mr_view *v, int n,
                      const mr_view *t)
{
    ap_rprintf(r, "<p>APR %s is %sreap-backed; libreap %s; %d children."
               "</p>\n", apr_version_string(),
               mr_reap_backed() ? "" : "<b>not</b> ", reap_version(), n);
    ap_rputs("<table border=\"1\"><tr><th>child</th>", r);
#define MR_TH_(name, doc) ap_rprintf(r, "<th title=\"%s\">%s</th>", doc, #name);
    REAP_STATS_FIELDS(MR_TH_)
#undef MR_TH_
#define MR_TH_(name, doc) ap_rprintf(r, "<th title=\"%s\">req_%s</th>", doc, #name);
    MR_REQ_FIELDS(MR_TH_)
#undef MR_TH_
    ap_rputs("</tr>\n", r);
    for (int i = 0; i < n; i++)
        html_row(r, apr_psprintf(r->pool, "%" APR_PID_T_FMT, v[i].pid), &v[i]);
    html_row(r, "total", t);
    ap_rputs("</table>\n", r);
    for (int i = 0; i < n; i++)
        html_pools(r, &v[i]);
}

int mr_status_hook(request_rec *r, int flags)
{
    mr_view total, *v;
    int n;

    if (!mr_status_enabled(r->server))
        return OK;
    v = read_all(r->pool, &n, &total);
    if (flags & AP_STATUS_SHORT) {
        auto_lines(r, n, &total);
        return OK;
    }
    ap_rputs("<hr />\n<h2>Reap memory (mod_reap)</h2>\n", r);
    if (flags & AP_STATUS_NOTABLE) {
        ap_rputs("<pre>", r);
        auto_lines(r, n, &total);
        ap_rputs("</pre>\n", r);
        return OK;
    }
    html_body(r, v, n, &total);
    return OK;
}

static int accepts_html(request_rec *r)
{
    const char *accept = apr_table_get(r->headers_in, "Accept");

    return accept != NULL && ap_strstr_c(accept, "text/html") != NULL;
}

int mr_status_handler(request_rec *r)
{
    mr_view total, *v;
    int n;

    if (r->handler == NULL || strcmp(r->handler, "reap-status") != 0)
        return DECLINED;
    if (!mr_status_enabled(r->server)) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      "mod_reap: reap-status asked for with ReapStatus Off");
        return HTTP_NOT_FOUND;
    }
    r->allowed = AP_METHOD_BIT << M_GET;
    if (r->method_number != M_GET)
        return HTTP_METHOD_NOT_ALLOWED;
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    /* JSON or HTML by Accept: a cache must not give one for the other */
    apr_table_mergen(r->headers_out, "Vary", "Accept");
    v = read_all(r->pool, &n, &total);
    if (!accepts_html(r)) {
        send_json(r, v, n, &total);
        return OK;
    }
    ap_set_content_type(r, "text/html; charset=utf-8");
    ap_rputs(DOCTYPE_HTML_4_01 "<html><head><title>Reap memory</title>"
             "</head><body>\n<h1>Reap memory</h1>\n", r);
    html_body(r, v, n, &total);
    ap_rputs("</body></html>\n", r);
    return OK;
}
