# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# apr-patch: APR pools made into reaps.
#
# apr-patch/src/ holds the project's apr_pools.c and apr_pools.h at their
# paths in APR's tree (and APR's thread_cond.c, apr_hash.c and apr_tables.c
# with small changes); PRISTINE.sha256 records the Debian APR 1.7.2 files
# they replace.  Two builds use them:
#
#   make check      (fast tier) tests/apr/test_apr_pools and
#                   test_apr_tables: apr_pools.c, apr_hash.c, apr_tables.c
#                   compiled into the test program against Debian's APR
#                   headers (libapr1-dev) and the project's apr_pools.h.
#                   Every other APR function comes from Debian's libapr-1;
#                   the program's own pool functions interpose on the
#                   library's, so the library's calls (apr_pstrdup, ...)
#                   reach them too.  No download, no APR build.
#   make check-apr  (slow tier) apr-patch/build-apr.sh: Debian's APR source
#                   with the files dropped in, built and installed into
#                   $(REAP_APR_DIR), then APR's and apr-util's own suites.
#                   apache2 runs on that library (make check-httpd).
#
#   make apr-diff   the unified diff, pristine against apr-patch/src/, for
#                   those who want a patch (a Debian quilt patch, say):
#                   apr-patch/reap-pools.diff in the build tree.
# tools/srcpatch.sh: sourced by build-apr.sh and httpd-patch/build-modules.sh.
# The changed files one by one, not apr-patch/src: automake copies a
# listed directory from the build tree when it has one, and a build inside
# the source tree puts its objects under apr-patch/src/ (which the
# manifest check of an unpacked tarball's build-apr.sh then refuses).
EXTRA_DIST += apr-patch/README.md apr-patch/build-apr.sh \
	apr-patch/PRISTINE.sha256 tests/apr/httpd-smoke.sh tools/srcpatch.sh \
	apr-patch/src/include/apr_pools.h apr-patch/src/locks/unix/thread_cond.c \
	apr-patch/src/memory/unix/apr_pools.c apr-patch/src/tables/apr_hash.c \
	apr-patch/src/tables/apr_tables.c

REAP_APR_POOLS_SRC = apr-patch/src/memory/unix/apr_pools.c
REAP_APR_POOLS_HDR = apr-patch/src/include/apr_pools.h
# The hash tables and tables, with the frees of issue 29 (docs/trace.md).
REAP_APR_TABLES_SRC = apr-patch/src/tables/apr_hash.c \
	apr-patch/src/tables/apr_tables.c
# Debian's APR headers with the project's apr_pools.h in place of the stock
# one, copied into one directory of the build tree: APR's headers include
# "apr_pools.h" with quotes, which looks beside the including header first,
# so an -I path ahead of Debian's would not replace it.
REAP_APR_INCDIR = tests/apr/apr-include
REAP_APR_POOLS_CPPFLAGS = -I$(REAP_APR_INCDIR) \
	-I$(top_srcdir)/tests/apr/shim $(AM_CPPFLAGS)

if HAVE_APR
BUILT_SOURCES += $(REAP_APR_INCDIR)/.stamp
$(REAP_APR_INCDIR)/.stamp: $(top_srcdir)/$(REAP_APR_POOLS_HDR) Makefile
	rm -rf $(REAP_APR_INCDIR) && $(MKDIR_P) $(REAP_APR_INCDIR)
	cp `$(PKG_CONFIG) --variable=includedir apr-1`/*.h $(REAP_APR_INCDIR)/
	cp $(top_srcdir)/$(REAP_APR_POOLS_HDR) $(REAP_APR_INCDIR)/apr_pools.h
	touch $@

if HAVE_CMOCKA
# The pool code, compiled with Debian's APR compile flags; it is APR's code
# and keeps APR's style, so the project's extra warnings stay off.
check_LTLIBRARIES = tests/apr/libaprpools.la
tests_apr_libaprpools_la_SOURCES = $(REAP_APR_POOLS_SRC) $(REAP_APR_POOLS_HDR) \
	$(REAP_APR_TABLES_SRC) tests/apr/shim/apr_private.h
tests_apr_libaprpools_la_CPPFLAGS = $(REAP_APR_POOLS_CPPFLAGS)
tests_apr_libaprpools_la_CFLAGS = $(APR_CFLAGS) $(PTHREAD_CFLAGS) -Wall \
	$(REAP_LIB_SAN_CFLAGS)
# A convenience library that is never installed: no -rpath.
tests_apr_libaprpools_la_LDFLAGS = -static

# The test programs: the pool and table code above, libreap, the rest of
# APR from Debian's libapr-1.
REAP_APR_TEST_CFLAGS = $(AM_CFLAGS) $(APR_CFLAGS) $(CMOCKA_CFLAGS)
REAP_APR_TEST_LDADD = tests/apr/libaprpools.la libreap/libreap.la \
	$(APR_LIBS) $(CMOCKA_LIBS)
check_PROGRAMS += tests/apr/test_apr_pools tests/apr/test_apr_tables
tests_apr_test_apr_pools_SOURCES = tests/apr/test_apr_pools.c tests/apr/pool_fixture.h
tests_apr_test_apr_pools_CPPFLAGS = $(REAP_APR_POOLS_CPPFLAGS)
tests_apr_test_apr_pools_CFLAGS = $(REAP_APR_TEST_CFLAGS)
tests_apr_test_apr_pools_LDADD = $(REAP_APR_TEST_LDADD)
tests_apr_test_apr_tables_SOURCES = tests/apr/test_apr_tables.c tests/apr/pool_fixture.h
tests_apr_test_apr_tables_CPPFLAGS = $(REAP_APR_POOLS_CPPFLAGS)
tests_apr_test_apr_tables_CFLAGS = $(REAP_APR_TEST_CFLAGS)
tests_apr_test_apr_tables_LDADD = $(REAP_APR_TEST_LDADD)
FAST_TESTS += tests/apr/test_apr_pools tests/apr/test_apr_tables
$(tests_apr_libaprpools_la_OBJECTS) $(tests_apr_test_apr_pools_OBJECTS) \
	$(tests_apr_test_apr_tables_OBJECTS): $(REAP_APR_INCDIR)/.stamp
endif
endif

# The patched APR, built from Debian's source into REAP_APR_DIR (by default
# <build>/install/apr), where the apache2 tests (make check-httpd) and
# pool_bench find it.  apr-build makes it (quickly, when it is there
# already); check-apr also runs APR's own suite and apr-util's on it (slow
# tier).  It links the build tree's libreap (REAP_LINK_DIR, so that
# libtool adds no other directory), with a RUNPATH to it: a test build
# writes nothing outside the build directory (the packages build it their
# own way, debian/rules).
BUILD_APR = $(top_srcdir)/apr-patch/build-apr.sh --build-dir $(abs_top_builddir)
BUILD_APR_INSTALL = $(BUILD_APR) --prefix $(REAP_APR_DIR) \
	--reap-libdir $(abs_top_builddir)/$(REAP_LINK_DIR) \
	--reap-includedir $(abs_top_srcdir)/libreap/include --jobs $(APR_JOBS)
APR_JOBS = 2

apr-build: $(REAP_LINK_DIR)/libreap.so
	$(BUILD_APR_INSTALL)

check-apr: $(REAP_LINK_DIR)/libreap.so
	$(BUILD_APR_INSTALL) --check --check-aprutil

apr-diff:
	$(BUILD_APR) --diff apr-patch/reap-pools.diff
CLEANFILES += apr-patch/reap-pools.diff

# Debian's apache2 on the patched APR (slow tier: make check-httpd).  It
# reads REAP_APR_DIR from the environment.
HTTPD_TESTS += tests/apr/httpd-smoke.sh

# A benchmark, not a test: prints pool costs for whichever libapr-1 it
# loads (see its header comment).  Built against Debian's APR headers; it
# finds apr_pfree at run time.
if HAVE_APR
noinst_PROGRAMS += apr-patch/pool_bench
apr_patch_pool_bench_SOURCES = apr-patch/pool_bench.c
apr_patch_pool_bench_CFLAGS = $(AM_CFLAGS) $(APR_CFLAGS)
apr_patch_pool_bench_LDADD = $(APR_LIBS) -ldl
endif

clean-local: clean-apr-headers
clean-apr-headers:
	rm -rf $(REAP_APR_INCDIR)

.PHONY: apr-build check-apr apr-diff clean-apr-headers
