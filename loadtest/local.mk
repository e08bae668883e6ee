# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# loadtest: benchmarks (never run by make check) and the wrk load test of httpd.
# reapbench compares reaps with Debian's APR pools and with malloc/free.
if HAVE_APR
noinst_PROGRAMS += loadtest/reapbench
loadtest_reapbench_SOURCES = loadtest/reapbench.c tools/mimalloc-dl.h
loadtest_reapbench_CFLAGS = $(AM_CFLAGS) $(APR_CFLAGS) $(TALLOC_CFLAGS) -O2
loadtest_reapbench_LDADD = libreap/libreap.la $(APR_LIBS) $(TALLOC_LIBS) -ldl
if HAVE_TALLOC
loadtest_reapbench_CFLAGS += -DREAPBENCH_TALLOC=1
endif
endif

include loadtest/mt/local.mk

# loadtest/wrk: the wrk load test of httpd on stock APR pools against reaps
# (run.sh, scenario.lua, the bc programs it sends).  The full sweep is run
# by hand (loadtest/wrk/README.md); `make check-httpd` runs its --quick mode,
# which starts Debian's apache2 with the apxs-built mod_reap and mod_bc, and
# writes its results under loadtest/wrk-check/ of the build tree.
# profile.sh (callgrind: instructions a static request costs on each APR)
# is run by hand too; `make check-httpd` runs it for 2 s (profile-check.sh).
WRK_FILES = loadtest/wrk/run.sh loadtest/wrk/scenario.lua loadtest/wrk/pool.py \
	loadtest/wrk/quick-test.sh loadtest/wrk/README.md \
	loadtest/wrk/profile.sh loadtest/wrk/profile_compare.py loadtest/wrk/profile-check.sh \
	loadtest/wrk/stock-apr-sym.sh loadtest/lib.sh \
	loadtest/wrk/programs/small.expr loadtest/wrk/programs/medium.bc \
	loadtest/wrk/programs/bad-syntax.bc loadtest/wrk/programs/bad-runtime.bc \
	loadtest/wrk/programs/bad-depth.bc loadtest/wrk/programs/bad-output.bc \
	loadtest/wrk/programs/bad-memory.bc loadtest/wrk/programs/bad-time.bc
EXTRA_DIST += $(WRK_FILES)
if HAVE_APXS
HTTPD_TESTS += loadtest/wrk/quick-test.sh loadtest/wrk/profile-check.sh
endif
clean-local: clean-loadtest-wrk
clean-loadtest-wrk:
	rm -rf loadtest/wrk-check loadtest/profile-check apr-stock-sym apr-stock-malloc loadtest/h2-check
.PHONY: clean-loadtest-wrk

# loadtest/h2: the HTTP/2 scenario (issue 25): apache2 with mod_http2 under
# h2load, h2c and TLS, stock APR against reaps, with and without
# MaxMemFree 128: req/s, peak RSS, RSS 6 s after the load, and RSS over
# time (loadtest/h2/README.md).  The full run is by hand; `make
# check-httpd` runs --quick (quick-test.sh, about 1.5 minutes), results
# under loadtest/h2-check/ of the build tree.
H2_FILES = loadtest/h2/run.sh loadtest/h2/quick-test.sh loadtest/h2/README.md
EXTRA_DIST += $(H2_FILES)

# Allocation traces of apache2 per kind of request (issue 29, docs/trace.md).
EXTRA_DIST += loadtest/trace/scenarios.sh
if HAVE_APXS
HTTPD_TESTS += loadtest/h2/quick-test.sh
endif

# loadtest/soak: the soak test (soak.sh, soak.lua, check.sh): apache2 with
# mod_reap and mod_bc under wrk, in phases, with valid and hostile bc
# programs and truncated requests.  It fails on a crash, a wrong answer or
# status, a request sent but neither answered nor in flight, an error-log
# line above notice that it does not expect, or memory that grows: the
# pools' footprint and the base allocator's bytes in use, read in the
# quiet gap after each phase, must end within max(10%, 2 MiB) of the
# first phase.  `make check-soak` runs check.sh (SOAK_SECONDS [120] in
# SOAK_PHASES [4]), results under loadtest/results/ of the build tree; the
# 300 s run of docs/benchmarks.md is loadtest/soak/soak.sh BUILD_DIR.
SOAK_FILES = loadtest/soak/soak.sh loadtest/soak/soak.lua loadtest/soak/check.sh
EXTRA_DIST += $(SOAK_FILES)
# The result files docs/benchmarks.md cites, and the commands that make them.
EXTRA_DIST += loadtest/results/regenerate.sh
if HAVE_APXS
SOAK_TESTS += loadtest/soak/check.sh
endif
