# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# loadtest/mt: multithreaded allocator benchmarks after the Hoard paper and
# today's suites (threadtest, larson, cache-scratch, cache-thrash,
# prodcons (xmalloc-test), mstress, shbench), and giveback, the RSS an
# allocator keeps after a peak.  Built with `make', never run by `make
# check'; loadtest/mt/run.sh and giveback.sh run them against glibc,
# jemalloc, tcmalloc, mimalloc and libreap-malloc.so through LD_PRELOAD.
MT_BENCHES = loadtest/mt/threadtest loadtest/mt/larson \
	loadtest/mt/cache-scratch loadtest/mt/cache-thrash \
	loadtest/mt/prodcons loadtest/mt/mstress loadtest/mt/shbench \
	loadtest/mt/giveback
noinst_PROGRAMS += $(MT_BENCHES)
MT_CFLAGS = $(AM_CFLAGS) -O2
loadtest_mt_threadtest_SOURCES = loadtest/mt/threadtest.c loadtest/mt/bench.h
loadtest_mt_threadtest_CFLAGS = $(MT_CFLAGS)
loadtest_mt_larson_SOURCES = loadtest/mt/larson.c loadtest/mt/bench.h
loadtest_mt_larson_CFLAGS = $(MT_CFLAGS)
loadtest_mt_cache_scratch_SOURCES = loadtest/mt/cache-scratch.c loadtest/mt/bench.h
loadtest_mt_cache_scratch_CFLAGS = $(MT_CFLAGS)
loadtest_mt_cache_thrash_SOURCES = loadtest/mt/cache-thrash.c loadtest/mt/bench.h
loadtest_mt_cache_thrash_CFLAGS = $(MT_CFLAGS)
loadtest_mt_prodcons_SOURCES = loadtest/mt/prodcons.c loadtest/mt/bench.h
loadtest_mt_prodcons_CFLAGS = $(MT_CFLAGS)
loadtest_mt_mstress_SOURCES = loadtest/mt/mstress.c loadtest/mt/bench.h
loadtest_mt_mstress_CFLAGS = $(MT_CFLAGS)
loadtest_mt_shbench_SOURCES = loadtest/mt/shbench.c loadtest/mt/bench.h
loadtest_mt_shbench_CFLAGS = $(MT_CFLAGS)
loadtest_mt_giveback_SOURCES = loadtest/mt/giveback.c loadtest/mt/bench.h
loadtest_mt_giveback_CFLAGS = $(MT_CFLAGS)
EXTRA_DIST += loadtest/mt/run.sh loadtest/mt/giveback.sh loadtest/mt/alternate.py loadtest/mt/allocators \
	loadtest/mt/mimalloc-bench.sh loadtest/mt/preload.sh
