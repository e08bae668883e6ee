#!/bin/sh
# misuse.sh - libreap-malloc.so (LD_PRELOAD) reports a double free, a free
# of an interior or foreign pointer (a stack, alloca, static, wild or far
# address, a block nobody was handed, a pointer inside a large block), a
# realloc of a freed pointer, a block freed again after a trim gave its
# pages back (parked), a large object freed twice and one whose bytes
# before it were overwritten, in exactly one line on stderr, and aborts
# (SIGABRT, exit status 134); with REAP_MISUSE=report it writes the same
# line, goes on, and later blocks are still distinct.  REAP_STATS_FILE
# gets the statistics of a program that closes stderr (misuse_probe
# close-stderr, and sort), %p replaced by its pid.  Run by `make check'
# from the build directory.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
lib=${REAP_MALLOC_LIB:-$PWD/libreap/.libs/libreap-malloc.so}
probe=${REAP_MISUSE_PROBE:-$PWD/tests/base/misuse_probe}
if [ ! -f "$lib" ] || [ ! -x "$probe" ]; then
    echo "misuse.sh: $lib or $probe not built" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/reap-misuse.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
unset REAP_SHOW_STATS REAP_STATS_FILE

# check CASE MODE WANTED-STATUS LINE: LINE has @P for the pointer the probe
# announced (@B for its block); stderr must be exactly that line.
check() {
    name=$1 mode=$2 want=$3 line=$4
    # exec in a subshell: dash writes "Aborted" into the redirected stderr
    # of a command it waits for itself
    (REAP_MISUSE=$mode LD_PRELOAD=$lib exec "$probe" "$name" >"$work/out" 2>"$work/err") 2>/dev/null
    status=$?
    ptr=$(sed -n 's/^ptr=//p' "$work/out")
    block=$(sed -n 's/^block=//p' "$work/out")
    if [ -n "$line" ]; then
        printf '%s\n' "$line" | sed "s/@P/$ptr/; s/@B/$block/" >"$work/want"
    else
        : >"$work/want" # no report at all
    fi
    if [ -z "$ptr" ] || [ "$status" != "$want" ] || ! cmp -s "$work/err" "$work/want"; then
        echo "FAIL $name ($mode): status $status (want $want), stderr:"
        sed 's/^/    /' "$work/err"
        echo "  expected:"
        sed 's/^/    /' "$work/want"
        sed 's/^/  stdout: /' "$work/out"
        fail=1
    else
        echo "ok   $name ($mode): $(cat "$work/err")"
    fi
}

for mode in abort report; do
    if [ $mode = abort ]; then st=134; else st=0; fi
    check double-free $mode $st "libreap-malloc: double free of @P"
    check interior $mode $st "libreap-malloc: free of an interior pointer @P (block @B)"
    check foreign $mode $st "libreap-malloc: free of a pointer it did not hand out: @P"
    check realloc-freed $mode $st "libreap-malloc: realloc of a freed pointer @P"
    check large-double-free $mode $st "libreap-malloc: double free of @P"
    check parked-double-free $mode $st "libreap-malloc: double free of @P"
    for c in stack alloca static wild far unborn; do
        check $c $mode $st "libreap-malloc: free of a pointer it did not hand out: @P"
    done
    check large-interior $mode $st "libreap-malloc: free of an interior pointer @P (block @B)"
    check large-far-interior $mode $st "libreap-malloc: free of an interior pointer @P (block @B)"
    check large-underflow $mode $st "libreap-malloc: free of a block whose guard bytes before it were overwritten: @P"
done
# malloc(0): its frees are no misuse (stderr empty, status 0); a write
# through it faults (SIGSEGV, 139).
check zero abort 0 ""
(PROBE_TOUCH=1 LD_PRELOAD=$lib exec "$probe" zero >/dev/null 2>&1) 2>/dev/null
status=$?
if [ "$status" = 139 ]; then
    echo "ok   zero: a write through malloc(0) faults"
else
    echo "FAIL zero: a write through malloc(0) ended with status $status, not 139 (SIGSEGV)"
    fail=1
fi

# REAP_STATS_FILE with %p: the probe closes stderr before it exits.
REAP_STATS_FILE="$work/stats.%p" LD_PRELOAD=$lib "$probe" close-stderr >"$work/out" 2>"$work/err"
pid=$(sed -n 's/^pid=//p' "$work/out")
if [ -n "$pid" ] && grep -q '^libreap-malloc statistics:' "$work/stats.$pid" 2>/dev/null &&
    grep -q '^in_use ' "$work/stats.$pid"; then
    echo "ok   REAP_STATS_FILE (text, stats.$pid)"
else
    echo "FAIL REAP_STATS_FILE: no statistics in $work/stats.$pid"; ls "$work"; fail=1
fi
REAP_SHOW_STATS=json REAP_STATS_FILE="$work/json.%p" LD_PRELOAD=$lib "$probe" close-stderr >"$work/out" 2>&1
pid=$(sed -n 's/^pid=//p' "$work/out")
if [ -n "$pid" ] && grep -q '^{"in_use":[0-9]*,.*}$' "$work/json.$pid" 2>/dev/null; then
    echo "ok   REAP_STATS_FILE (json, json.$pid)"
else
    echo "FAIL REAP_STATS_FILE=json: $(cat "$work/json.$pid" 2>&1)"; fail=1
fi
# sort closes stderr at exit (gnulib's close_stdout): one file per process.
if command -v sort >/dev/null 2>&1; then
    printf 'b\na\n' | REAP_STATS_FILE="$work/sort.%p" LD_PRELOAD=$lib sort >"$work/out"
    n=$(ls "$work" | grep -c '^sort\.[0-9]*$')
    if [ "$(cat "$work/out")" = "$(printf 'a\nb')" ] && [ "$n" -ge 1 ] &&
        grep -q '^libreap-malloc statistics:' "$work"/sort.*; then
        echo "ok   REAP_STATS_FILE (sort, $n file(s))"
    else
        echo "FAIL REAP_STATS_FILE with sort: $n file(s)"; fail=1
    fi
fi
exit $fail
