/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_region.c - chunks double up to the cap, retired tails go on the heap,
 * empty retired chunks and large objects go back to the base allocator, and
 * clear keeps only the first chunk (and has nothing to do for a reap that
 * nothing touched); a reap made with a chunk source takes its chunks from
 * it and gives them all back.  Sees internals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "base/base.h"
#include "internal.h"

static bool has_chunk(const reap_t *r, const rp_chunk_t *c)
{
    for (const rp_chunk_t *x = r->chunk; x; x = x->older)
        if (x == c)
            return true;
    return false;
}

static size_t nchunks(const reap_t *r)
{
    size_t n = 0;
    for (const rp_chunk_t *c = r->chunk; c; c = c->older)
        n++;
    return n;
}

static void chunks_double_up_to_the_cap(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    size_t prev = r->chunk->size;
    assert_int_equal(prev, rp_opt.first_chunk);
    for (int i = 0; i < 12; i++) {
        const rp_chunk_t *c = r->chunk;
        while (r->chunk == c)
            assert_non_null(reap_malloc(r, 1000));
        size_t want = prev * 2 < rp_opt.max_chunk ? prev * 2 : rp_opt.max_chunk;
        assert_int_equal(r->chunk->size, want);
        prev = want;
    }
    assert_int_equal(r->chunk->size, rp_opt.max_chunk);
    reap_destroy(r);
}

static void a_big_tail_waits_on_the_heap(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    size_t room = (size_t)(r->bump_end - r->bump);
    assert_non_null(reap_malloc(r, room - 3000));
    char *p = reap_malloc(r, 3500); /* does not fit: a new chunk */
    assert_ptr_not_equal(r->chunk, r->first);
    assert_true(r->heap_free_bytes >= 2900); /* the tail is kept */
    assert_true(r->heap_empty);              /* but nothing was freed: still bumping */
    rp_heap_check(r);
    char *q = reap_malloc(r, 2000); /* the frontier serves it, as a region would */
    assert_true(q > p && q < (char *)r->chunk + r->chunk->size);
    while ((size_t)(r->bump_end - r->bump) >= 2100)
        reap_malloc(r, 1000);
    /* once something is freed the reap is a heap, and the tail serves
     * what the frontier cannot, instead of a new chunk */
    reap_free(r, p);
    rp_chunk_t *before = r->chunk;
    q = reap_malloc(r, 2000);
    assert_ptr_equal(r->chunk, before);
    assert_true(q > (char *)r->first && q < (char *)r->first + r->first->size);
    reap_destroy(r);
}

static void a_big_request_gets_a_side_chunk(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    while (r->chunk == r->first)
        reap_malloc(r, 1000);
    reap_malloc(r, 100);
    char *frontier = r->bump;
    size_t room = (size_t)(r->bump_end - r->bump);
    uint64_t fp = r->footprint;
    char *big = reap_malloc(r, room + 8000); /* bigger than a quarter of the next chunk */
    assert_non_null(big);
    assert_ptr_equal(r->bump, frontier); /* the frontier stays */
    assert_true(r->footprint > fp);
    assert_non_null(reap_malloc(r, 100));
    assert_ptr_equal(r->bump, frontier + 112); /* round16(100 + 8): internal.h */
    rp_heap_check(r);
    reap_free(r, big); /* its chunk goes back */
    assert_int_equal(r->footprint, fp);
    rp_heap_check(r);
    reap_destroy(r);
}

/* Fill a whole retired chunk and free all of it; returns the reap. */
static reap_t *retired_chunk_all_freed(rp_chunk_t **second_out)
{
    reap_t *r = reap_create(NULL);
    /* make the bins now, in the first chunk: a chunk holding them stays */
    void *early = reap_malloc(r, 500);
    reap_malloc(r, 8);
    reap_free(r, early);
    assert_non_null(r->heap);
    /* fill the first chunk, then a whole second one, then open a third */
    char *x;
    do
        x = reap_malloc(r, 500);
    while (r->chunk == r->first);
    rp_chunk_t *second = r->chunk;
    char *objs[200];
    int n = 0;
    objs[n++] = x;
    while (r->chunk == second && n < 200)
        objs[n++] = reap_malloc(r, 500);
    assert_true(r->chunk != second);
    for (int i = 0; i < n; i++)
        reap_free(r, objs[i]);
    rp_heap_check(r);
    *second_out = second;
    return r;
}

static void an_empty_retired_chunk_goes_back(void **state)
{
    (void)state;
    rp_opt.quick_limit = 0; /* every free coalesces at once */
    rp_chunk_t *second;
    reap_t *r = retired_chunk_all_freed(&second);
    assert_int_equal(nchunks(r), 2); /* the second chunk is gone */
    assert_int_equal(r->footprint, r->first->size + r->chunk->size);
    reap_destroy(r);
    rp_opt.quick_limit = RP_SMALL_LIMIT;
}

static void an_empty_retired_chunk_goes_back_when_quick_blocks_join(void **state)
{
    (void)state;
    rp_chunk_t *second;
    reap_t *r = retired_chunk_all_freed(&second);
    assert_true(has_chunk(r, second)); /* its blocks wait on quick lists */
    /* a request the frontier cannot take: the quick blocks are coalesced
     * before the reap grows, and the chunk they fill goes back */
    assert_non_null(reap_malloc(r, (size_t)(r->bump_end - r->bump) + 100));
    assert_false(has_chunk(r, second));
    rp_heap_check(r);
    reap_destroy(r);
}

static void large_objects_have_their_own_blocks(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    uint64_t fp = r->footprint;
    size_t n = rp_opt.large_threshold + 1;
    char *a = reap_malloc(r, n), *b = reap_malloc(r, 10 * n);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(rp_mem2b(a)->head & RP_LARGE);
    assert_true(reap_usable_size(b) >= 10 * n);
    assert_true(r->footprint >= fp + 11 * n);
    reap_free(r, a);
    assert_true(r->footprint >= fp + 10 * n && r->footprint < fp + 11 * n);
    reap_clear(r);
    assert_int_equal(r->footprint, fp);
    reap_destroy(r);
}

static void clear_keeps_the_first_chunk_only(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    rp_chunk_t *first = r->chunk;
    for (int i = 0; i < 5000; i++)
        reap_malloc(r, 200);
    assert_true(nchunks(r) > 3);
    reap_clear(r);
    assert_ptr_equal(r->chunk, first);
    assert_int_equal(nchunks(r), 1);
    assert_int_equal(r->footprint, first->size);
    assert_ptr_equal(r->bump, rp_chunk_arena(r, first));
    reap_destroy(r);
}

/* reap_clear() skips the reset of a reap it would leave as it is, and
 * only of such a reap: a side chunk or a large object leaves the frontier
 * where it was, yet must go back. */
static void clear_of_an_untouched_reap_only_counts(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    rp_chunk_t *first = r->chunk;
    char *start = r->bump;
    assert_true(rp_region_untouched(r));
    reap_clear(r);
    assert_int_equal(r->clears, 1);
    assert_ptr_equal(r->bump, start);
    assert_int_equal(r->footprint, first->size);

    /* does not fit, and is big: a side chunk behind the first */
    char *big = reap_malloc(r, (size_t)(r->bump_end - r->bump) + 100);
    assert_non_null(big);
    assert_ptr_equal(r->bump, start);
    assert_int_equal(nchunks(r), 2);
    assert_false(rp_region_untouched(r));
    reap_clear(r);
    assert_int_equal(nchunks(r), 1);
    assert_int_equal(r->footprint, first->size);

    void *large = reap_malloc(r, rp_opt.large_threshold + 1);
    assert_non_null(large);
    assert_false(rp_region_untouched(r));
    reap_free(r, large); /* gone already: nothing is left to reset */
    assert_true(rp_region_untouched(r));

    reap_malloc(r, 100);
    assert_false(rp_region_untouched(r));
    reap_clear(r);
    assert_true(rp_region_untouched(r));
    assert_ptr_equal(r->bump, start);
    assert_int_equal(r->clears, 3);
    reap_destroy(r);
}

static void base_gets_everything_back(void **state)
{
    (void)state;
    rp_base_stats_t before, after;
    rp_base_trim(); /* what this thread caches counts as in use until then */
    rp_base_get_stats(&before);
    reap_t *r = reap_create(NULL);
    reap_t *c = reap_create(r);
    for (int i = 0; i < 3000; i++) {
        reap_malloc(r, 300);
        reap_malloc(c, 70000);
        if (i % 100 == 0)
            reap_free(c, reap_malloc(c, 5));
    }
    reap_destroy(r);
    rp_base_trim();
    rp_base_get_stats(&after);
    assert_int_equal(after.in_use, before.in_use);
}

/* ---- a chunk source (reap_create_from) ---------------------------------- */

/* A source that hands out aligned_alloc() blocks of the size asked, and
 * checks every give-back. */
typedef struct test_source {
    struct {
        void *p;
        size_t size;
    } out[64];
    size_t n_out;
} test_source_t;

static void *ts_alloc(void *ctx, size_t size)
{
    test_source_t *ts = ctx;
    assert_true(size % REAP_CHUNK_GRAIN == 0);
    assert_true(ts->n_out < 64);
    void *p = aligned_alloc(16, size);
    ts->out[ts->n_out].p = p;
    ts->out[ts->n_out].size = size;
    ts->n_out++;
    return p;
}

static void ts_free(void *ctx, void *chunk, size_t size)
{
    test_source_t *ts = ctx;
    for (size_t i = 0; i < ts->n_out; i++)
        if (ts->out[i].p == chunk) {
            assert_int_equal(size, ts->out[i].size);
            ts->out[i] = ts->out[--ts->n_out];
            free(chunk);
            return;
        }
    fail_msg("a chunk the source did not hand out: %p", chunk);
}

static size_t ts_bytes(const test_source_t *ts)
{
    size_t n = 0;
    for (size_t i = 0; i < ts->n_out; i++)
        n += ts->out[i].size;
    return n;
}

static void chunks_come_from_the_source_and_go_back(void **state)
{
    (void)state;
    test_source_t ts = {0};
    reap_chunk_source_t src = {ts_alloc, ts_free, &ts};
    reap_t *r = reap_create_from(NULL, NULL, &src);
    assert_non_null(r);
    assert_int_equal(ts.n_out, 1);
    reap_t *child = reap_create(r); /* inherits the source */
    assert_int_equal(ts.n_out, 2);
    for (int i = 0; i < 300; i++)
        assert_non_null(reap_malloc(r, 1000));
    assert_true(ts.n_out > 3);
    void *big = reap_malloc(r, 1 << 20); /* a large object: the base's */
    assert_non_null(big);
    size_t large = rp_large_footprint(rp_mem2b(big));
    assert_int_equal(reap_footprint(r, NULL), ts_bytes(&ts) - child->footprint + large);
    reap_clear(r); /* the child and every chunk but the first go back */
    assert_int_equal(ts.n_out, 1);
    assert_int_equal(reap_footprint(r, NULL), ts_bytes(&ts));
    reap_destroy(r);
    assert_int_equal(ts.n_out, 0);
}

static void a_limit_counts_the_source_chunks(void **state)
{
    (void)state;
    test_source_t ts = {0};
    reap_chunk_source_t src = {ts_alloc, ts_free, &ts};
    reap_t *r = reap_create_from(NULL, NULL, &src);
    const size_t limit = (1 << 20) + 20480; /* not a sum of doubling sizes */
    assert_int_equal(reap_set_limit(r, limit), 0);
    reap_t *child = reap_create(r);
    assert_non_null(child);
    while (reap_malloc(child, 1000) != NULL)
        ;
    reap_stats_t st;
    reap_get_stats(child, &st);
    assert_true(st.limit_failures > 0);
    size_t all = reap_tree_footprint(r, NULL);
    assert_int_equal(all, ts_bytes(&ts));
    assert_true(all <= limit);
    /* near the limit the chunks shrink to what a block needs */
    assert_true(all > limit - 8192);
    reap_destroy(r);
    assert_int_equal(ts.n_out, 0);
}


/* ---- reaps that start as regions (reap_start_as_region) ------------------- */

typedef struct {
    int calls;
    reap_misuse_kind_t kind;
    const void *ptr;
} misuse_seen_t;

/* Count the report and leave the object alone, so the test goes on. */
static int note_misuse(const reap_misuse_t *m, void *arg)
{
    misuse_seen_t *s = arg;
    s->calls++;
    s->kind = m->kind;
    s->ptr = m->ptr;
    return REAP_MISUSE_LEAK;
}

static reap_t *region_reap(void)
{
    reap_t *r = reap_create(NULL);
    assert_int_equal(reap_set_alignment(r, 8), 0);
    assert_int_equal(reap_start_as_region(r), 0);
    return r;
}

static uint64_t stat_of(const reap_t *r, size_t off)
{
    reap_stats_t st;
    reap_get_stats(r, &st);
    return *(const uint64_t *)((const char *)&st + off);
}
#define STAT(r, f) stat_of((r), offsetof(reap_stats_t, f))

static void a_region_start_needs_an_untouched_reap_of_8_byte_alignment(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    assert_int_equal(reap_start_as_region(r), EINVAL); /* 16-byte alignment */
    assert_int_equal(reap_set_alignment(r, 8), 0);
    assert_non_null(reap_malloc(r, 10));
    assert_int_equal(reap_start_as_region(r), EINVAL); /* handed out an object */
    reap_clear(r);
    assert_int_equal(reap_start_as_region(r), 0);
    assert_int_equal(reap_set_alignment(r, 16), EINVAL); /* a region keeps 8 */
    reap_destroy(r);
}

/* Objects lie side by side, each its size rounded up to 8 (as APR's pools
 * round them), where a reap with headers spends 8 more on each. */
static void a_region_packs_objects_without_headers(void **state)
{
    (void)state;
    reap_t *r = region_reap();
    reap_t *h = reap_create(NULL);
    assert_int_equal(reap_set_alignment(h, 8), 0);
    static const size_t sizes[] = {1, 8, 9, 15, 24, 40, 50, 80, 100, 0, 7};
    for (int round = 0; round < 50; round++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t n = sizes[i];
            char *p = reap_malloc(r, n), *q = reap_malloc(r, 1);
            assert_non_null(p);
            assert_true(((uintptr_t)p & 7) == 0);
            size_t want = n <= 8 ? 8 : (n + 7) / 8 * 8;
            if (q != NULL && rp_chunk_of(r, p) == rp_chunk_of(r, q))
                assert_int_equal(q - p, want);
            memset(p, 0xA5, n); /* all of it is the program's */
            assert_non_null(reap_malloc(h, n));
            assert_non_null(reap_malloc(h, 1));
        }
    assert_int_equal(STAT(h, live_bytes) - STAT(r, live_bytes), 50 * 2 * 11 * 8);
    rp_heap_check(r);
    reap_destroy(r);
    reap_destroy(h);
}

/* A free of an object made while the reap was a region counts it freed
 * (its memory waits for the clear), and from the first reap_free() on the
 * reap's objects have headers, so their frees make room for the next. */
static void the_first_free_gives_later_objects_headers(void **state)
{
    (void)state;
    reap_t *r = region_reap();
    char *a = reap_malloc(r, 40), *b = reap_malloc(r, 40);
    assert_int_equal(b - a, 40);
    uint64_t live = STAT(r, live_bytes);
    reap_free(r, a);
    assert_int_equal(STAT(r, frees), 1);
    assert_int_equal(STAT(r, live_objects), 1);
    assert_int_equal(STAT(r, live_bytes), live - 40);
    char *c = reap_malloc(r, 40), *d = reap_malloc(r, 40);
    assert_ptr_not_equal(c, a); /* a stays where it was, unused */
    assert_int_equal(d - c, 48); /* a header each now */
    reap_free(r, c);
    assert_ptr_equal(reap_malloc(r, 40), c); /* and its space is reused */
    rp_heap_check(r);
    reap_destroy(r);
}

/* reap_discard() frees as reap_free() does but leaves a region one. */
static void a_discard_leaves_a_region_one(void **state)
{
    (void)state;
    reap_t *r = region_reap();
    char *a = reap_malloc(r, 32);
    assert_non_null(reap_malloc(r, 32));
    reap_discard(r, a);
    assert_int_equal(STAT(r, frees), 1);
    char *c = reap_malloc(r, 24), *d = reap_malloc(r, 24);
    assert_int_equal(d - c, 24); /* still without headers */
    misuse_seen_t seen = {0};
    reap_set_misuse_handler(note_misuse, &seen);
    reap_discard(r, a);
    reap_set_misuse_handler(NULL, NULL);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.kind, REAP_MISUSE_DOUBLE_FREE);
    reap_destroy(r);
}

/* Bump small objects until the current chunk has fewer than room bytes
 * left, without taking a new one. */
static void fill_chunk(reap_t *r, size_t room)
{
    const rp_chunk_t *c = r->chunk;
    while ((size_t)(r->bump_end - r->bump) >= room)
        assert_non_null(reap_malloc(r, 8));
    assert_ptr_equal(r->chunk, c);
}

/* An object of n bytes, discarded, with a live one after it. */
static char *discarded(reap_t *r, size_t n)
{
    char *a = reap_malloc(r, n);
    assert_non_null(a);
    assert_non_null(reap_malloc(r, 8));
    reap_discard(r, a);
    return a;
}

/* A discarded object's memory is used again while the reap is a region:
 * once the frontier cannot take a request, it goes to the discards before
 * a new chunk, cut to size; what is left stays freed and checked. */
static void a_region_uses_its_discards_before_a_new_chunk(void **state)
{
    (void)state;
    reap_t *r = region_reap();
    char *a = discarded(r, 512);
    fill_chunk(r, 128);
    size_t chunks = nchunks(r);
    uint64_t live = STAT(r, live_bytes);
    char *p = reap_malloc(r, 130), *q = reap_malloc(r, 200);
    assert_ptr_equal(p, a);       /* the front of a, 136 bytes */
    assert_ptr_equal(q, a + 136); /* then the next 200 of it */
    assert_int_equal(nchunks(r), chunks);
    assert_int_equal(STAT(r, live_bytes), live + 136 + 200);
    memset(p, 1, 130);
    memset(q, 2, 200);
    misuse_seen_t seen = {0};
    reap_set_misuse_handler(note_misuse, &seen);
    reap_discard(r, a + 336); /* the 176 bytes left are freed already */
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.kind, REAP_MISUSE_DOUBLE_FREE);
    reap_discard(r, a + 8); /* inside p */
    assert_int_equal(seen.kind, REAP_MISUSE_FOREIGN);
    reap_set_misuse_handler(NULL, NULL);
    char *big = reap_malloc(r, 300); /* more than is left of a */
    assert_true(big < a || big >= a + 512);
    assert_int_equal(nchunks(r), chunks + 1);
    reap_discard(r, q); /* a used-again object is an object like any */
    assert_int_equal((unsigned char)p[129], 1);
    assert_int_equal(STAT(r, live_bytes), live + 136 + 304);
    reap_destroy(r);
}

/* A discard is cut to the request; a rest too small to hold the list's
 * record stays freed, unused, and a discard too small for a request is
 * passed over. */
static void a_discard_is_cut_to_the_request(void **state)
{
    (void)state;
    reap_t *r = region_reap();
    char *a = reap_malloc(r, 40), *b = reap_malloc(r, 24);
    assert_non_null(reap_malloc(r, 8));
    reap_discard(r, a);
    reap_discard(r, b);
    fill_chunk(r, 16);
    size_t chunks = nchunks(r);
    uint64_t live = STAT(r, live_bytes);
    assert_ptr_equal(reap_malloc(r, 16), b); /* its last 8 stay freed */
    assert_int_equal(STAT(r, live_bytes), live + 16);
    assert_ptr_equal(reap_malloc(r, 16), a); /* 24 are left */
    assert_ptr_equal(reap_malloc(r, 16), a + 16);
    assert_int_equal(STAT(r, live_bytes), live + 48);
    assert_int_equal(nchunks(r), chunks);
    misuse_seen_t seen = {0};
    reap_set_misuse_handler(note_misuse, &seen);
    reap_discard(r, b + 16);
    reap_set_misuse_handler(NULL, NULL);
    assert_int_equal(seen.kind, REAP_MISUSE_DOUBLE_FREE);
    char *c = reap_malloc(r, 48);
    assert_true(c < a || c > a + 40);
    assert_int_equal(nchunks(r), chunks + 1);
    reap_destroy(r);
}

/* CORRUPTION always aborts: the handler leaves by longjmp instead. */
static jmp_buf corrupt_jmp;
static misuse_seen_t corrupt_seen;

static int jump_on_misuse(const reap_misuse_t *m, void *arg)
{
    (void)arg;
    corrupt_seen.calls++;
    corrupt_seen.kind = m->kind;
    corrupt_seen.ptr = m->ptr;
    longjmp(corrupt_jmp, 1);
}

/* A discarded object written to afterwards (its hole record overwritten)
 * is caught before the reap hands out what the record names. */
static void a_write_to_a_discarded_object_is_caught(void **state)
{
    (void)state;
    static const struct { size_t off; uint64_t word; } writes[] = {
        {0, 0x4141414141414141u}, /* the link */
        {8, 4096},                /* a size beyond the block */
        {8, 400},                 /* a size short of it */
    };
    for (size_t w = 0; w < sizeof writes / sizeof writes[0]; w++) {
        reap_t *r = region_reap();
        char *a = discarded(r, 512);
        discarded(r, 256); /* so that a is not the only hole */
        memcpy(a + writes[w].off, &writes[w].word, 8);
        fill_chunk(r, 128);
        memset(&corrupt_seen, 0, sizeof corrupt_seen);
        reap_set_misuse_handler(jump_on_misuse, NULL);
        if (setjmp(corrupt_jmp) == 0)
            (void)reap_malloc(r, 300);
        reap_set_misuse_handler(NULL, NULL);
        assert_int_equal(corrupt_seen.calls, 1);
        assert_int_equal(corrupt_seen.kind, REAP_MISUSE_CORRUPTION);
        assert_ptr_equal(corrupt_seen.ptr, a);
        char *p = reap_malloc(r, 300); /* the lists are gone: a new chunk */
        assert_true(p < a || p >= a + 512);
        reap_destroy(r);
    }
}

/* Holes belong to the region: its first reap_free() and a clear drop them,
 * and none is handed out after. */
static void closing_or_clearing_a_region_drops_its_discards(void **state)
{
    (void)state;
    reap_t *r = region_reap();
    char *a = discarded(r, 512);
    assert_true(rp_region_has_holes(r));
    reap_free(r, reap_malloc(r, 8)); /* the region closes */
    assert_false(rp_region_has_holes(r));
    fill_chunk(r, 128);
    char *p = reap_malloc(r, 200);
    assert_true(p < a || p >= a + 512);
    rp_heap_check(r);
    reap_clear(r);
    a = discarded(r, 512);
    reap_clear(r);
    assert_false(rp_region_has_holes(r));
    fill_chunk(r, 128); /* over where a was */
    p = reap_malloc(r, 200);
    assert_ptr_not_equal(r->chunk, r->first);
    assert_ptr_equal(rp_chunk_of(r, p), r->chunk); /* not a's old place */
    reap_destroy(r);
}

/* An APR array that doubles, discarding its old storage each time, beside
 * the small objects around it: with its discards used again the region
 * takes fewer chunks than the same run without the discards. */
static void growing_arrays_take_fewer_chunks(void **state)
{
    (void)state;
    uint64_t footprint[2];
    for (int discard = 0; discard < 2; discard++) {
        reap_t *r = region_reap();
        for (int round = 0; round < 40; round++) {
            size_t cap = 2;
            char *arr = reap_malloc(r, cap * 16);
            for (size_t n = 0; n < 512; n++) {
                if (n == cap) {
                    char *bigger = reap_malloc(r, cap * 2 * 16);
                    memcpy(bigger, arr, cap * 16);
                    if (discard)
                        reap_discard(r, arr);
                    arr = bigger;
                    cap *= 2;
                }
                memset(arr + n * 16, (int)n, 16);
                assert_non_null(reap_malloc(r, 24 + n % 5 * 8)); /* an element's string */
            }
        }
        footprint[discard] = reap_footprint(r, NULL);
        reap_destroy(r);
    }
    print_message("footprint without discards %llu, with %llu\n",
                  (unsigned long long)footprint[0], (unsigned long long)footprint[1]);
    assert_true(footprint[1] < footprint[0] * 9 / 10);
}

/* Without headers a free is still checked: twice, an interior pointer, a
 * misaligned one, another reap's, a place not handed out yet. */
static void region_objects_report_misuse(void **state)
{
    (void)state;
    reap_t *r = region_reap(), *other = region_reap();
    char *a = reap_malloc(r, 64), *b = reap_malloc(r, 64);
    char *o = reap_malloc(other, 64);
    misuse_seen_t seen = {0};
    reap_set_misuse_handler(note_misuse, &seen);
    reap_free(r, b);
    assert_int_equal(seen.calls, 0);
    reap_free(r, b);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.kind, REAP_MISUSE_DOUBLE_FREE);
    assert_ptr_equal(seen.ptr, b);
    reap_free(r, a + 8);
    assert_int_equal(seen.calls, 2);
    assert_int_equal(seen.kind, REAP_MISUSE_FOREIGN);
    reap_free(r, a + 4);
    assert_int_equal(seen.calls, 3);
    assert_int_equal(seen.kind, REAP_MISUSE_FOREIGN);
    reap_free(r, o);
    assert_int_equal(seen.calls, 4);
    assert_int_equal(seen.kind, REAP_MISUSE_FOREIGN);
    assert_null(reap_realloc(r, b, 100));
    assert_int_equal(seen.calls, 5);
    assert_int_equal(seen.kind, REAP_MISUSE_FREED_REALLOC);
    assert_null(reap_realloc(r, a + 16, 100));
    assert_int_equal(seen.calls, 6);
    assert_int_equal(seen.kind, REAP_MISUSE_FOREIGN);
    reap_set_misuse_handler(NULL, NULL);
    /* a itself is sound: freed once, without a report */
    reap_free(r, a);
    assert_int_equal(seen.calls, 6);
    assert_int_equal(STAT(r, frees), 2);
    reap_destroy(other);
    reap_destroy(r);
}

/* Objects in every chunk a region filled, a side chunk's included, are
 * found and checked; a clear makes the reap a region again. */
static void region_frees_find_their_chunk(void **state)
{
    (void)state;
    reap_t *r = region_reap();
    char *objs[3000];
    for (int i = 0; i < 3000; i++) {
        objs[i] = reap_malloc(r, 16 + (size_t)(i % 13) * 8);
        assert_non_null(objs[i]);
        memset(objs[i], i & 0xff, 16);
    }
    size_t room = (size_t)(r->bump_end - r->bump);
    char *side = reap_malloc(r, room + r->next_chunk_size / 2);
    assert_non_null(side);
    assert_true(nchunks(r) > 4);
    misuse_seen_t seen = {0};
    reap_set_misuse_handler(note_misuse, &seen);
    for (int i = 0; i < 3000; i += 3)
        reap_free(r, objs[i]);
    reap_free(r, side);
    assert_int_equal(seen.calls, 0);
    assert_int_equal(STAT(r, frees), 1001);
    for (int i = 1; i < 3000; i += 3)
        for (int k = 0; k < 16; k++)
            assert_int_equal((unsigned char)objs[i][k], i & 0xff);
    reap_free(r, objs[3]);
    reap_free(r, side);
    assert_int_equal(seen.calls, 2);
    reap_set_misuse_handler(NULL, NULL);
    rp_heap_check(r);
    reap_clear(r);
    char *p = reap_malloc(r, 16), *q = reap_malloc(r, 16);
    assert_int_equal(q - p, 16); /* a region again */
    reap_destroy(r);
}

/* realloc keeps a shrinking object, grows the last one where it is, and
 * moves one that something follows, freeing the old block. */
static void region_realloc(void **state)
{
    (void)state;
    reap_t *r = region_reap();
    char *a = reap_malloc(r, 100);
    memset(a, 7, 100);
    assert_ptr_equal(reap_realloc(r, a, 50), a);
    char *g = reap_realloc(r, a, 300); /* a is the last block: it grows */
    assert_ptr_equal(g, a);
    char *b = reap_malloc(r, 10);
    assert_int_equal(b - a, 304);
    char *m = reap_realloc(r, a, 600);
    assert_ptr_not_equal(m, a);
    for (int k = 0; k < 100; k++)
        assert_int_equal(m[k], 7);
    misuse_seen_t seen = {0};
    reap_set_misuse_handler(note_misuse, &seen);
    reap_free(r, a); /* the move freed it */
    reap_set_misuse_handler(NULL, NULL);
    assert_int_equal(seen.kind, REAP_MISUSE_DOUBLE_FREE);
    char *z = reap_malloc(r, 8);
    assert_null(reap_realloc(r, z, 0)); /* frees */
    assert_int_equal(STAT(r, live_objects), 2);
    reap_destroy(r);
}

/* Over-aligned objects and large ones in a region. */
static void region_aligned_and_large(void **state)
{
    (void)state;
    reap_t *r = region_reap();
    assert_non_null(reap_malloc(r, 8));
    char *p = reap_aligned_alloc(r, 64, 100);
    assert_non_null(p);
    assert_true(((uintptr_t)p & 63) == 0);
    memset(p, 1, 100);
    uint64_t fp = reap_footprint(r, NULL);
    char *big = reap_malloc(r, rp_opt.large_threshold + 1);
    assert_non_null(big);
    assert_true(reap_footprint(r, NULL) > fp);
    misuse_seen_t seen = {0};
    reap_set_misuse_handler(note_misuse, &seen);
    reap_discard(r, big); /* a large object goes back at once */
    assert_int_equal(reap_footprint(r, NULL), fp);
    reap_discard(r, p);
    reap_discard(r, p);
    reap_set_misuse_handler(NULL, NULL);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.kind, REAP_MISUSE_DOUBLE_FREE);
    assert_int_equal(STAT(r, live_objects), 1);
    reap_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunks_double_up_to_the_cap),
        cmocka_unit_test(a_big_tail_waits_on_the_heap),
        cmocka_unit_test(a_big_request_gets_a_side_chunk),
        cmocka_unit_test(an_empty_retired_chunk_goes_back),
        cmocka_unit_test(an_empty_retired_chunk_goes_back_when_quick_blocks_join),
        cmocka_unit_test(large_objects_have_their_own_blocks),
        cmocka_unit_test(clear_keeps_the_first_chunk_only),
        cmocka_unit_test(clear_of_an_untouched_reap_only_counts),
        cmocka_unit_test(base_gets_everything_back),
        cmocka_unit_test(chunks_come_from_the_source_and_go_back),
        cmocka_unit_test(a_limit_counts_the_source_chunks),
        cmocka_unit_test(a_region_start_needs_an_untouched_reap_of_8_byte_alignment),
        cmocka_unit_test(a_region_packs_objects_without_headers),
        cmocka_unit_test(the_first_free_gives_later_objects_headers),
        cmocka_unit_test(a_discard_leaves_a_region_one),
        cmocka_unit_test(a_region_uses_its_discards_before_a_new_chunk),
        cmocka_unit_test(a_discard_is_cut_to_the_request),
        cmocka_unit_test(a_write_to_a_discarded_object_is_caught),
        cmocka_unit_test(closing_or_clearing_a_region_drops_its_discards),
        cmocka_unit_test(growing_arrays_take_fewer_chunks),
        cmocka_unit_test(region_objects_report_misuse),
        cmocka_unit_test(region_frees_find_their_chunk),
        cmocka_unit_test(region_realloc),
        cmocka_unit_test(region_aligned_and_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
