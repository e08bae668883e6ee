/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_misuse.c - each misuse is reported in exactly one line on stderr
 * naming the pointer and the reap, then the process aborts; with
 * REAP_MISUSE=report it goes on, and the reap stays sound; a handler set
 * with reap_set_misuse_handler() gets the reports instead.
 *
 * Each case runs in a fresh process: the test runs itself again
 * (/proc/self/exe --case NAME) with REAP_MISUSE set, since libreap reads
 * it once.  The case writes the reap and the pointer it is about to
 * misuse on fd 3 (printf's %p, as the report writes them), then misuses
 * them; when it survives (report mode) it checks the reap is sound and
 * exits 0.  The parent builds the expected line from the case's template
 * and compares the child's whole stderr with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "reap.h"

/* ---- the cases, run in the child ------------------------------------------- */

#define ADDR_FD 3

static void say(reap_t *r, const void *p)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%p %p\n", (void *)r, p);
    if (write(ADDR_FD, line, (size_t)n) != n)
        _exit(3);
}

static void child_fail(const char *what)
{
    printf("child: %s\n", what);
    fflush(stdout);
    _exit(4);
}

/* After a misuse that was let go: the reap holds `live' objects, hands
 * out distinct objects (a double free did not put one block on the heap
 * twice), and keeps what the program writes apart through frees and
 * reuse. */
static void check_sound(reap_t *r, uint64_t live)
{
    reap_stats_t s;
    reap_get_stats(r, &s);
    if (s.live_objects != live)
        child_fail("live_objects changed by the misuse");
    enum { N = 300 };
    unsigned char *obj[N];
    for (int i = 0; i < N; i++) {
        size_t n = 8 + (size_t)(i * 37 % 300);
        obj[i] = reap_malloc(r, n);
        if (!obj[i])
            child_fail("malloc failed");
        memset(obj[i], i & 0xff, n);
    }
    for (int i = 0; i < N; i += 2)
        reap_free(r, obj[i]);
    for (int i = 0; i < N; i += 2) {
        size_t n = 8 + (size_t)(i * 37 % 300);
        obj[i] = reap_malloc(r, n);
        memset(obj[i], i & 0xff, n);
    }
    for (int i = 0; i < N; i++) {
        size_t n = 8 + (size_t)(i * 37 % 300);
        for (size_t k = 0; k < n; k++)
            if (obj[i][k] != (i & 0xff))
                child_fail("objects overlap");
        for (int j = 0; j < i; j++)
            if (obj[j] == obj[i])
                child_fail("one object handed out twice");
    }
}

static void double_free_case(void)
{
    reap_t *r = reap_create(NULL);
    void *p = reap_malloc(r, 100);
    reap_malloc(r, 10);
    reap_free(r, p);
    say(r, p);
    reap_free(r, p);
    check_sound(r, 1);
}

static void double_free_after_coalescing_case(void)
{
    reap_t *r = reap_create(NULL);
    void *a = reap_malloc(r, 100);
    void *p = reap_malloc(r, 100);
    reap_malloc(r, 10);
    reap_free(r, a);
    reap_free(r, p); /* merges into a's free block */
    say(r, p);
    reap_free(r, p);
    check_sound(r, 1);
}

/* A reap over its limit: the first free gives the block back to the
 * frontier, and freeing it again is still a double free (found by
 * fuzz/fuzz_reap when lists could not be made). */
static void double_free_under_limit_case(void)
{
    reap_t *r = reap_create(NULL);
    reap_set_limit(r, 1);
    void *p = reap_malloc(r, 200);
    reap_malloc(r, 5638); /* refused: not in the first chunk, and the limit passed */
    reap_free(r, p);
    reap_stats_t s, t;
    reap_get_stats(r, &s);
    say(r, p);
    reap_free(r, p);
    reap_get_stats(r, &t);
    if (t.live_objects != s.live_objects || t.frees != s.frees)
        child_fail("live_objects changed by the misuse");
}

/* A block of 8 bytes, freed between two in use: freeing it again is caught,
 * in a reap of 8-byte alignment as the reap-backed APR makes. */
static void double_free_small_case(void)
{
    reap_t *r = reap_create(NULL);
    if (reap_set_alignment(r, 8) != 0)
        child_fail("a new reap refused 8-byte alignment");
    reap_malloc(r, 8);
    void *p = reap_malloc(r, 8);
    reap_malloc(r, 8);
    reap_free(r, p);
    say(r, p);
    reap_free(r, p);
    check_sound(r, 2);
}

static void other_reaps_pointer_case(void)
{
    reap_t *other = reap_create(NULL);
    reap_t *r = reap_create(NULL);
    reap_malloc(r, 10);
    void *p = reap_malloc(other, 100);
    say(r, p);
    reap_free(r, p);
    check_sound(r, 1);
    check_sound(other, 1);
}

/* A libc block: libreap reads nothing at the pointer, only its address
 * map, so any pointer may be passed. */
static void libc_pointer_case(void)
{
    reap_t *r = reap_create(NULL);
    char *block = malloc(100), *p = block;
    say(r, p);
    reap_free(r, p);
    check_sound(r, 0);
    free(block); /* report mode left it alone: it is still malloc's */
}

static void interior_pointer_case(void)
{
    reap_t *r = reap_create(NULL);
    char *obj = reap_calloc(r, 1, 200);
    say(r, obj + 8);
    reap_free(r, obj + 8);
    check_sound(r, 1);
}

/* At 8-byte alignment, obj + 8 is as aligned as an object: the start
 * bits alone must catch it. */
static void interior_pointer_grain8_case(void)
{
    reap_t *r = reap_create(NULL);
    if (reap_set_alignment(r, 8) != 0)
        child_fail("a new reap refused 8-byte alignment");
    char *obj = reap_calloc(r, 1, 200);
    say(r, obj + 8);
    reap_free(r, obj + 8);
    check_sound(r, 1);
}

/* A reap that has lists (it freed a block not at its frontier) runs the
 * fast free's own checks rather than going the slow way: obj + 1 is
 * neither aligned nor a start there either. */
static reap_t *reap_with_lists(void)
{
    reap_t *r = reap_create(NULL);
    void *x = reap_malloc(r, 40);
    reap_malloc(r, 40);
    reap_free(r, x);
    return r;
}

static void misaligned_pointer_case(void)
{
    reap_t *r = reap_with_lists();
    char *obj = reap_malloc(r, 100);
    reap_malloc(r, 10);
    say(r, obj + 1);
    reap_free(r, obj + 1);
    check_sound(r, 3);
}

/* The same for a block of another reap, not the last before its frontier. */
static void other_reaps_pointer_with_lists_case(void)
{
    reap_t *other = reap_create(NULL);
    reap_t *r = reap_with_lists();
    void *p = reap_malloc(other, 100);
    reap_malloc(other, 10);
    say(r, p);
    reap_free(r, p);
    check_sound(r, 1);
    check_sound(other, 2);
}

/* Inside a large object (a solo chunk): only its start is an object. */
static void large_interior_case(void)
{
    reap_t *r = reap_create(NULL);
    char *big = reap_malloc(r, 20000);
    say(r, big + 16);
    reap_free(r, big + 16);
    check_sound(r, 1);
}

/* A large object freed twice, its chunk back in the base allocator and
 * not used again yet: the descriptor's inverted key tells it. */
static void large_double_free_case(void)
{
    reap_t *r = reap_create(NULL);
    void *big = reap_malloc(r, 20000);
    reap_free(r, big);
    say(r, big);
    reap_free(r, big);
    check_sound(r, 0);
}

static void null_reap_free_case(void)
{
    reap_t *real = reap_create(NULL);
    void *p = reap_malloc(real, 10);
    say(NULL, p);
    reap_free(NULL, p);
    check_sound(real, 1);
}

static void null_reap_malloc_case(void)
{
    say(NULL, NULL);
    if (reap_malloc(NULL, 10) != NULL || errno != EINVAL)
        child_fail("reap_malloc(NULL) did not fail with EINVAL");
}

static void null_reap_malloc_inline_case(void)
{
    say(NULL, NULL);
    if (reap_malloc_inline(NULL, 10) != NULL) /* reap.h's inline path hands NULL on */
        child_fail("reap_malloc_inline(NULL) did not fail");
}

static void null_reap_clear_case(void)
{
    say(NULL, NULL);
    reap_clear(NULL);
}

static void realloc_foreign_case(void)
{
    reap_t *other = reap_create(NULL);
    reap_t *r = reap_create(NULL);
    void *p = reap_malloc(other, 50);
    say(r, p);
    if (reap_realloc(r, p, 500) != NULL)
        child_fail("realloc of a foreign pointer returned an object");
    check_sound(r, 0);
    check_sound(other, 1);
}

static void realloc_freed_case(void)
{
    reap_t *r = reap_create(NULL);
    void *p = reap_malloc(r, 100);
    reap_malloc(r, 10);
    reap_free(r, p);
    say(r, p);
    if (reap_realloc(r, p, 500) != NULL || errno != EINVAL)
        child_fail("realloc of a freed pointer did not fail with EINVAL");
    check_sound(r, 1);
}

/* realloc(r, p, 0) frees p: of a freed p it is still a realloc misuse. */
static void realloc_freed_to_zero_case(void)
{
    reap_t *r = reap_create(NULL);
    void *p = reap_malloc(r, 100);
    reap_malloc(r, 10);
    reap_free(r, p);
    say(r, p);
    reap_realloc(r, p, 0);
    check_sound(r, 1);
}

/* The expected line: %R is the reap, %P the pointer, as %p prints them. */
static const struct misuse_case {
    const char *name;
    void (*fn)(void);
    const char *line;
} cases[] = {
    {"double_free", double_free_case, "libreap: double free of %P (reap %R)"},
    {"double_free_merged", double_free_after_coalescing_case, "libreap: double free of %P (reap %R)"},
    {"double_free_limited", double_free_under_limit_case, "libreap: double free of %P (reap %R)"},
    {"double_free_small", double_free_small_case, "libreap: double free of %P (reap %R)"},
    {"other_reap", other_reaps_pointer_case,
     "libreap: free of a pointer this reap did not hand out: %P (reap %R)"},
    {"libc_pointer", libc_pointer_case, "libreap: free of a pointer this reap did not hand out: %P (reap %R)"},
    {"interior_pointer", interior_pointer_case,
     "libreap: free of a pointer this reap did not hand out: %P (reap %R)"},
    {"misaligned_pointer", misaligned_pointer_case,
     "libreap: free of a pointer this reap did not hand out: %P (reap %R)"},
    {"other_reap_with_lists", other_reaps_pointer_with_lists_case,
     "libreap: free of a pointer this reap did not hand out: %P (reap %R)"},
    {"large_interior", large_interior_case,
     "libreap: free of a pointer this reap did not hand out: %P (reap %R)"},
    {"large_double_free", large_double_free_case, "libreap: double free of %P (reap %R)"},
    {"interior_pointer_grain8", interior_pointer_grain8_case,
     "libreap: free of a pointer this reap did not hand out: %P (reap %R)"},
    {"null_free", null_reap_free_case, "libreap: NULL reap passed to reap_free (pointer %P)"},
    {"null_malloc", null_reap_malloc_case, "libreap: NULL reap passed to reap_malloc"},
    {"null_malloc_inline", null_reap_malloc_inline_case, "libreap: NULL reap passed to reap_malloc"},
    {"null_clear", null_reap_clear_case, "libreap: NULL reap passed to reap_clear"},
    {"realloc_foreign", realloc_foreign_case,
     "libreap: realloc of a pointer this reap did not hand out: %P (reap %R)"},
    {"realloc_freed", realloc_freed_case, "libreap: realloc of a freed pointer %P (reap %R)"},
    {"realloc_freed_to_zero", realloc_freed_to_zero_case, "libreap: realloc of a freed pointer %P (reap %R)"},
};
#define NCASES (sizeof cases / sizeof cases[0])

static int run_named(const char *name)
{
    for (size_t i = 0; i < NCASES; i++) {
        if (strcmp(cases[i].name, name) == 0) {
            cases[i].fn();
            return 0;
        }
    }
    return 5;
}

/* ---- the parent ---------------------------------------------------------------- */

typedef struct outcome {
    char err[2048]; /* the child's whole stderr */
    char out[512];  /* its stdout (child_fail says why) */
    char reap[64], ptr[64];
    int signal, status;
} outcome_t;

static size_t read_all(int fd, char *buf, size_t len)
{
    size_t got = 0;
    ssize_t n;
    while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
    return got;
}

/* Runs case name in a fresh process with REAP_MISUSE=mode. */
static outcome_t run_case(const char *name, const char *mode)
{
    outcome_t o;
    memset(&o, 0, sizeof o);
    int err[2], out[2], addr[2];
    assert_int_equal(pipe(err), 0);
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(addr), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(err[1], 2);
        dup2(out[1], 1);
        dup2(addr[1], ADDR_FD);
        setenv("REAP_MISUSE", mode, 1);
        execl("/proc/self/exe", "test_misuse", "--case", name, (char *)NULL);
        _exit(6);
    }
    close(err[1]);
    close(out[1]);
    close(addr[1]);
    /* stderr first: the child blocks on nothing else (stdout and fd 3
     * carry a line or two, well within a pipe) */
    read_all(err[0], o.err, sizeof o.err);
    read_all(out[0], o.out, sizeof o.out);
    char addrs[160];
    read_all(addr[0], addrs, sizeof addrs);
    if (sscanf(addrs, "%63s %63s", o.reap, o.ptr) != 2)
        fail_msg("case %s said no addresses (stderr: %s)", name, o.err);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    o.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    o.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    close(err[0]);
    close(out[0]);
    close(addr[0]);
    return o;
}

/* The case's template with %R and %P replaced, and a newline. */
static void expected_line(const char *tmpl, const outcome_t *o, char *buf, size_t len)
{
    size_t at = 0;
    for (const char *s = tmpl; *s && at + 1 < len; s++) {
        const char *add = NULL;
        if (s[0] == '%' && (s[1] == 'R' || s[1] == 'P'))
            add = *++s == 'R' ? o->reap : o->ptr;
        at += (size_t)snprintf(buf + at, len - at, "%s", add ? add : (char[]){*s, 0});
    }
    snprintf(buf + at, len - at, "\n");
}

static void expect_case(const struct misuse_case *c, bool report)
{
    outcome_t o = run_case(c->name, report ? "report" : "abort");
    char want[512];
    expected_line(c->line, &o, want, sizeof want);
    if (strcmp(o.err, want) != 0)
        fail_msg("case %s (%s): stderr\n  %s\nexpected exactly\n  %s", c->name,
                 report ? "report" : "abort", o.err, want);
    if (report) {
        if (o.signal != 0 || o.status != 0)
            fail_msg("case %s went on under REAP_MISUSE=report but then failed (signal %d, status %d): %s",
                     c->name, o.signal, o.status, o.out);
    } else if (o.signal != SIGABRT) {
        fail_msg("case %s: expected SIGABRT, got signal %d, status %d", c->name, o.signal, o.status);
    }
}

static void test_abort(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCASES; i++)
        expect_case(&cases[i], false);
}

static void test_report(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCASES; i++)
        expect_case(&cases[i], true);
}

/* ---- the handler, in process ---------------------------------------------------- */

typedef struct seen {
    int calls;
    reap_misuse_t m;
    char message[256];
    char user[16];
    int answer;
    jmp_buf *escape;
} seen_t;

static int record(const reap_misuse_t *m, void *arg)
{
    seen_t *s = arg;
    s->calls++;
    s->m = *m;
    snprintf(s->message, sizeof s->message, "%s", m->message);
    if (m->reap && reap_user_area(m->reap))
        memcpy(s->user, reap_user_area(m->reap), sizeof s->user);
    if (s->escape)
        longjmp(*s->escape, 1);
    return s->answer;
}

/* Runs fn with stderr in buf. */
static void with_stderr(void (*fn)(void *), void *arg, char *buf, size_t len)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int saved = dup(2);
    dup2(fds[1], 2);
    close(fds[1]);
    fn(arg);
    dup2(saved, 2);
    close(saved);
    read_all(fds[0], buf, len);
    close(fds[0]);
}

/* After a double free that was reported and left alone, the object's
 * memory is used again once, not twice: enough requests of its size to
 * fill a few chunks get it at most once, all of them apart. */
static void assert_handed_out_once(reap_t *r, const char *p)
{
    enum { N = 600 };
    char *q[N];
    int got = 0;
    for (int i = 0; i < N; i++) {
        assert_non_null(q[i] = reap_malloc(r, 64));
        memset(q[i], i & 0xff, 64);
        got += q[i] == p;
    }
    assert_true(got <= 1);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 64; k++)
            assert_int_equal((unsigned char)q[i][k], i & 0xff);
}

static void free_twice(void *arg)
{
    void **rp = arg;
    reap_free(rp[0], rp[1]);
}

/* A handler that says "leak" gets the kind, the pointer, the reap (its
 * user area too, where APR keeps the pool) and the line; nothing reaches
 * stderr, and the reap goes on, sound. */
static void handler_leaks(void **state)
{
    (void)state;
    reap_options_t opts = {.user_size = 16};
    reap_t *r = reap_create_ex(NULL, &opts);
    memcpy(reap_user_area(r), "apr_pool_t here", 16);
    char *p = reap_malloc(r, 64);
    reap_malloc(r, 8);
    reap_free(r, p);
    seen_t s = {.answer = REAP_MISUSE_LEAK};
    reap_set_misuse_handler(record, &s);
    char err[256];
    void *args[2] = {r, p};
    with_stderr(free_twice, args, err, sizeof err);
    reap_set_misuse_handler(NULL, NULL);
    assert_int_equal(s.calls, 1);
    assert_int_equal(s.m.kind, REAP_MISUSE_DOUBLE_FREE);
    assert_ptr_equal(s.m.reap, r);
    assert_ptr_equal(s.m.ptr, p);
    assert_string_equal(s.user, "apr_pool_t here");
    char want[256];
    snprintf(want, sizeof want, "libreap: double free of %p (reap %p)", (void *)p, (void *)r);
    assert_string_equal(s.message, want);
    assert_string_equal(err, "");
    assert_handed_out_once(r, p);
    reap_destroy(r);
}

/* The handler may longjmp out; libreap changed nothing before calling it. */
static void handler_longjmps(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *p = reap_malloc(r, 64);
    reap_malloc(r, 8);
    reap_free(r, p);
    jmp_buf escape;
    seen_t s = {.escape = &escape};
    reap_set_misuse_handler(record, &s);
    if (setjmp(escape) == 0) {
        reap_free(r, p);
        fail_msg("double free not caught");
    }
    reap_set_misuse_handler(NULL, NULL);
    assert_int_equal(s.m.kind, REAP_MISUSE_DOUBLE_FREE);
    assert_handed_out_once(r, p); /* nothing was corrupted */
    reap_destroy(r);
}

/* A handler that says "abort" aborts, whatever REAP_MISUSE says. */
static void handler_aborts(void **state)
{
    (void)state;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", 1);
        dup2(devnull, 2);
        reap_t *r = reap_create(NULL);
        seen_t s = {.answer = REAP_MISUSE_ABORT};
        reap_set_misuse_handler(record, &s);
        char *p = reap_malloc(r, 64);
        reap_free(r, p + 16); /* foreign */
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--case") == 0)
        return run_named(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_report),
        cmocka_unit_test(handler_leaks),
        cmocka_unit_test(handler_longjmps),
        cmocka_unit_test(handler_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
