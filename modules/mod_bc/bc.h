/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * bc.h - public API of the bc interpreter.
 *
 * An embeddable interpreter of the bc calculator language (POSIX bc plus the
 * GNU extensions) whose output matches GNU bc 1.07.1 byte for byte.  All of
 * its state lives in one bc_ctx_t, so any number of threads may each run
 * their own context at once.  It takes every byte of memory from the two
 * hooks of its configuration (in httpd apr_palloc on a request pool and
 * ap_pfree, in reap-bc a reap) and never touches global mutable state.
 *
 * Errors: bc_run() returns a bc_status; syntax and runtime errors of the
 * program are also reported as text through the configuration's error
 * writer, naming the input and line, as GNU bc does.
 */
#ifndef BC_H
#define BC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Memory hooks.  alloc returns NULL when out of memory (the interpreter then
 *  stops the program with BC_ERR_NOMEM); free may do nothing (pool mode). */
typedef void *(*bc_alloc_fn)(void *ud, size_t size);
typedef void (*bc_free_fn)(void *ud, void *ptr);

/** Output hook: @p n bytes at @p buf (not NUL-terminated). */
typedef void (*bc_write_fn)(void *ud, const char *buf, size_t n);

/**
 * A source of lines (bc_run_stream() and read()): the next piece of text,
 * ending at a newline except for the last; NULL at the end.  *@p len gets
 * its length; the text must stay valid until the next call.
 */
typedef const char *(*bc_read_fn)(void *ud, size_t *len);

/** Outcome of bc_run(); each limit has its own code. */
typedef enum bc_status {
    BC_OK = 0,          /**< input consumed (runtime errors may have been reported) */
    BC_QUIT,            /**< quit or halt ran: the embedder should stop reading */
    BC_ERR_SYNTAX,      /**< at least one syntax error was reported */
    BC_ERR_RUNTIME,     /**< at least one runtime error was reported */
    BC_ERR_NOMEM,       /**< the alloc hook returned NULL */
    BC_ERR_TIME,        /**< the time limit passed */
    BC_ERR_OUTPUT,      /**< the output limit was reached */
    BC_ERR_DEPTH,       /**< function calls nested deeper than the limit */
    BC_ERR_PROGSIZE     /**< the program text is larger than the limit */
} bc_status;

/** Configuration of a context; zero-initialise, then set what you need. */
typedef struct bc_config {
    bc_alloc_fn alloc;      /**< required */
    bc_free_fn free;        /**< required (may be a no-op) */
    void *mem_ud;           /**< passed to alloc and free */
    bc_write_fn out;        /**< standard output of the program; required */
    void *out_ud;
    bc_write_fn err;        /**< error and warning messages; NULL drops them */
    void *err_ud;
    double time_limit;      /**< seconds of wall-clock time per bc_run(), 0 = none */
    size_t max_output;      /**< bytes written through out, 0 = none */
    unsigned max_depth;     /**< nested function calls, 0 = 10000 */
    size_t max_stack;       /**< bytes of C stack the interpreter may use
                                 (deep recursion stops cleanly before the
                                 thread's stack ends), 0 = 1 MiB */
    size_t max_program;     /**< bytes of program text per bc_run(), 0 = none */
    int line_length;        /**< output line length, 0 = no splitting, <0 = 70 */
    int mathlib;            /**< non-zero: load the -l library and scale=20 */
    bc_read_fn input;       /**< where read() takes numbers from; NULL makes
                                 read() a runtime error */
    void *input_ud;
} bc_config_t;

typedef struct bc_ctx bc_ctx_t;

/**
 * Create a context: variables, arrays and functions persist across
 * bc_run() calls on it, as across the files given to bc.
 * @return the context, or NULL if @p cfg lacks a hook or memory ran out.
 */
bc_ctx_t *bc_create(const bc_config_t *cfg);

/**
 * Parse and run @p len bytes of bc program text.  Statements run line by
 * line as GNU bc runs them; errors are reported and the program goes on
 * with the next line, except for limits, which stop it.
 * @param name the input's name in messages, e.g. "(standard_in)" or a file.
 * @return the worst outcome (see bc_status).
 */
bc_status bc_run(bc_ctx_t *ctx, const char *src, size_t len, const char *name);

/**
 * Like bc_run(), but reads the program line by line from @p read, running
 * each line as soon as it is complete (as GNU bc does with a terminal or a
 * pipe), so input may be interactive or endless.
 */
bc_status bc_run_stream(bc_ctx_t *ctx, bc_read_fn read, void *ud,
                        const char *name);

/** @return a one-line English description of @p st. */
const char *bc_strstatus(bc_status st);

/** Free everything the context holds (through the free hook). */
void bc_destroy(bc_ctx_t *ctx);

#ifdef __cplusplus
}
#endif
#endif /* BC_H */
