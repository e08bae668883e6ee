# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# Unit tests (one per libreap source file, may see internals through
# libreap_core.la) and integration tests (public API only, libreap.la).
if HAVE_CMOCKA
UNIT_LDADD = libreap/libreap_core.la $(CMOCKA_LIBS)
UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -I$(top_srcdir)/libreap/src $(REAP_LIB_SAN_CFLAGS)

REAP_TESTS = tests/unit/test_leaheap tests/unit/test_region \
	tests/unit/test_reap tests/unit/test_alloc tests/unit/test_stats \
	tests/unit/test_env tests/unit/test_options tests/integration/test_api \
	tests/integration/test_model \
	tests/integration/test_threads tests/integration/test_misuse \
	tests/integration/test_walk
tests_unit_test_leaheap_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_leaheap_LDADD = $(UNIT_LDADD)
tests_unit_test_region_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_region_LDADD = $(UNIT_LDADD)
tests_unit_test_reap_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_reap_LDADD = $(UNIT_LDADD)
tests_unit_test_alloc_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_alloc_LDADD = $(UNIT_LDADD)
tests_unit_test_stats_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stats_LDADD = $(UNIT_LDADD)
tests_unit_test_env_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_env_LDADD = $(UNIT_LDADD)
tests_unit_test_options_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_options_LDADD = $(UNIT_LDADD)

INTEG_LDADD = libreap/libreap.la $(CMOCKA_LIBS)
INTEG_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_integration_test_api_CFLAGS = $(INTEG_CFLAGS)
tests_integration_test_api_LDADD = $(INTEG_LDADD)
tests_integration_test_model_CFLAGS = $(INTEG_CFLAGS)
tests_integration_test_model_LDADD = $(INTEG_LDADD)
tests_integration_test_threads_CFLAGS = $(INTEG_CFLAGS)
tests_integration_test_threads_LDADD = $(INTEG_LDADD)
tests_integration_test_misuse_CFLAGS = $(INTEG_CFLAGS)
tests_integration_test_misuse_LDADD = $(INTEG_LDADD)
# test_walk: reap_walk() among threads that change the tree.  Its locking is
# also checked under ThreadSanitizer by hand (no race report expected):
#   S=libreap/src; gcc -std=gnu11 -O1 -g -fsanitize=thread -pthread \
#     -I$S -Ilibreap/include tests/integration/test_walk.c $S/util/env.c \
#     $S/options.c $S/reap.c $S/alloc.c $S/region.c $S/leaheap.c \
#     $S/stats.c `ls $S/base/*.c | grep -v malloc.c` -lcmocka -o /tmp/test_walk_tsan
tests_integration_test_walk_CFLAGS = $(INTEG_CFLAGS)
tests_integration_test_walk_LDADD = $(INTEG_LDADD)

check_PROGRAMS += $(REAP_TESTS)
FAST_TESTS += $(REAP_TESTS)
endif

# tests/misuse-mutants.sh: each misuse check taken out must fail a test
# (run by hand; docs/misuse.md).
EXTRA_DIST += tests/misuse-mutants.sh
