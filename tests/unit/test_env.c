/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * test_env.c - unit tests of the REAP_* reader (libreap/src/util/env.c): sizes
 * with and without suffixes are read, and a malformed, overflowing or
 * out-of-range value, or one not a power of two where that is asked for,
 * keeps the default and is reported on stderr with the variable's name,
 * in one line; so is a word not in an option's list of words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/env.h"

#define DEFAULT 12345

/* Reads one option with rp_env_read; what it wrote on stderr goes to err. */
static void capture_read(const rp_env_option_t *opt, char *err, size_t errlen)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fds[1], 2) >= 0);
    rp_env_read(opt, 1);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    close(fds[1]);
    ssize_t n = read(fds[0], err, errlen - 1);
    close(fds[0]);
    err[n > 0 ? n : 0] = '\0';
}

/* Reads REAP_TEST_SIZE=text into a fresh option (1 .. 2^40) and returns
 * the value; what the reader wrote on stderr goes to err. */
static size_t read_one(const char *text, char *err, size_t errlen)
{
    size_t v = DEFAULT;
    const rp_env_option_t opt = {"REAP_TEST_SIZE", &v, 1, (size_t)1 << 40, false, NULL};
    setenv("REAP_TEST_SIZE", text, 1);
    capture_read(&opt, err, errlen);
    unsetenv("REAP_TEST_SIZE");
    return v;
}

static void test_sizes_read(void **state)
{
    (void)state;
    char err[512];
    static const struct {
        const char *text;
        size_t value;
    } ok[] = {{"1", 1},
              {"4096", 4096},
              {"64k", 64u << 10},
              {"64K", 64u << 10},
              {"3m", 3u << 20},
              {"2g", (size_t)2 << 30},
              {"1024G", (size_t)1 << 40}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(read_one(ok[i].text, err, sizeof err), ok[i].value);
        assert_string_equal(err, "");
    }
}

static void test_bad_values_reported(void **state)
{
    (void)state;
    char err[512];
    static const char *const malformed[] = {"", "k", "1x", "12kb", "-1", " 1", "1.5m",
                                            "99999999999999999999", "18446744073709551615g"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        assert_int_equal(read_one(malformed[i], err, sizeof err), DEFAULT);
        assert_non_null(strstr(err, "REAP_TEST_SIZE"));
        assert_non_null(strstr(err, "not a size"));
        assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1); /* one line */
    }
    static const char *const out_of_range[] = {"0", "1025g"};
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++) {
        assert_int_equal(read_one(out_of_range[i], err, sizeof err), DEFAULT);
        assert_non_null(strstr(err, "REAP_TEST_SIZE"));
        assert_non_null(strstr(err, "not in 1.."));
    }
}

/* An option that asks for a power of two (REAP_SUPERBLOCK) keeps its
 * default for any other size, and says so. */
static void test_power_of_two(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t value;
    } cases[] = {{"64k", 64u << 10}, {"96k", DEFAULT}, {"1m", 1u << 20}, {"3", DEFAULT}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t v = DEFAULT;
        const rp_env_option_t opt = {"REAP_TEST_POW2", &v, 1, (size_t)1 << 40, true, NULL};
        char err[512];
        setenv("REAP_TEST_POW2", cases[i].text, 1);
        capture_read(&opt, err, sizeof err);
        unsetenv("REAP_TEST_POW2");
        assert_int_equal(v, cases[i].value);
        if (cases[i].value == DEFAULT) {
            assert_non_null(strstr(err, "REAP_TEST_POW2"));
            assert_non_null(strstr(err, "not a power of two"));
        } else {
            assert_string_equal(err, "");
        }
    }
}

/* An option read as one of a list of words (REAP_MISUSE=abort|report)
 * takes the index of the word set; any other text keeps the default and
 * the report names the words. */
static void test_words(void **state)
{
    (void)state;
    static const char *const words[] = {"abort", "report", NULL};
    static const struct {
        const char *text;
        size_t value;
    } cases[] = {{"abort", 0}, {"report", 1}, {"Report", DEFAULT}, {"1", DEFAULT}, {"", DEFAULT}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t v = DEFAULT;
        const rp_env_option_t opt = {"REAP_TEST_WORD", &v, 0, 1, false, words};
        char err[512];
        setenv("REAP_TEST_WORD", cases[i].text, 1);
        capture_read(&opt, err, sizeof err);
        unsetenv("REAP_TEST_WORD");
        assert_int_equal(v, cases[i].value);
        if (cases[i].value == DEFAULT) {
            assert_non_null(strstr(err, "REAP_TEST_WORD"));
            assert_non_null(strstr(err, "not abort or report"));
            assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1); /* one line */
        } else {
            assert_string_equal(err, "");
        }
    }
}

/* An unset variable keeps the default silently. */
static void test_unset_silent(void **state)
{
    (void)state;
    size_t v = DEFAULT;
    const rp_env_option_t opt = {"REAP_TEST_UNSET", &v, 0, 100, false, NULL};
    unsetenv("REAP_TEST_UNSET");
    rp_env_read(&opt, 1);
    assert_int_equal(v, DEFAULT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_read),
        cmocka_unit_test(test_bad_values_reported),
        cmocka_unit_test(test_power_of_two),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_unset_silent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
