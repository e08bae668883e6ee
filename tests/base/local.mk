# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# tests/base: the Hoard-style base allocator (libreap/src/base/).  Unit
# tests link libreap_hoard.la to see its internals; preload.sh runs real
# programs under libreap-malloc.so, misuse.sh misuses it (double and
# interior frees) and reads REAP_STATS_FILE; dlopen.sh loads libreap.so the
# way httpd loads a module.  tsan.sh rebuilds the stress test with ThreadSanitizer
# (make check-tsan; make check-sanitizers runs the whole fast tier under
# TSan, the stress test included).
PRELOAD_PROBES += tests/base/preload_probe tests/base/dlopen_probe tests/base/misuse_probe \
	tests/base/cxx_probe tests/base/cxx_plugin.so
check_PROGRAMS += $(PRELOAD_PROBES)
tests_base_preload_probe_SOURCES = tests/base/preload_probe.c
tests_base_preload_probe_LDADD = -ldl
# preload.sh: C++'s operator new and delete, which libreap-malloc.so replaces;
# cxx_plugin.so, a C++ library preload_probe opens with RTLD_LOCAL
tests_base_cxx_probe_SOURCES = tests/base/cxx_probe.cc
tests_base_cxx_probe_CXXFLAGS = -std=c++17 -Wall -Wextra -O2 -pthread
tests_base_cxx_probe_LDADD = -ldl
tests_base_cxx_plugin_so_SOURCES = tests/base/cxx_plugin.cc
tests_base_cxx_plugin_so_CXXFLAGS = -Wall -Wextra -O2 -fPIC -fvisibility=hidden
tests_base_cxx_plugin_so_LDFLAGS = -Xcompiler -shared
tests_base_dlopen_probe_SOURCES = tests/base/dlopen_probe.c
tests_base_dlopen_probe_LDADD = -ldl
# misuse.sh: double and interior frees under libreap-malloc.so, REAP_STATS_FILE
tests_base_misuse_probe_SOURCES = tests/base/misuse_probe.c

HOARD_CHECK_SH = tests/base/preload.sh tests/base/dlopen.sh tests/base/misuse.sh
FAST_TESTS += $(HOARD_CHECK_SH)
PRELOAD_TESTS += $(HOARD_CHECK_SH)
EXTRA_DIST += $(HOARD_CHECK_SH) tests/base/tsan.sh tests/base/invariant.h

if HAVE_CMOCKA
HOARD_TEST_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -I$(top_srcdir)/libreap/src
HOARD_TEST_LDADD = libreap/libreap_hoard.la $(CMOCKA_LIBS)
HOARD_TESTS = tests/base/test_sizeclass tests/base/test_superblock \
	tests/base/test_heap tests/base/test_large tests/base/test_release \
	tests/base/test_stress tests/base/test_tcache tests/base/test_space \
	tests/base/test_addrmap tests/base/test_release_thread
tests_base_test_sizeclass_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_sizeclass_LDADD = $(HOARD_TEST_LDADD)
tests_base_test_superblock_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_superblock_LDADD = $(HOARD_TEST_LDADD)
tests_base_test_heap_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_heap_LDADD = $(HOARD_TEST_LDADD)
tests_base_test_large_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_large_LDADD = $(HOARD_TEST_LDADD)
tests_base_test_release_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_release_LDADD = $(HOARD_TEST_LDADD)
tests_base_test_stress_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_stress_LDADD = $(HOARD_TEST_LDADD)
tests_base_test_tcache_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_tcache_LDADD = $(HOARD_TEST_LDADD)
tests_base_test_space_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_space_LDADD = $(HOARD_TEST_LDADD)
tests_base_test_addrmap_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_addrmap_LDADD = $(HOARD_TEST_LDADD)
tests_base_test_release_thread_CFLAGS = $(HOARD_TEST_CFLAGS)
tests_base_test_release_thread_LDADD = $(HOARD_TEST_LDADD)
check_PROGRAMS += $(HOARD_TESTS)
FAST_TESTS += $(HOARD_TESTS)
endif

# The ThreadSanitizer run alone: make check-tsan
check-tsan:
	srcdir=$(top_srcdir) $(SHELL) $(top_srcdir)/tests/base/tsan.sh
.PHONY: check-tsan
