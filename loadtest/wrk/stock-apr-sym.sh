#!/bin/bash
# stock-apr-sym.sh BUILD [malloc] - print the lib directory of stock APR
# with symbols, building it first when it is not there yet.
#
# Debian's libapr-1 is stripped: a profiler shows its static functions
# (allocator_alloc, allocator_free, ...) as "???" or under the wrong name.
# This builds APR from the same Debian source as the patched one
# (apr-patch/build-apr.sh's pristine tree in BUILD/apr-work), unpatched,
# with Debian's configure options and dpkg-buildflags, into
# BUILD/apr-stock-sym (once, about 2 minutes; log in build.log there).
# Used by loadtest/wrk/profile.sh (callgrind) and loadtest/h2/run.sh
# --perf.  With "malloc", the same without Debian's
# --enable-allocator-uses-mmap (APR's default: the allocator's 8 KB
# memnodes come from malloc, not one mmap each), into
# BUILD/apr-stock-malloc, for loadtest/h2/run.sh's stock-malloc.  Exit
# status 0 with the directory on stdout, 1 on failure.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
die() { echo "stock-apr-sym.sh: $*" >&2; exit 1; }
[ $# -eq 1 ] || [ $# -eq 2 ] && [ "${2:-malloc}" = malloc ] || die "usage: stock-apr-sym.sh BUILD [malloc]"
BUILD=$(cd "$1" 2>/dev/null && pwd) || die "no build directory $1"
pristine=$BUILD/apr-work/apr-1.7.2
if [ $# -eq 2 ]; then
    stock=$BUILD/apr-stock-malloc mmap=
else
    stock=$BUILD/apr-stock-sym mmap=--enable-allocator-uses-mmap
fi
stock_lib=$stock/install/lib
if [ ! -f "$stock_lib/libapr-1.so.0" ]; then
    [ -f "$pristine/configure.in" ] || die "no APR source in $pristine (apr-patch/build-apr.sh fetches it)"
    echo "== building stock APR with symbols into $stock (log: $stock/build.log)" >&2
    rm -rf "$stock" && mkdir -p "$stock/obj" || die "cannot make $stock"
    cp -a "$pristine" "$stock/src" || die "cannot copy $pristine"
    flags() { (cd "$stock/src" && dpkg-buildflags --get "$1"); }
    {
        (cd "$stock/src" && ./buildconf) &&
            (cd "$stock/obj" && CONFIG_SHELL=/bin/bash /bin/bash "$stock/src/configure" \
                --prefix="$stock/install" --enable-nonportable-atomics \
                $mmap ac_cv_prog_AWK=mawk \
                "CFLAGS=$(flags CFLAGS)" "CPPFLAGS=$(flags CPPFLAGS)" "LDFLAGS=$(flags LDFLAGS)") &&
            make -C "$stock/obj" -j"$(nproc)" && make -C "$stock/obj" install
    } >"$stock/build.log" 2>&1 || die "the stock APR build failed; see $stock/build.log"
fi
nm -D "$stock_lib/libapr-1.so.0" | grep -q ' apr_pfree$' && die "$stock_lib has apr_pfree: not stock"
printf '%s\n' "$stock_lib"
