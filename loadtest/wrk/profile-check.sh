#!/bin/sh
# profile-check.sh - `make check-httpd` runs profile.sh briefly (4 threads, 2 s
# under callgrind) to check that it still works: both servers start under
# callgrind, the counters are zeroed and dumped, the stock APR with symbols
# builds, and the report gives a per-request figure on both sides.  Never a
# check of the figures themselves.  Results go to the build tree
# (loadtest/profile-check/).  Exit status: 0 pass, 1 fail, 77 skipped (no
# valgrind, wrk or reap-backed APR: said in the log).

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
out=$MR_BUILDDIR/loadtest/profile-check
for tool in valgrind wrk; do
    command -v $tool >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
[ -f "$MR_BUILDDIR/install/apr/lib/libapr-1.so.0" ] ||
    { echo "SKIP: no reap-backed APR under $MR_BUILDDIR/install/apr (apr-patch/build-apr.sh)"; exit 77; }
rm -rf "$out"
bash "$(dirname "$0")/profile.sh" --build "$MR_BUILDDIR" --threads 4 --duration 2 \
    --top 5 --out "$out" || exit 1
report=$(ls "$out"/profile-*.md 2>/dev/null | head -1)
[ -s "$report" ] || { echo "FAIL: no report in $out"; exit 1; }
# "| instructions a request | 43,408 | 44,998 | ..." : both above 1,000
line=$(grep '^| instructions a request |' "$report")
stock=$(echo "$line" | cut -d'|' -f3 | tr -d ' ,')
reap=$(echo "$line" | cut -d'|' -f4 | tr -d ' ,')
if [ "${stock:-0}" -gt 1000 ] 2>/dev/null && [ "${reap:-0}" -gt 1000 ] 2>/dev/null; then
    echo "PASS: $line"
    exit 0
fi
echo "FAIL: no per-request figures in $report: $line"
exit 1
