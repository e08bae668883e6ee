/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * output.c - the program's standard output: buffering, the output limit and
 * GNU bc's line splitting.
 *
 * Every byte a program prints passes through bc_out_char(), which counts the
 * column: when a line already holds line_length-2 characters and another
 * (not a newline) comes, a backslash and a newline go first, exactly where
 * GNU bc breaks.  Bytes are buffered and handed to the embedder's writer.
 */
#include <string.h>
#include "bcint.h"

void bc_out_flush(bc_ctx *c)
{
    if (c->olen) {
        c->cfg.out(c->cfg.out_ud, c->obuf, c->olen);
        c->olen = 0;
    }
}

static void put(bc_ctx *c, char ch)
{
    if (c->cfg.max_output && c->out_bytes >= c->cfg.max_output) {
        bc_out_flush(c);
        bc_fail(c, BC_ERR_OUTPUT, "output limit of %zu bytes reached",
                c->cfg.max_output);
    }
    c->out_bytes++;
    c->obuf[c->olen++] = ch;
    if (c->olen == sizeof c->obuf)
        bc_out_flush(c);
}

void bc_out_char(bc_ctx *c, int ch)
{
    if (ch == '\n') {
        c->out_col = 0;
        put(c, '\n');
        return;
    }
    if (c->cfg.line_length && ++c->out_col == c->cfg.line_length - 1) {
        put(c, '\\');
        put(c, '\n');
        c->out_col = 1;
    }
    put(c, (char)ch);
}
