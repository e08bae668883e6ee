# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# httpd-patch: reap-aware builds of Debian's mod_dav_fs, mod_sed,
# mod_rewrite, mod_autoindex, mod_include and mod_proxy_html
# (httpd-patch/README.md).
#
#   make httpd-modules   build-modules.sh: Debian's apache2 source with
#                        httpd-patch/src/ dropped in, the modules built with
#                        apxs into httpd-modules/lib/ of the build tree
#   make httpd-diff      the unified diff, pristine against httpd-patch/src/
#   make check-httpd     runs tests/httpd/test_reap_modules.sh and
#                        test_litmus.sh (the WebDAV suite litmus) on them
# The changed files one by one (apr-patch/local.mk says why).
EXTRA_DIST += httpd-patch/README.md httpd-patch/build-modules.sh httpd-patch/apache2 \
	httpd-patch/compare-code.py httpd-patch/PRISTINE.sha256 \
	httpd-patch/src/modules/dav/fs/lock.c httpd-patch/src/modules/dav/fs/repos.c \
	httpd-patch/src/modules/filters/mod_sed.c httpd-patch/src/modules/filters/sed1.c \
	httpd-patch/src/modules/generators/mod_autoindex.c \
	httpd-patch/src/modules/filters/mod_include.c \
	httpd-patch/src/modules/filters/mod_proxy_html.c \
	httpd-patch/src/modules/mappers/mod_rewrite.c \
	tests/httpd/test_reap_modules.sh tests/httpd/test_litmus.sh tests/httpd/xmlns_sorted.py tests/httpd-tests/run.sh tests/httpd-tests/tap.py \
	loadtest/modules/run.sh loadtest/modules/survey.sh loadtest/modules/options.sh

BUILD_MODULES = $(top_srcdir)/httpd-patch/build-modules.sh --build-dir $(abs_top_builddir)

httpd-modules:
	$(BUILD_MODULES)

httpd-diff:
	$(MKDIR_P) httpd-patch
	$(BUILD_MODULES) --diff $(abs_top_builddir)/httpd-patch/reap-modules.diff
CLEANFILES += httpd-patch/reap-modules.diff

if HAVE_APXS
HTTPD_TESTS += tests/httpd/test_reap_modules.sh tests/httpd/test_litmus.sh
endif

.PHONY: httpd-modules httpd-diff
