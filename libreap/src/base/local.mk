# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# The base allocator behind reaps (see libreap/src/base/base.h).
#
# RP_HOARD_SOURCES is the Hoard-style allocator of this directory.  It is
# also built alone, as libreap_hoard.la, for its unit tests and for the
# LD_PRELOAD library libreap-malloc.so.  RP_BASE_SOURCES is what reaps
# use: the Hoard-style allocator (the one implementation of base.h).
RP_HOARD_SOURCES = \
	libreap/src/base/hoard.h \
	libreap/src/base/hoard_options.c \
	libreap/src/base/sizeclass.c \
	libreap/src/base/superblock.c \
	libreap/src/base/heap.c \
	libreap/src/base/tcache.c \
	libreap/src/base/large.c \
	libreap/src/base/space.c \
	libreap/src/base/release.c \
	libreap/src/base/zero.c \
	libreap/src/base/addrmap.c \
	libreap/src/base/os.c \
	libreap/src/base/hoard_stats.c \
	libreap/src/base/hoard.c

RP_BASE_SOURCES = $(RP_HOARD_SOURCES)

# libreap_hoard.la feeds libreap-malloc.so, which is only ever preloaded,
# never dlopen'ed: preloaded libraries are loaded at startup, inside the
# initial static TLS block, so there the thread-cache pointer uses the
# initial-exec TLS model (RP_HD_TLS_IE, see hoard.h): one load instead of
# a call per malloc and free.  Not libreap_core, which httpd dlopens (there
# initial-exec TLS fails with "cannot allocate memory in static TLS block");
# tests/base/dlopen.sh checks libreap.so for exactly that.
noinst_LTLIBRARIES += libreap/libreap_hoard.la
libreap_libreap_hoard_la_SOURCES = $(RP_HOARD_SOURCES) $(RP_UTIL_SOURCES)
# Its misuse reports start "libreap-malloc:" (RP_HD_NAME, hoard.h), and a
# thread gets its cache at its first call (RP_HD_MALLOC: REAP_TCACHE_AFTER
# defaults to 0, hoard.h).
libreap_libreap_hoard_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -DRP_HD_TLS_IE \
	-DRP_HD_MALLOC -DRP_HD_NAME='"libreap-malloc"' $(REAP_LIB_SAN_CFLAGS)

# Drop-in malloc for LD_PRELOAD: exports only the C allocation functions
# and C++'s replaceable operator new and delete (malloc.c).
lib_LTLIBRARIES += libreap/libreap-malloc.la
libreap_libreap_malloc_la_SOURCES = libreap/src/base/malloc.c
libreap_libreap_malloc_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libreap_libreap_malloc_la_LIBADD = libreap/libreap_hoard.la
libreap_libreap_malloc_la_LDFLAGS = -module -avoid-version -shared -pthread

include tests/base/local.mk
EXTRA_DIST += libreap/src/base/README.md
