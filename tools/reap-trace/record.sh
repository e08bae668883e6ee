#!/bin/sh
# record.sh - REAP_TRACE end to end: trace_probe (two threads of nested,
# tagged reaps that free half their objects) writes prefix.<pid>;
# reap-trace replay --csv reads it back.  Checks: one file, the CSV
# header, a region holding at least what a reap holds on a program that
# frees, an unwritable path reported in one line while the program still
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
echo "ok   probe: region $region >= reap $reap >= live $live bytes, region drag $drag"
"$tool" top "$trace" | grep -q '^worker-a' || bad "top does not list the tagged pool worker-a"

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
