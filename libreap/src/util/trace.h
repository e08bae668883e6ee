/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * trace.h - allocation traces (REAP_TRACE=prefix): the file format, its
 * varint helpers, and the recorder both libraries share (trace.c).
 *
 * With REAP_TRACE=prefix in the environment, libreap records every reap
 * create, clear, destroy, tag, allocation, free and realloc, and
 * libreap-malloc.so every malloc, free, realloc, calloc and memalign (as
 * allocations in the "malloc" pseudo-reap, id 0), into prefix.<pid>: one
 * file per process, shared by both libraries when a program has both.
 * tools/reap-trace reads it back (replay, plot, top); docs/trace.md says
 * how to use it.
 *
 * File format, version 4.  Version 1 had no ALIGN, 2 no REGION or DISCARD;
 * 4 writes neither of those two (every reap has one block format, and a
 * library's own frees are frees), which readers still take from version 3
 * files.  All integers are unsigned LEB128 varints (7 bits a byte, low
 * first, high bit set on every byte but the last) unless said.
 *
 *   header   8 bytes "REAPTRC1", then varints: version (4), flags (bit 0:
 *            the process is a fork child, which may free objects and use
 *            reaps its parent made before the fork), pid.
 *   block*   one per flush of one thread's buffer, appended with a single
 *            write(2) to a file opened O_APPEND, so blocks never interleave:
 *              byte 'B', varint source (0 libreap, 1 libreap-malloc),
 *              varint thread (small integers from 1, per source),
 *              varint base (CLOCK_MONOTONIC ns of the block's first event),
 *              varint length (bytes of events that follow), events.
 *
 * An event is a byte, its kind (rp_trace_kind below), a varint dt (ns after
 * the previous event of the block; the first is dt after base), and its
 * fields.  Pointers (reap ids, objects) are written as a zigzag varint of
 * the difference from the previous pointer written in the block (which
 * starts at 0), so neighbouring objects cost a byte or two:
 *
 *   CREATE   reap, parent (0: top level)
 *   CLEAR    reap          (its children are destroyed: no event for them)
 *   DESTROY  reap          (its children too)
 *   ALLOC    reap, size, object
 *   FREE     reap, object
 *   REALLOC  reap, old object, new object, size   (old may equal new)
 *   TAG      reap, length, that many bytes (the tag, at most 255)
 *   ALIGN    reap, alignment (reap_set_alignment; before its first ALLOC)
 *   REGION   reap          (version 3 only: reap_start_as_region)
 *   DISCARD  reap, object  (version 3 only: reap_discard, a FREE)
 *
 * Reap ids are the reap's address, so one can come back after a destroy;
 * reap id 0 is the malloc pseudo-reap, which is never created, cleared or
 * destroyed.  Allocations that fail are not recorded.  Events of one thread
 * are in the order it made them; across threads the reader merges by time
 * (frees first on a tie).
 */
#ifndef RP_TRACE_H
#define RP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"

#define RP_TRACE_MAGIC "REAPTRC1"
#define RP_TRACE_VERSION 4
#define RP_TRACE_FORKED 1u /* header flag */
#define RP_TRACE_BLOCK 'B'
#define RP_TRACE_TAG_MAX 255

typedef enum rp_trace_kind {
    RP_TRACE_CREATE = 1,
    RP_TRACE_CLEAR,
    RP_TRACE_DESTROY,
    RP_TRACE_ALLOC,
    RP_TRACE_FREE,
    RP_TRACE_REALLOC,
    RP_TRACE_TAG,
    RP_TRACE_ALIGN,
    RP_TRACE_REGION,
    RP_TRACE_DISCARD,
    RP_TRACE_KIND_END
} rp_trace_kind_t;

typedef enum rp_trace_source {
    RP_TRACE_REAPS = 0,  /* libreap */
    RP_TRACE_MALLOC = 1  /* libreap-malloc.so */
} rp_trace_source_t;

/* ---- varints ------------------------------------------------------------ */

#define RP_VARINT_MAX 10 /* bytes of a 64-bit varint at most */

/* Write v at p; returns the end. */
static inline uint8_t *rp_varint_put(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Read a varint from [*p, end) into *v; false (and *p unchanged) when it
 * runs past end or over 64 bits. */
static inline bool rp_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    const uint8_t *q = *p;
    for (unsigned shift = 0; q < end && shift < 64; shift += 7) {
        uint8_t b = *q++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            *p = q;
            return true;
        }
    }
    return false;
}

static inline uint64_t rp_zigzag(int64_t d) { return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63); }
static inline int64_t rp_unzigzag(uint64_t z) { return (int64_t)(z >> 1) ^ -(int64_t)(z & 1); }

/* ---- the recorder (trace.c) --------------------------------------------- */

/* Non-zero while this library records: the one test on every operation.
 * In libreap-malloc.so it is also non-zero before the first malloc has
 * read REAP_TRACE (rp_trace_alloc and friends then read it). */
extern int rp_trace_state RP_INTERNAL;
/* rp_trace_state, read as the atomic it is (a failing write turns tracing
 * off while other threads test it): a plain load on every target. */
static inline int rp_tracing(void) { return __atomic_load_n(&rp_trace_state, __ATOMIC_RELAXED); }

/* Read REAP_TRACE once and start recording for source if it is set; safe
 * inside the first malloc of a program (it does not allocate). */
void rp_trace_init(rp_trace_source_t source);

/* The events; each returns at once when tracing is off.  r is a reap id
 * (0 for malloc's).  None allocates, calls malloc or takes a lock other
 * than the file's, and only on a flush. */
void rp_trace_create(const void *r, const void *parent);
void rp_trace_reap(rp_trace_kind_t kind, const void *r); /* CLEAR, DESTROY */
void rp_trace_alloc(const void *r, size_t size, const void *p);
void rp_trace_free(const void *r, const void *p);
void rp_trace_realloc(const void *r, const void *old, const void *p, size_t size);
void rp_trace_tag(const void *r, const char *tag);
void rp_trace_align(const void *r, size_t alignment);

/* Write out every thread's buffered events (at exit; tests). */
void rp_trace_flush_all(void);

#endif /* RP_TRACE_H */
