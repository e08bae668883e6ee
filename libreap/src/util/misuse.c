/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * misuse.c - one-line misuse reports written with write(2) (see misuse.h).
 */
#include <stdint.h>
#include <unistd.h>

#include "misuse.h"

size_t rp_misuse_mode = RP_MISUSE_ABORT;
const char *const rp_misuse_words[] = {"abort", "report", NULL};

static void put(rp_line_t *l, char c)
{
    if (l->len < RP_LINE_MAX)
        l->text[l->len++] = c;
    l->text[l->len] = '\0';
}

void rp_line_str(rp_line_t *l, const char *s)
{
    while (*s)
        put(l, *s++);
}

void rp_line_ptr(rp_line_t *l, const void *p)
{
    if (p == NULL) {
        rp_line_str(l, "(nil)");
        return;
    }
    char hex[2 * sizeof(void *)], *d = hex + sizeof hex;
    for (uintptr_t v = (uintptr_t)p; v; v >>= 4)
        *--d = "0123456789abcdef"[v & 15];
    rp_line_str(l, "0x");
    while (d < hex + sizeof hex)
        put(l, *d++);
}

void rp_line_write(rp_line_t *l)
{
    l->text[l->len] = '\n';
    (void)!write(2, l->text, l->len + 1);
    l->text[l->len] = '\0';
}
