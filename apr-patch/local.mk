# apr-patch: APR pools made into reaps.
#
# The patched APR is not built by make: apr-patch/build-apr.sh fetches
# Debian's APR 1.7.2 source, applies apr-patch/*.patch and installs the
# library into $(REAP_APR_DIR), after `make install` has put libreap into
# $(prefix).  The tests below therefore build only at `make check` time,
# against that installation, and find both libraries through rpaths.
EXTRA_DIST += apr-patch/README.md apr-patch/build-apr.sh \
	apr-patch/make-patches.sh \
	apr-patch/01-apr_pools-h-pfree.patch \
	apr-patch/02-apr_pools-c-reaps.patch \
	tests/apr/httpd-smoke.sh

if HAVE_CMOCKA
APR_TEST_COMPILE = $(AM_CFLAGS) $(CMOCKA_CFLAGS) \
	-I$(REAP_APR_DIR)/include/apr-1
APR_TEST_LINK = -L$(REAP_APR_DIR)/lib -Wl,-rpath,$(REAP_APR_DIR)/lib \
	-L$(libdir) -Wl,-rpath,$(libdir)

check_PROGRAMS += tests/apr/test_apr_pools
tests_apr_test_apr_pools_SOURCES = tests/apr/test_apr_pools.c
tests_apr_test_apr_pools_CFLAGS = $(APR_TEST_COMPILE)
tests_apr_test_apr_pools_LDFLAGS = $(APR_TEST_LINK)
tests_apr_test_apr_pools_LDADD = -lapr-1 -lreap $(CMOCKA_LIBS)
TESTS += tests/apr/test_apr_pools
endif

# Debian's apache2 on the patched APR.  It reads REAP_APR_DIR from the
# environment and defaults to ./install/apr (the quickstart's layout).
TESTS += tests/apr/httpd-smoke.sh

# A benchmark, built by `make check` but not run by it: it prints figures
# for whichever libapr-1 it loads (see its header comment).
check_PROGRAMS += apr-patch/pool_bench
apr_patch_pool_bench_SOURCES = apr-patch/pool_bench.c
apr_patch_pool_bench_CFLAGS = $(AM_CFLAGS) -I$(REAP_APR_DIR)/include/apr-1
apr_patch_pool_bench_LDFLAGS = -L$(REAP_APR_DIR)/lib \
	-Wl,-rpath,$(REAP_APR_DIR)/lib -Wl,-rpath,$(libdir)
apr_patch_pool_bench_LDADD = -lapr-1 -ldl
