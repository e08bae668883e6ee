# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# The packages tier (make check-packages; root): debian/build-debs.sh builds
# the Debian packages into <source>/build/debs (a clean copy of the tree,
# dpkg-buildpackage, lintian), then tests/packages/test_packages.sh takes the
# operator's route with them: apt-get install, a2enmod, apache2ctl on
# Debian's own configuration, a module built with plain apxs, apt-get
# purge.  It leaves the machine as it found it, also when a check fails.
# tests/packages/test_install.sh takes the route without packages:
# configure --prefix, make install DESTDIR=, RUNPATHs, make uninstall.
PACKAGE_TESTS = tests/packages/test_install.sh tests/packages/test_packages.sh
PACKAGE_JOBS = 2
EXTRA_DIST += $(PACKAGE_TESTS)

check-packages:
	$(top_srcdir)/debian/build-debs.sh --jobs $(PACKAGE_JOBS)
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(PACKAGE_TESTS)' \
	    TEST_SUITE_LOG=check-packages.log \
	    AM_TESTS_ENVIRONMENT="DEBS_DIR='$(abs_top_srcdir)/build/debs'; export DEBS_DIR;"

CLEANFILES += check-packages.log
.PHONY: check-packages
