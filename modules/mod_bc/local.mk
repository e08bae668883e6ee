# modules/mod_bc: the bc interpreter (a convenience library, reused by the
# httpd module), the reap-bc command-line tool, and the bc tests, which
# compare reap-bc with Debian's GNU bc (/usr/bin/bc) byte for byte.
noinst_LTLIBRARIES += modules/mod_bc/libbc.la
modules_mod_bc_libbc_la_SOURCES = \
	modules/mod_bc/bc.h \
	modules/mod_bc/bcint.h \
	modules/mod_bc/mag.h \
	modules/mod_bc/bc.c \
	modules/mod_bc/lex.c \
	modules/mod_bc/parse.c \
	modules/mod_bc/eval.c \
	modules/mod_bc/symbols.c \
	modules/mod_bc/output.c \
	modules/mod_bc/num.c \
	modules/mod_bc/numio.c \
	modules/mod_bc/mag.c \
	modules/mod_bc/mathlib.c
# The arithmetic is the hot path of every benchmark: always optimise it.
modules_mod_bc_libbc_la_CFLAGS = $(AM_CFLAGS) -O2

bin_PROGRAMS += modules/mod_bc/reap-bc
modules_mod_bc_reap_bc_SOURCES = modules/mod_bc/reap-bc.c
modules_mod_bc_reap_bc_CFLAGS = $(AM_CFLAGS) -O2
modules_mod_bc_reap_bc_LDADD = modules/mod_bc/libbc.la libreap/libreap.la
# Link libreap in statically: one self-contained binary, no libtool wrapper
# script in the build tree (the benchmarks would time the wrapper too).
modules_mod_bc_reap_bc_LDFLAGS = -static -pthread

# Tests: test_api checks the embedding API (out-of-memory at every
# allocation, pool mode, threads, limits, streams), test_mag the big-integer
# kernels against a schoolbook reference.  The scripts run from the top
# build directory, find reap-bc there and the corpus through $(srcdir), and
# compare reap-bc with /usr/bin/bc (the Debian package bc).
check_PROGRAMS += tests/bc/test_api
tests_bc_test_api_SOURCES = tests/bc/test_api.c
tests_bc_test_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/modules/mod_bc
tests_bc_test_api_LDADD = modules/mod_bc/libbc.la
tests_bc_test_api_LDFLAGS = -pthread
check_PROGRAMS += tests/bc/test_mag
tests_bc_test_mag_SOURCES = tests/bc/test_mag.c
tests_bc_test_mag_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/modules/mod_bc
tests_bc_test_mag_LDADD = modules/mod_bc/libbc.la

BC_TESTS = tests/bc/corpus.sh tests/bc/random.sh tests/bc/limits.sh \
	tests/bc/read.sh
TESTS += tests/bc/test_api tests/bc/test_mag $(BC_TESTS)
EXTRA_DIST += modules/mod_bc/README.md $(BC_TESTS) tests/bc/common.sh tests/bc/gen.py \
	tests/bc/corpus loadtest/bc-bench.sh loadtest/bc
