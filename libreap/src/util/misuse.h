/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * misuse.h - what both layers do when a program misuses them: one line on
 * stderr, then abort or go on, as REAP_MISUSE says.
 *
 * A report is one line ("libreap: double free of 0x5581...") built in a
 * buffer on the stack and written with a single write(2): no stdio, no
 * allocation, so it works inside malloc, with the heap in any state, and
 * lines from two threads do not interleave.  Pointers are written as
 * glibc's %p writes them (0x and lowercase hex, "(nil)" for NULL).
 *
 * rp_misuse_mode is REAP_MISUSE, read with the base allocator's tunables
 * (base/hoard_options.c: both libreap.so and libreap-malloc.so have that
 * table, and no misuse can be found before the base allocator is set up,
 * except a NULL reap, whose report reads the options first).  The reaps'
 * report adds the handler of reap_set_misuse_handler() (reap.c).
 */
#ifndef RP_MISUSE_H
#define RP_MISUSE_H

#include <stdbool.h>
#include <stddef.h>

#include "common.h"

/* REAP_MISUSE: the index of the word in rp_misuse_words. */
enum { RP_MISUSE_ABORT = 0, RP_MISUSE_REPORT = 1 };
extern size_t rp_misuse_mode RP_INTERNAL;
extern const char *const rp_misuse_words[] RP_INTERNAL; /* "abort", "report", NULL */

/* A report being built: at most RP_LINE_MAX bytes, cut short beyond. */
#define RP_LINE_MAX 240
typedef struct rp_line {
    char text[RP_LINE_MAX + 2]; /* room for "\n" and NUL */
    size_t len;
} rp_line_t;

void rp_line_str(rp_line_t *l, const char *s);
void rp_line_ptr(rp_line_t *l, const void *p);
/* Writes the line and a newline to fd 2 with one write(2). */
void rp_line_write(rp_line_t *l);

#endif /* RP_MISUSE_H */
