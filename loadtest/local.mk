# loadtest: benchmarks (never run by make check) and the wrk load test of httpd.
# reapbench compares reaps with Debian's APR pools and with malloc/free.
if HAVE_APR
noinst_PROGRAMS += loadtest/reapbench
loadtest_reapbench_SOURCES = loadtest/reapbench.c
loadtest_reapbench_CFLAGS = $(AM_CFLAGS) $(APR_CFLAGS) -O2
loadtest_reapbench_LDADD = libreap/libreap.la $(APR_LIBS)
endif

include loadtest/mt/local.mk

# loadtest/wrk: the wrk load test of httpd on stock APR pools against reaps
# (run.sh, scenario.lua, the bc programs it sends).  The full sweep is run
# by hand (loadtest/wrk/README.md); `make check` runs its --quick mode,
# which starts Debian's apache2 with the apxs-built mod_reap and mod_bc, and
# writes its results under loadtest/wrk-check/ of the build tree.
# profile.sh (callgrind: instructions a static request costs on each APR)
# is run by hand too; `make check` runs it for 2 s (profile-check.sh).
WRK_FILES = loadtest/wrk/run.sh loadtest/wrk/scenario.lua loadtest/wrk/pool.py \
	loadtest/wrk/quick-test.sh loadtest/wrk/README.md \
	loadtest/wrk/profile.sh loadtest/wrk/profile_compare.py loadtest/wrk/profile-check.sh \
	loadtest/wrk/programs/small.expr loadtest/wrk/programs/medium.bc \
	loadtest/wrk/programs/bad-syntax.bc loadtest/wrk/programs/bad-runtime.bc \
	loadtest/wrk/programs/bad-depth.bc loadtest/wrk/programs/bad-output.bc \
	loadtest/wrk/programs/bad-memory.bc loadtest/wrk/programs/bad-time.bc
EXTRA_DIST += $(WRK_FILES)
if HAVE_APXS
TESTS += loadtest/wrk/quick-test.sh loadtest/wrk/profile-check.sh
endif
clean-local: clean-loadtest-wrk
clean-loadtest-wrk:
	rm -rf loadtest/wrk-check loadtest/profile-check apr-stock-sym
.PHONY: clean-loadtest-wrk

# loadtest/soak: the soak test (soak.sh, soak.lua): apache2 with mod_reap
# and mod_bc under wrk with valid and hostile bc programs and truncated
# requests; it fails on a crash, a wrong answer or status, or RSS growing
# from the second to the last third of the run.  `make check` runs
# check.sh (SOAK_SECONDS [120]), results under loadtest/results/ of the
# build tree; the 300 s run for the README is loadtest/soak/soak.sh BUILD_DIR.
SOAK_FILES = loadtest/soak/soak.sh loadtest/soak/soak.lua loadtest/soak/check.sh
EXTRA_DIST += $(SOAK_FILES)
if HAVE_APXS
TESTS += loadtest/soak/check.sh
endif
