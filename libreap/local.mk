# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# libreap: the reap library.  libreap_core.la holds every object so unit tests
# can link internals; libreap.la is the installed library, exporting only
# REAP_API symbols.  The base allocator's sources come from
# libreap/src/base/local.mk (RP_BASE_SOURCES), the one place to swap it;
# both layers build on libreap/src/util/ (RP_UTIL_SOURCES).
RP_UTIL_SOURCES = \
	libreap/src/util/common.h \
	libreap/src/util/list.h \
	libreap/src/util/annotate.h \
	libreap/src/util/env.h \
	libreap/src/util/env.c \
	libreap/src/util/lock.h \
	libreap/src/util/lock.c \
	libreap/src/util/misuse.h \
	libreap/src/util/misuse.c \
	libreap/src/util/trace.h \
	libreap/src/util/trace.c
include libreap/src/base/local.mk

noinst_LTLIBRARIES += libreap/libreap_core.la
libreap_libreap_core_la_SOURCES = \
	libreap/include/reap.h \
	libreap/src/internal.h \
	$(RP_UTIL_SOURCES) \
	libreap/src/base/base.h \
	libreap/src/options.c \
	libreap/src/reap.c \
	libreap/src/alloc.c \
	libreap/src/region.h \
	libreap/src/region.c \
	libreap/src/leaheap.c \
	libreap/src/stats.c \
	$(RP_BASE_SOURCES)
libreap_libreap_core_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(REAP_TLS_CFLAGS) $(REAP_LIB_SAN_CFLAGS)

lib_LTLIBRARIES += libreap/libreap.la
libreap_libreap_la_SOURCES =
libreap_libreap_la_LIBADD = libreap/libreap_core.la
# Programs that compile reap_malloc_bump() in (the reap-backed APR) depend
# on the layout REAP_FRONTIER_VERSION in reap.h names; the soname
# changes when a new layout breaks the old ones.  Interface 5 is the one
# block format (frontier version 5): no headers, a bump that sets a start
# bit, reap_start_as_region() and reap_discard() gone.  Nothing built for
# interfaces 1 to 4 runs on it, so age is 0 and the soname, current - age
# for libtool, is libreap.so.5.
libreap_libreap_la_LDFLAGS = -version-info 5:0:0 -pthread

include_HEADERS += libreap/include/reap.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA += libreap/libreap.pc

# The httpd modules (mod_reap, mod_bc) are linked by apxs's libtool, which
# writes the directory of any uninstalled libreap.la it is shown into their
# RUNPATH, the build tree included.  So they link libreap.so from a
# directory that holds nothing else (the link-time name and the soname,
# which a RUNPATH to it resolves), and their RUNPATH is $(libdir) alone,
# and only where the loader would not look by itself (REAP_APXS_RPATH,
# from configure).
REAP_LINK_DIR = libreap/link
$(REAP_LINK_DIR)/libreap.so: libreap/libreap.la
	@$(MKDIR_P) $(REAP_LINK_DIR)
	ln -sf $(abs_top_builddir)/libreap/.libs/libreap.so.5 $(REAP_LINK_DIR)/libreap.so.5
	ln -sf $(abs_top_builddir)/libreap/.libs/libreap.so $@
clean-local: clean-reap-link
clean-reap-link:
	rm -rf $(REAP_LINK_DIR)
.PHONY: clean-reap-link
