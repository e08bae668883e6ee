# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# mod_reap: the httpd module (mod_reap.c, mod_reap_status.c,
# mod_reap_misuse.c), its installed
# header mod_reap.h, Debian-style reap.load/reap.conf, and its tests in
# tests/httpd/ (with their test module, mod_reap_test.c).
#
# Both modules are built with Debian's apxs (apache2-dev), so they get
# exactly the flags and libtool httpd's own modules get, against Debian's
# stock APR headers; mod_reap finds the reap-backed APR's apr_pfree,
# apr_pool_reap_get, apr_pool_walk and apr_pool_tag_get at run time, so one
# mod_reap.so runs on either APR (and on a reap-backed APR without
# apr_pool_walk, listing only the pools its hooks see).  apxs
# compiles in the directory of its sources, so they are copied into
# mod_reap/apxs/ and tests/httpd/apxs/ of the build tree first (the source
# tree stays clean; in-tree and out-of-tree builds both work).  mod_reap.so
# links libreap.so (with a RUNPATH of $(libdir) unless that is a system
# directory: REAP_APXS_RPATH from configure, never the build tree);
# it needs the libreap it was built with, which the reap-backed APR shares.
#
#   make                          mod_reap/apxs/.libs/mod_reap.so and the test module
#   make install                  mod_reap.so into $(prefix)/modules/, mod_reap.h into
#                                 $(includedir), reap.load/reap.conf into $(pkgdatadir)/apache2/
#   make install-apache2-system   (explicit, root, after make install) mod_reap.so into
#                                 apxs's LIBEXECDIR and reap.load/reap.conf into
#                                 /etc/apache2/mods-available/, so `a2enmod reap` works
#   make check-httpd              tests/httpd/test_mod_reap_stock.sh (Debian's libapr) and
#                                 tests/httpd/test_mod_reap_reap.sh (the reap-backed APR
#                                 in $(REAP_APR_DIR); skipped, loudly, when it is missing)

MOD_REAP_SRC = $(srcdir)/mod_reap/mod_reap.c $(srcdir)/mod_reap/mod_reap_status.c \
	$(srcdir)/mod_reap/mod_reap_misuse.c
MOD_REAP_HDR = $(srcdir)/mod_reap/mod_reap.h $(srcdir)/mod_reap/mod_reap_private.h
MOD_REAP_SO = mod_reap/apxs/.libs/mod_reap.so
MOD_REAP_TEST_SO = tests/httpd/apxs/.libs/mod_reap_test.so
MOD_REAP_PATHS = tests/httpd/mod_reap_paths.sh
MOD_REAP_WARN = -Wc,-std=gnu11 -Wc,-Wall -Wc,-Wextra -Wc,-Wshadow \
	-Wc,-Wmissing-prototypes -Wc,-Wno-unused-parameter
MOD_REAP_TESTS = tests/httpd/test_mod_reap_stock.sh tests/httpd/test_mod_reap_reap.sh \
	tests/httpd/test_mod_reap_misuse.sh tests/httpd/test_mod_reap_limit.sh \
	tests/httpd/test_mod_reap_idle.sh tests/httpd/test_reap_apr_release.sh

include_HEADERS += mod_reap/mod_reap.h
EXTRA_DIST += mod_reap/mod_reap.c mod_reap/mod_reap_status.c mod_reap/mod_reap_misuse.c \
	mod_reap/mod_reap_private.h mod_reap/reap.load mod_reap/reap.conf \
	tests/httpd/mod_reap_test.c tests/httpd/httpd_lib.sh tests/httpd/cleanup.sh \
	$(MOD_REAP_TESTS)

MOD_REAP_BUILT =
if HAVE_APXS
MOD_REAP_BUILT += $(MOD_REAP_SO) $(MOD_REAP_TEST_SO) $(MOD_REAP_PATHS)
HTTPD_TESTS += $(MOD_REAP_TESTS)
endif

all-local: $(MOD_REAP_BUILT)
install-exec-local: install-mod-reap
uninstall-local: uninstall-mod-reap
clean-local: clean-mod-reap

$(MOD_REAP_SO): $(MOD_REAP_SRC) $(MOD_REAP_HDR) $(REAP_LINK_DIR)/libreap.so
	@$(MKDIR_P) mod_reap/apxs
	cp $(MOD_REAP_SRC) $(MOD_REAP_HDR) mod_reap/apxs/
	cd mod_reap/apxs && $(APXS) -c $(MOD_REAP_WARN) \
	    -I$(abs_top_srcdir)/libreap/include \
	    -L$(abs_top_builddir)/$(REAP_LINK_DIR) -lreap $(REAP_APXS_RPATH) \
	    -o mod_reap.la mod_reap.c mod_reap_status.c mod_reap_misuse.c

# The test module sees only mod_reap.h, as any module would.
$(MOD_REAP_TEST_SO): $(srcdir)/tests/httpd/mod_reap_test.c $(srcdir)/mod_reap/mod_reap.h
	@$(MKDIR_P) tests/httpd/apxs
	cp $(srcdir)/tests/httpd/mod_reap_test.c tests/httpd/apxs/
	cd tests/httpd/apxs && $(APXS) -c $(MOD_REAP_WARN) \
	    -I$(abs_top_srcdir)/mod_reap -o mod_reap_test.la mod_reap_test.c

# Where the tests find the reap-backed APR (configure's --with-reap-apr).
$(MOD_REAP_PATHS): Makefile
	@$(MKDIR_P) tests/httpd
	echo "REAP_APR_DIR='$(REAP_APR_DIR)'" > $@

if HAVE_APXS
install-mod-reap: $(MOD_REAP_SO)
	$(MKDIR_P) $(DESTDIR)$(prefix)/modules $(DESTDIR)$(pkgdatadir)/apache2
	$(INSTALL_PROGRAM) $(MOD_REAP_SO) $(DESTDIR)$(prefix)/modules/mod_reap.so
	$(INSTALL_DATA) $(srcdir)/mod_reap/reap.load $(srcdir)/mod_reap/reap.conf \
	    $(DESTDIR)$(pkgdatadir)/apache2/

# Not run by `make install` nor by ./quickstart: it writes into the system.
install-apache2-system: $(MOD_REAP_SO)
	@test -f $(libdir)/libreap.so || \
	    { echo "install-apache2-system: run 'make install' first (libreap)"; exit 1; }
	$(MKDIR_P) $(DESTDIR)`$(APXS) -q LIBEXECDIR` \
	    $(DESTDIR)`$(APXS) -q SYSCONFDIR`/mods-available
	$(INSTALL_PROGRAM) $(MOD_REAP_SO) $(DESTDIR)`$(APXS) -q LIBEXECDIR`/mod_reap.so
	$(INSTALL_DATA) $(srcdir)/mod_reap/reap.load $(srcdir)/mod_reap/reap.conf \
	    $(DESTDIR)`$(APXS) -q SYSCONFDIR`/mods-available/
	@echo "mod_reap installed: 'a2enmod reap' enables it.  For the reap-backed APR"
	@echo "add to /etc/apache2/envvars: export LD_LIBRARY_PATH=$(REAP_APR_DIR)/lib"
else
install-mod-reap:
	@echo "mod_reap: no apxs (package apache2-dev): not built, not installed"
install-apache2-system: install-mod-reap
endif

uninstall-mod-reap:
	rm -f $(DESTDIR)$(prefix)/modules/mod_reap.so \
	    $(DESTDIR)$(pkgdatadir)/apache2/reap.load \
	    $(DESTDIR)$(pkgdatadir)/apache2/reap.conf

clean-mod-reap:
	rm -rf mod_reap/apxs tests/httpd/apxs $(MOD_REAP_PATHS)

.PHONY: install-mod-reap install-apache2-system uninstall-mod-reap clean-mod-reap
