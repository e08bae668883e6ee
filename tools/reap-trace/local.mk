# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# reap-trace: replays, plots and ranks the allocation traces that libreap
# and libreap-malloc.so write under REAP_TRACE (docs/trace.md).  It reads
# the format from libreap/src/util/trace.h and replays on the installed
# libreap; Debian's APR, mimalloc and jemalloc are dlopen'ed at run time.
bin_PROGRAMS += tools/reap-trace/reap-trace
RT_SOURCES = \
	tools/reap-trace/tracefile.h \
	tools/reap-trace/tracefile.c \
	tools/reap-trace/replay.h \
	tools/reap-trace/replay.c \
	tools/reap-trace/backends.c \
	tools/mimalloc-dl.h
tools_reap_trace_reap_trace_SOURCES = $(RT_SOURCES) tools/reap-trace/main.c
# Debian's libapr-1 for the apr-pool row, by path (configure's APR_LIBDIR)
RT_CPPFLAGS = -DRT_APR_LIB='"$(if $(APR_LIBDIR),$(APR_LIBDIR)/)libapr-1.so.0"'
tools_reap_trace_reap_trace_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/libreap/src
tools_reap_trace_reap_trace_CPPFLAGS = $(AM_CPPFLAGS) $(RT_CPPFLAGS)
tools_reap_trace_reap_trace_LDADD = libreap/libreap.la -ldl

if HAVE_CMOCKA
# The format: the recorder's blocks read back by the tool's reader.
check_PROGRAMS += tools/reap-trace/test_tracefile
tools_reap_trace_test_tracefile_SOURCES = tools/reap-trace/test_tracefile.c \
	tools/reap-trace/tracefile.h tools/reap-trace/tracefile.c \
	tools/reap-trace/replay.h tools/reap-trace/replay.c
tools_reap_trace_test_tracefile_CFLAGS = $(UNIT_CFLAGS)
tools_reap_trace_test_tracefile_LDADD = $(UNIT_LDADD)
FAST_TESTS += tools/reap-trace/test_tracefile
endif

# record.sh: real programs recorded under REAP_TRACE, then replayed.
check_PROGRAMS += tools/reap-trace/trace_probe
tools_reap_trace_trace_probe_SOURCES = tools/reap-trace/trace_probe.c
tools_reap_trace_trace_probe_LDADD = libreap/libreap.la
FAST_TESTS += tools/reap-trace/record.sh tools/reap-trace/record-malloc.sh
PRELOAD_TESTS += tools/reap-trace/record-malloc.sh
EXTRA_DIST += tools/reap-trace/record.sh tools/reap-trace/record-malloc.sh
