# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# fuzz/: libFuzzer targets, built with clang (Debian packages clang and
# libclang-rt-14-dev) into fuzz/ of the build tree, never by `make all` or
# `make check`; `make check-fuzz` is the tier that runs them (fuzz-smoke).
# See fuzz/README.md.
#
#   make fuzz-build    the fuzzers fuzz/fuzz_<t> and replay drivers
#                      fuzz/fuzz_<t>-replay (same code, a plain main() that
#                      runs the files given: for a debugger or Valgrind)
#   make fuzz-smoke    fuzz-build, then each target for FUZZ_SECONDS from a
#                      scratch copy of its seed corpus; fails on any finding
#
# Knobs (make VAR=value): CLANG (else `clang`), FUZZ_SECONDS (60),
# FUZZ_RSS_MB (2048), FUZZ_TIMEOUT (10 s per input; bc's own limit is 1 s),
# FUZZ_TARGETS (which to run), FUZZ_EXTRA_CFLAGS (more flags for the
# targets), FUZZ_REAP_ASAN=yes (build libreap
# itself with ASan and its object annotations, libreap/src/util/annotate.h).
# Targets do not record their flags: `make fuzz-clean` after changing those.
#
# The code under test is compiled from the sources listed for libreap_core
# and libbc, so the lists stay in one place.  libreap is compiled with
# coverage and UBSan but, by default, without ASan: its chunks come from
# mmap, not malloc, so the fuzzers find overlaps with their own patterns.
# FUZZ_NO_SANITIZE takes -fno-sanitize=... for a UBSan finding that must
# wait for its fix (none now).

FUZZ_CLANG = $(if $(CLANG),$(CLANG),clang)
FUZZ_SECONDS = 60
FUZZ_RSS_MB = 2048
FUZZ_TIMEOUT = 10
FUZZ_TARGETS = fuzz_reap fuzz_bc fuzz_bc_mathlib fuzz_apr
FUZZ_EXTRA_CFLAGS =
FUZZ_REAP_ASAN = no
FUZZ_NO_SANITIZE =

FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all $(FUZZ_NO_SANITIZE)
FUZZ_LIB_SAN = $(if $(filter yes,$(FUZZ_REAP_ASAN)),$(FUZZ_SAN) \
	-mllvm -asan-instrument-reads=0 -mllvm -asan-instrument-writes=0,\
	-fsanitize=undefined -fno-sanitize-recover=all $(FUZZ_NO_SANITIZE))
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -pthread -DREAP_STATIC \
	-I$(top_srcdir)/libreap/include -I$(top_srcdir)/fuzz \
	-I$(top_srcdir)/modules/mod_bc $(FUZZ_EXTRA_CFLAGS)
# fuzz_apr: the pool code of apr-patch/src/ compiled in, with the APR
# headers of the fast tier (apr-patch/local.mk), on Debian's libapr-1.
FUZZ_APR_CFLAGS = -I$(REAP_APR_INCDIR) -I$(top_srcdir)/tests/apr/shim $(APR_CFLAGS)
FUZZ_APR_LIBS = $(APR_LIBS)

FUZZ_REAP_SRCS = $(filter %.c,$(libreap_libreap_core_la_SOURCES))
FUZZ_BC_SRCS = $(filter %.c,$(modules_mod_bc_libbc_la_SOURCES))
FUZZ_INCS = $(top_srcdir)/fuzz/fuzz_input.h $(top_srcdir)/fuzz/fuzz_model.h $(top_srcdir)/libreap/include/reap.h \
	$(wildcard $(top_srcdir)/libreap/src/*.h $(top_srcdir)/libreap/src/base/*.h $(top_srcdir)/libreap/src/util/*.h \
	$(top_srcdir)/modules/mod_bc/*.h)
FUZZ_BIN = $(FUZZ_TARGETS:%=fuzz/%)
FUZZ_REPLAY = $(FUZZ_TARGETS:%=fuzz/%-replay)

EXTRA_DIST += fuzz/README.md fuzz/smoke.sh fuzz/driver.c fuzz/fuzz_input.h fuzz/fuzz_model.h \
	fuzz/fuzz_reap.c fuzz/fuzz_bc.c fuzz/fuzz_apr.c fuzz/corpus fuzz/crashes

# Each library once per configuration, as an archive of objects compiled
# with coverage (fuzzer-no-link); the name of each object is its source path.
fuzz/libreap-fuzz.a: $(FUZZ_REAP_SRCS:%=$(top_srcdir)/%) $(FUZZ_INCS)
	@mkdir -p fuzz/obj-reap && rm -f fuzz/obj-reap/*.o $@
	$(AM_V_CC)for s in $(FUZZ_REAP_SRCS); do \
	  $(FUZZ_CLANG) $(FUZZ_CFLAGS) $(FUZZ_LIB_SAN) -fsanitize=fuzzer-no-link \
	    -c $(top_srcdir)/$$s -o fuzz/obj-reap/`echo $$s | tr / _`.o || exit 1; \
	done; $(AR) rcs $@ fuzz/obj-reap/*.o

fuzz/libbc-fuzz.a: $(FUZZ_BC_SRCS:%=$(top_srcdir)/%) $(FUZZ_INCS)
	@mkdir -p fuzz/obj-bc && rm -f fuzz/obj-bc/*.o $@
	$(AM_V_CC)for s in $(FUZZ_BC_SRCS); do \
	  $(FUZZ_CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	    -c $(top_srcdir)/$$s -o fuzz/obj-bc/`echo $$s | tr / _`.o || exit 1; \
	done; $(AR) rcs $@ fuzz/obj-bc/*.o

fuzz/libaprpools-fuzz.a: $(top_srcdir)/$(REAP_APR_POOLS_SRC) $(REAP_APR_INCDIR)/.stamp $(FUZZ_INCS)
	@mkdir -p fuzz/obj-apr && rm -f fuzz/obj-apr/*.o $@
	$(AM_V_CC)$(FUZZ_CLANG) $(FUZZ_CFLAGS) $(FUZZ_APR_CFLAGS) $(FUZZ_LIB_SAN) \
	    -fsanitize=fuzzer-no-link -c $(top_srcdir)/$(REAP_APR_POOLS_SRC) \
	    -o fuzz/obj-apr/apr_pools.o && $(AR) rcs $@ fuzz/obj-apr/apr_pools.o

# FUZZ_LINK_<t>: what each target links besides its harness.
FUZZ_LINK_fuzz_reap = fuzz/libreap-fuzz.a
FUZZ_LINK_fuzz_bc = fuzz/libbc-fuzz.a fuzz/libreap-fuzz.a
FUZZ_LINK_fuzz_bc_mathlib = $(FUZZ_LINK_fuzz_bc)
# fuzz_apr: the pool functions and every reap_* of this tree go into the
# executable and are exported, so Debian's libapr-1 calls them, not its own
# pool functions.
FUZZ_LINK_fuzz_apr = -rdynamic -Wl,--whole-archive fuzz/libaprpools-fuzz.a \
	fuzz/libreap-fuzz.a -Wl,--no-whole-archive $(FUZZ_APR_LIBS)
FUZZ_DEFS_fuzz_bc_mathlib = -DFUZZ_BC_MATHLIB=1
FUZZ_DEFS_fuzz_apr = $(FUZZ_APR_CFLAGS)
FUZZ_SRC_fuzz_bc_mathlib = fuzz_bc

fuzz_src = $(top_srcdir)/fuzz/$(or $(FUZZ_SRC_$(1)),$(1)).c

fuzz/fuzz_reap fuzz/fuzz_reap-replay: fuzz/libreap-fuzz.a
fuzz/fuzz_bc fuzz/fuzz_bc-replay fuzz/fuzz_bc_mathlib fuzz/fuzz_bc_mathlib-replay: \
	fuzz/libbc-fuzz.a fuzz/libreap-fuzz.a
fuzz/fuzz_apr fuzz/fuzz_apr-replay: fuzz/libaprpools-fuzz.a fuzz/libreap-fuzz.a

$(FUZZ_BIN): fuzz/%: $(top_srcdir)/fuzz/fuzz_reap.c $(top_srcdir)/fuzz/fuzz_bc.c \
		$(top_srcdir)/fuzz/fuzz_apr.c $(FUZZ_INCS)
	$(AM_V_CCLD)$(FUZZ_CLANG) $(FUZZ_CFLAGS) $(FUZZ_DEFS_$*) $(FUZZ_SAN) \
	  -fsanitize=fuzzer -o $@ $(call fuzz_src,$*) $(FUZZ_LINK_$*)

$(FUZZ_REPLAY): fuzz/%-replay: $(top_srcdir)/fuzz/driver.c $(top_srcdir)/fuzz/fuzz_reap.c \
		$(top_srcdir)/fuzz/fuzz_bc.c $(top_srcdir)/fuzz/fuzz_apr.c $(FUZZ_INCS)
	$(AM_V_CCLD)$(FUZZ_CLANG) $(FUZZ_CFLAGS) $(FUZZ_DEFS_$*) $(FUZZ_SAN) \
	  -o $@ $(call fuzz_src,$*) $(top_srcdir)/fuzz/driver.c $(FUZZ_LINK_$*)

fuzz-build: $(FUZZ_BIN) $(FUZZ_REPLAY)

fuzz-smoke: fuzz-build
	$(SHELL) $(top_srcdir)/fuzz/smoke.sh $(top_srcdir) fuzz $(FUZZ_SECONDS) \
	  $(FUZZ_RSS_MB) $(FUZZ_TIMEOUT) $(FUZZ_TARGETS)

fuzz-clean:
	rm -rf fuzz/obj-reap fuzz/obj-bc fuzz/obj-apr fuzz/run fuzz/*.a $(FUZZ_BIN) $(FUZZ_REPLAY)

clean-local: fuzz-clean

.PHONY: fuzz-build fuzz-smoke fuzz-clean
