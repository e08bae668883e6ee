# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# tests/sanitize: sanitizer and Valgrind builds of the whole suite, and the
# misuse the tools must catch.
#
#   configure --enable-sanitizers=address,undefined   ASan + UBSan
#   configure --enable-sanitizers=thread              TSan
#   configure --enable-valgrind                       memcheck client requests
#
# In ASan and Valgrind builds libreap annotates reap objects
# (libreap/src/util/annotate.h): only the bytes asked for are open to the
# program; freed objects, the never-used space of chunks, block headers and
# everything a reap held after clear or destroy are poisoned.  There
# tests/sanitize/misuse (misuse.c: use after free, clear and destroy,
# overflow into the rounding and into the neighbour's header, reads of bump
# space, large objects, realloc, calloc, aligned) joins TESTS through
# misuse.sh, which runs each case and checks the tool names the address.
# It is not built in other configurations: there is nothing to catch it.
#
# `make check-sanitizers' (run-all.sh) configures out-of-tree builds
# /tmp/reap-san-{asan,tsan,valgrind} (SANITIZE_BUILDS, SANITIZE_CONFIGS and
# JOBS override) with address,undefined, with thread and with
# --enable-valgrind, and runs the fast tier (`make check') in each; in the
# third also the misuse cases and the tests that touch only what a program
# may (run-all.sh's VALGRIND_TESTS) each under valgrind --error-exitcode,
# through the harness's LOG_COMPILER.  The pool code of apr-patch/src/ is
# in that tier (tests/apr/test_apr_pools).  It prints the tests passed and
# failed per tool and the time taken.  The tests that preload or dlopen
# libreap into programs without the sanitizer runtime are left out by name,
# with the reason (run-all.sh's EXCLUDE); the apache2 tiers never run there.
# In the valgrind build `make check' also runs natively first: the client
# requests compiled in must change nothing outside valgrind.
#
# In ASan builds libreap's own heap loads and stores are not instrumented
# (REAP_LIB_SAN_CFLAGS on libreap_core, libreap_hoard and the unit tests,
# which read headers on purpose): it is the allocator, reading its headers
# inside memory it has poisoned for the program.

if REAP_ANNOTATED_BUILD
check_PROGRAMS += tests/sanitize/misuse
FAST_TESTS += tests/sanitize/misuse.sh
endif
tests_sanitize_misuse_SOURCES = tests/sanitize/misuse.c
tests_sanitize_misuse_LDADD = libreap/libreap_core.la
EXTRA_DIST += tests/sanitize/misuse.sh tests/sanitize/run-all.sh tests/sanitize/tsan.supp

check-sanitizers:
	$(SHELL) $(top_srcdir)/tests/sanitize/run-all.sh $(top_srcdir)
.PHONY: check-sanitizers

# What `make check' would build and run here, and the preload tests and
# programs among them (run-all.sh leaves those out).
print-tests:
	@echo $(TESTS)
print-check-programs:
	@echo $(check_PROGRAMS)
print-preload:
	@echo $(PRELOAD_TESTS) $(PRELOAD_PROBES)
.PHONY: print-tests print-check-programs print-preload
