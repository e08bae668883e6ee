#!/bin/sh
# record.sh - REAP_TRACE end to end: trace_probe (two threads of nested,
# tagged reaps that free half their objects) writes prefix.<pid>;
# reap-trace replay --csv reads it back.  Checks: one file, the CSV
# header, a region holding at least what a reap holds on a program that
# frees, Debian's APR pools holding what APR's node rules say, an
# unwritable path reported in one line while the program still
# exits 0, and a truncated or foreign file refused with a message naming
# the offset.  record-malloc.sh does the same for libreap-malloc.so.  Run
# by `make check' from the build directory.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
tool=$PWD/tools/reap-trace/reap-trace
probe=$PWD/tools/reap-trace/trace_probe
work=$(mktemp -d "${TMPDIR:-/tmp}/reap-trace-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

# 1. a reap program
REAP_TRACE=$work/probe "$probe" || bad "trace_probe exited $?"
set -- "$work"/probe.*
[ $# -eq 1 ] && [ -s "$1" ] || bad "want one non-empty probe.<pid>, got: $*"
trace=$1
"$tool" replay --csv "$trace" >"$work/out.csv" 2>"$work/err" || { bad "replay exited $?"; cat "$work/err"; }
[ "$(head -1 "$work/out.csv")" = "allocator,peak_footprint_bytes,peak_live_bytes,time_s,drag" ] ||
    bad "header: $(head -1 "$work/out.csv")"
region=$(awk -F, '$1 == "region" {print $2}' "$work/out.csv")
reap=$(awk -F, '$1 == "reap" {print $2}' "$work/out.csv")
live=$(awk -F, '$1 == "reap" {print $3}' "$work/out.csv")
drag=$(awk -F, '$1 == "region" {print $5}' "$work/out.csv")
if [ -z "$region" ] || [ -z "$reap" ] || [ "$region" -lt "$reap" ] || [ "$reap" -lt "$live" ]; then
    bad "want region >= reap >= live peak: region=$region reap=$reap live=$live"
fi
# The probe frees a quarter of its pools' objects long before the pools go.
awk -v d="$drag" 'BEGIN { exit !(d > 1.0) }' || bad "region drag $drag, want > 1"
grep -q '^glibc,' "$work/out.csv" || bad "no glibc row"
apr=$(awk -F, '$1 == "apr-pool" {print $2}' "$work/out.csv")
aprdrag=$(awk -F, '$1 == "apr-pool" {print $5}' "$work/out.csv")
[ -n "$apr" ] && [ "$apr" -ge "$live" ] && [ "$aprdrag" = "$drag" ] ||
    bad "want an apr-pool row holding the live peak with the region's drag: apr-pool=$apr drag=$aprdrag live=$live region drag=$drag"
echo "ok   probe: region $region >= reap $reap >= live $live bytes, region drag $drag; apr-pool $apr"

# Debian's APR pools, from APR 1.7's node rules (memory/unix/apr_pools.c):
# a node is its size in 4 KiB steps, at least 8 KiB, with a 40-byte header
# in it; the pool's own struct (120 bytes) sits in its first node, and
# apr_palloc rounds to 8.  So 77 objects of 100 bytes (8,008) fill the
# first node, the 78th takes a second 8 KiB node, 10,000 bytes a node of
# 12 KiB (10,040 rounded up), and the subpool its own first node.  Every
# replay also has the malloc pseudo-reap, here an empty pool: one node more.
REAP_TRACE=$work/nodes "$probe" nodes || bad "trace_probe nodes exited $?"
want=$((8192 + 8192 + 12288 + 8192 + 8192))
got=$("$tool" replay --csv "$work"/nodes.* | awk -F, '$1 == "apr-pool" {print $2}')
[ "$got" = "$want" ] || bad "apr-pool footprint of the nodes probe: $got, want $want"
echo "ok   apr-pool: the nodes probe holds $got bytes in APR's pools, as APR's node rules say"
"$tool" top "$trace" | grep -q '^worker-a' || bad "top does not list the tagged pool worker-a"
# dump: the nodes probe creates a top-level pool, then its subpool, and
# destroys the pool (slot 0 is malloc's pseudo-reap, so they are 1 and 2).
got=$("$tool" dump "$work"/nodes.* | awk -F, '$2 == "create" || $2 == "destroy" { printf "%s %s %s;", $2, $3, $5 }')
[ "$got" = "create 1 ;create 2 1;destroy 1 ;" ] || bad "dump of the nodes probe's reaps: '$got'"
echo "ok   dump: the pool is top-level, its subpool names it as parent"

# 2. an unwritable path: one line naming it, the program goes on
REAP_TRACE=$work/no/such/dir/t "$probe" 2>"$work/err" || bad "probe with an unwritable trace exited $?"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "cannot write $work/no/such/dir/t\." "$work/err" ||
    bad "unwritable path: $(cat "$work/err")"
echo "ok   unwritable path reported once: $(cat "$work/err")"

# 3. bad files: clear message with the offset, exit 1, no crash
size=$(wc -c <"$trace")
head -c $((size - 7)) "$trace" >"$work/cut"
"$tool" replay --csv "$work/cut" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q "offset [0-9]*: .*truncated" "$work/err" || bad "truncated trace: exit $rc, $(cat "$work/err")"
echo "ok   truncated trace refused: $(cat "$work/err")"
printf 'GIF89a not a trace' >"$work/foreign"
"$tool" replay "$work/foreign" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q "offset 0: .*magic" "$work/err" || bad "foreign file: exit $rc, $(cat "$work/err")"
exit $fail
