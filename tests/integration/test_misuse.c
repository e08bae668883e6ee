/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_misuse.c - misuse is reported with the reap and the pointer, then
 * the process aborts.  Each case runs in a forked child whose stderr is
 * captured; the test checks the child died of SIGABRT and named both
 * addresses.  The handler hook is checked in-process with longjmp.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reap.h"

typedef struct report {
    char text[1024];
    int signal;
} report_t;

/* Run fn in a child; fn writes the reap and pointer it misuses to *r, *p
 * before misusing them (via a pipe of its own: the child's memory is gone). */
typedef void (*case_fn)(reap_t **r, void **p, int fd);

static void say(int fd, reap_t *r, void *p)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%p %p\n", (void *)r, p);
    if (write(fd, line, (size_t)n) != n)
        _exit(3);
}

static report_t run_case(case_fn fn, char *expect_reap, char *expect_ptr)
{
    int err[2], addr[2];
    report_t rep = {{0}, 0};
    assert_int_equal(pipe(err), 0);
    assert_int_equal(pipe(addr), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(err[1], 2);
        close(err[0]);
        close(addr[0]);
        reap_t *r = NULL;
        void *p = NULL;
        fn(&r, &p, addr[1]);
        _exit(0); /* not reached when misuse is caught */
    }
    close(err[1]);
    close(addr[1]);
    size_t len = 0;
    ssize_t n;
    while ((n = read(err[0], rep.text + len, sizeof rep.text - 1 - len)) > 0)
        len += (size_t)n;
    char addrs[128] = {0};
    n = read(addr[0], addrs, sizeof addrs - 1);
    assert_true(n > 0);
    assert_int_equal(sscanf(addrs, "%63s %63s", expect_reap, expect_ptr), 2);
    int status;
    waitpid(pid, &status, 0);
    rep.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    close(err[0]);
    close(addr[0]);
    return rep;
}

static void expect_report(case_fn fn, const char *words)
{
    char reap_s[64], ptr_s[64];
    report_t rep = run_case(fn, reap_s, ptr_s);
    assert_int_equal(rep.signal, SIGABRT);
    if (!strstr(rep.text, words))
        fail_msg("expected \"%s\" in: %s", words, rep.text);
    if (strcmp(ptr_s, "(nil)") != 0 && !strstr(rep.text, ptr_s))
        fail_msg("pointer %s not named in: %s", ptr_s, rep.text);
    if (!strstr(rep.text, reap_s))
        fail_msg("reap %s not named in: %s", reap_s, rep.text);
}

static void double_free_case(reap_t **r, void **p, int fd)
{
    *r = reap_create(NULL);
    *p = reap_malloc(*r, 100);
    reap_malloc(*r, 10);
    reap_free(*r, *p);
    say(fd, *r, *p);
    reap_free(*r, *p);
}

static void double_free_after_coalescing_case(reap_t **r, void **p, int fd)
{
    *r = reap_create(NULL);
    void *a = reap_malloc(*r, 100);
    *p = reap_malloc(*r, 100);
    reap_malloc(*r, 10);
    reap_free(*r, a);
    reap_free(*r, *p); /* merges into a's free block */
    say(fd, *r, *p);
    reap_free(*r, *p);
}

/* The first free cannot make the bin table (the limit is below the
 * footprint), so the block waits on the reap's lost list: freeing it again
 * must still be caught (found by fuzz/fuzz_reap). */
static void double_free_under_limit_case(reap_t **r, void **p, int fd)
{
    *r = reap_create(NULL);
    reap_set_limit(*r, 1);
    *p = reap_malloc(*r, 672);
    reap_malloc(*r, 5638); /* the first chunk has no room left for the bins */
    reap_free(*r, *p);
    say(fd, *r, *p);
    reap_free(*r, *p);
}

static void other_reaps_pointer_case(reap_t **r, void **p, int fd)
{
    reap_t *other = reap_create(NULL);
    *r = reap_create(NULL);
    reap_malloc(*r, 10);
    *p = reap_malloc(other, 100);
    say(fd, *r, *p);
    reap_free(*r, *p);
}

/* ThreadSanitizer's malloc may start a block right after unmapped memory,
 * where reap_free's read of the header would fault before libreap could
 * report; there the pointer is one into a libc block, header zeroed.  (ASan
 * leaves a redzone before every block, and libreap's own loads are not
 * checked: the plain case runs there as in a normal build.) */
#if defined(__SANITIZE_THREAD__)
#define MALLOC_WITHOUT_HEADER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MALLOC_WITHOUT_HEADER 1
#endif
#endif

static void libc_pointer_case(reap_t **r, void **p, int fd)
{
    *r = reap_create(NULL);
    *p = malloc(100);
#ifdef MALLOC_WITHOUT_HEADER
    memset(*p, 0, 100);
    *p = (char *)*p + 32;
#endif
    say(fd, *r, *p);
    reap_free(*r, *p);
}

static void interior_pointer_case(reap_t **r, void **p, int fd)
{
    *r = reap_create(NULL);
    char *obj = reap_calloc(*r, 1, 200);
    *p = obj + 8;
    say(fd, *r, *p);
    reap_free(*r, *p);
}

static void null_reap_free_case(reap_t **r, void **p, int fd)
{
    reap_t *real = reap_create(NULL);
    *p = reap_malloc(real, 10);
    *r = NULL;
    say(fd, *r, *p);
    reap_free(NULL, *p);
}

static void null_reap_malloc_case(reap_t **r, void **p, int fd)
{
    *r = NULL;
    *p = NULL;
    say(fd, *r, *p);
    reap_malloc(NULL, 10);
}

static void null_reap_malloc_inline_case(reap_t **r, void **p, int fd)
{
    *r = NULL;
    *p = NULL;
    say(fd, *r, *p);
    reap_malloc_inline(NULL, 10); /* reap.h's inline path hands NULL on */
}

static void null_reap_clear_case(reap_t **r, void **p, int fd)
{
    *r = NULL;
    *p = NULL;
    say(fd, *r, *p);
    reap_clear(NULL);
}

static void realloc_foreign_case(reap_t **r, void **p, int fd)
{
    reap_t *other = reap_create(NULL);
    *r = reap_create(NULL);
    *p = reap_malloc(other, 50);
    say(fd, *r, *p);
    reap_realloc(*r, *p, 500);
}

static void double_free(void **s) { (void)s; expect_report(double_free_case, "double free"); }
static void double_free_merged(void **s) { (void)s; expect_report(double_free_after_coalescing_case, "double free"); }
static void double_free_limited(void **s) { (void)s; expect_report(double_free_under_limit_case, "double free"); }
static void other_reap(void **s) { (void)s; expect_report(other_reaps_pointer_case, "did not hand out"); }
static void libc_pointer(void **s) { (void)s; expect_report(libc_pointer_case, "did not hand out"); }
static void interior_pointer(void **s) { (void)s; expect_report(interior_pointer_case, "did not hand out"); }
static void null_free(void **s) { (void)s; expect_report(null_reap_free_case, "NULL reap"); }
static void null_malloc(void **s) { (void)s; expect_report(null_reap_malloc_case, "NULL reap"); }
static void null_malloc_inline(void **s) { (void)s; expect_report(null_reap_malloc_inline_case, "NULL reap"); }
static void null_clear(void **s) { (void)s; expect_report(null_reap_clear_case, "NULL reap"); }
static void realloc_foreign(void **s) { (void)s; expect_report(realloc_foreign_case, "did not hand out"); }

static jmp_buf escape;
static const void *seen_ptr;
static const reap_t *seen_reap;

static void catch_misuse(const char *message, const reap_t *r, const void *p)
{
    (void)message;
    seen_reap = r;
    seen_ptr = p;
    longjmp(escape, 1);
}

static void handler_sees_reap_and_pointer(void **state)
{
    (void)state;
    reap_t *r = reap_create(NULL);
    char *p = reap_malloc(r, 64);
    reap_malloc(r, 8);
    reap_free(r, p);
    reap_set_misuse_handler(catch_misuse);
    if (setjmp(escape) == 0) {
        reap_free(r, p);
        fail_msg("double free not caught");
    }
    reap_set_misuse_handler(NULL);
    assert_ptr_equal(seen_reap, r);
    assert_ptr_equal(seen_ptr, p);
    assert_ptr_equal(reap_malloc(r, 64), p); /* nothing was corrupted */
    reap_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(double_free),
        cmocka_unit_test(double_free_merged),
        cmocka_unit_test(double_free_limited),
        cmocka_unit_test(other_reap),
        cmocka_unit_test(libc_pointer),
        cmocka_unit_test(interior_pointer),
        cmocka_unit_test(null_free),
        cmocka_unit_test(null_malloc),
        cmocka_unit_test(null_malloc_inline),
        cmocka_unit_test(null_clear),
        cmocka_unit_test(realloc_foreign),
        cmocka_unit_test(handler_sees_reap_and_pointer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
