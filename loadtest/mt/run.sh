#!/bin/sh
# run.sh - runs the allocator benchmarks of loadtest/mt/ against glibc,
# jemalloc, tcmalloc, mimalloc (Debian's libjemalloc2, libtcmalloc-minimal4,
# libmimalloc2.0) and libreap-malloc.so through LD_PRELOAD, at 1, 2, 4 and
# 8 threads, in REPS rounds with the allocators in a rotating order; prints
# the tables (median seconds, peak RSS and prodcons's blowup, with
# libreap's ratios), writes loadtest/results/mt-<date>.csv and, with
# gnuplot, PNGs of time and RSS against threads.  alternate.py does the
# work; see its header.
#
# usage: loadtest/mt/run.sh [BUILD_DIR]   (default: ./build, or the cwd if
#        it holds loadtest/mt/threadtest).  Environment: THREADS="1 2 4 8",
#        BENCHES="threadtest ...", ALLOCS="glibc ... reap", REPS=5, SCALE=1.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-}
if [ -z "$build" ]; then
    if [ -x ./loadtest/mt/threadtest ]; then build=$PWD; else build=$here/../../build; fi
fi
exec python3 "$here/alternate.py" --build "$build" --rounds "${REPS:-5}" \
    --threads "${THREADS:-1 2 4 8}" --scale "${SCALE:-1}" \
    ${BENCHES:+--benches "$BENCHES"} ${ALLOCS:+--allocs "$ALLOCS"}
