# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
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
	modules/mod_bc/mathlib.c \
	modules/mod_bc/unwind.c
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
FAST_TESTS += tests/bc/test_api tests/bc/test_mag $(BC_TESTS)
EXTRA_DIST += modules/mod_bc/README.md $(BC_TESTS) tests/bc/common.sh tests/bc/gen.py \
	tests/bc/corpus loadtest/bc-bench.sh loadtest/bc

# The httpd module (mod_bc.c): built with Debian's apxs like mod_reap (see
# mod_reap/local.mk), from a copy in modules/mod_bc/apxs/ of the build tree,
# linked with the interpreter's convenience library (its PIC objects) and
# libreap.  It includes mod_reap.h for ap_pfree; mod_reap must be loaded
# before it for frees to happen.
#
#   make           modules/mod_bc/apxs/.libs/mod_bc.so
#   make install   mod_bc.so into $(prefix)/modules/, bc.load and bc.conf
#                  into $(pkgdatadir)/apache2/
#   make install-apache2-system-bc   (explicit, root, after make install and
#                  install-apache2-system) the same into the system, where
#                  `a2enmod bc` finds them
#   make check-httpd tests/bc/test_mod_bc.sh: the handler in Debian's apache2
MOD_BC_SO = modules/mod_bc/apxs/.libs/mod_bc.so
MOD_BC_TESTS = tests/bc/test_mod_bc.sh
EXTRA_DIST += modules/mod_bc/mod_bc.c modules/mod_bc/bc.load modules/mod_bc/demo.sh \
	modules/mod_bc/bc.conf $(MOD_BC_TESTS)

MOD_BC_BUILT =
if HAVE_APXS
MOD_BC_BUILT += $(MOD_BC_SO)
HTTPD_TESTS += $(MOD_BC_TESTS)
endif
all-local: $(MOD_BC_BUILT)

$(MOD_BC_SO): $(srcdir)/modules/mod_bc/mod_bc.c $(srcdir)/modules/mod_bc/bc.h \
		$(srcdir)/mod_reap/mod_reap.h modules/mod_bc/libbc.la $(REAP_LINK_DIR)/libreap.so
	@$(MKDIR_P) modules/mod_bc/apxs
	cp $(srcdir)/modules/mod_bc/mod_bc.c modules/mod_bc/apxs/
	cd modules/mod_bc/apxs && $(APXS) -c $(MOD_REAP_WARN) -Wc,-O2 \
	    -I$(abs_top_srcdir)/modules/mod_bc -I$(abs_top_srcdir)/mod_reap \
	    -I$(abs_top_srcdir)/libreap/include \
	    -L$(abs_top_builddir)/$(REAP_LINK_DIR) -lreap $(REAP_APXS_RPATH) \
	    -o mod_bc.la mod_bc.c $(abs_top_builddir)/modules/mod_bc/.libs/libbc.a

install-exec-local: install-mod-bc
uninstall-local: uninstall-mod-bc
clean-local: clean-mod-bc

if HAVE_APXS
install-mod-bc: $(MOD_BC_SO)
	$(MKDIR_P) $(DESTDIR)$(prefix)/modules $(DESTDIR)$(pkgdatadir)/apache2
	$(INSTALL_PROGRAM) $(MOD_BC_SO) $(DESTDIR)$(prefix)/modules/mod_bc.so
	$(INSTALL_DATA) $(srcdir)/modules/mod_bc/bc.load $(srcdir)/modules/mod_bc/bc.conf \
	    $(DESTDIR)$(pkgdatadir)/apache2/

install-apache2-system-bc: $(MOD_BC_SO)
	$(INSTALL_PROGRAM) $(MOD_BC_SO) $(DESTDIR)`$(APXS) -q LIBEXECDIR`/mod_bc.so
	$(INSTALL_DATA) $(srcdir)/modules/mod_bc/bc.load $(srcdir)/modules/mod_bc/bc.conf \
	    $(DESTDIR)`$(APXS) -q SYSCONFDIR`/mods-available/
	@echo "mod_bc installed: 'a2enmod reap bc' enables it at /bc"
else
install-mod-bc install-apache2-system-bc:
	@echo "mod_bc: no apxs (package apache2-dev): not built, not installed"
endif

uninstall-mod-bc:
	rm -f $(DESTDIR)$(prefix)/modules/mod_bc.so \
	    $(DESTDIR)$(pkgdatadir)/apache2/bc.load \
	    $(DESTDIR)$(pkgdatadir)/apache2/bc.conf

clean-mod-bc:
	rm -rf modules/mod_bc/apxs

.PHONY: install-mod-bc install-apache2-system-bc uninstall-mod-bc clean-mod-bc
