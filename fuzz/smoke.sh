#!/bin/sh
# smoke.sh - run each libFuzzer target of fuzz/ for a fixed time, from a
# scratch copy of its seed corpus, and fail if any of them finds a crash.
#
# `make fuzz-smoke` calls it after `make fuzz-build`; it can also be run by
# hand from the top build directory.  For each target it copies
# <srcdir>/fuzz/corpus/<corpus>/ to <fuzzdir>/run/<target>/corpus (the
# source tree is never written), runs the fuzzer there on one core with
# -max_total_time, -rss_limit_mb and -timeout, and prints one line of
# figures from libFuzzer's final report: runs, execs/s, coverage ("cov:",
# edges reached), features ("ft:") and the corpus size it ended with.  A
# crash, leak, timeout or out-of-memory report leaves its input in
# <fuzzdir>/run/<target>/ (crash-*, leak-*, timeout-*, oom-*) and the log
# beside it; the script names them and exits 1 after running every target.
#
# Usage: smoke.sh SRCDIR FUZZDIR SECONDS RSS_MB TIMEOUT TARGET...
# Exit status: 0 when no target found anything, 1 otherwise, 2 on misuse.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u

[ $# -ge 6 ] || { echo "usage: $0 SRCDIR FUZZDIR SECONDS RSS_MB TIMEOUT TARGET..." >&2; exit 2; }
srcdir=$1 fuzzdir=$2 seconds=$3 rss=$4 timeout=$5
shift 5

# fuzz_bc_mathlib shares fuzz_bc's seeds.
corpus_of() {
    case $1 in
        fuzz_bc_mathlib) echo fuzz_bc ;;
        *) echo "$1" ;;
    esac
}

failed=
for t in "$@"; do
    bin=$fuzzdir/$t
    run=$fuzzdir/run/$t
    [ -x "$bin" ] || { echo "fuzz-smoke: $bin is not built (make fuzz-build)" >&2; exit 2; }
    rm -rf "$run"
    mkdir -p "$run/corpus"
    seeds=$srcdir/fuzz/corpus/$(corpus_of "$t")
    [ -d "$seeds" ] && cp "$seeds"/* "$run/corpus/" 2>/dev/null
    nseeds=$(ls "$run/corpus" | wc -l)
    "$bin" -max_total_time="$seconds" -rss_limit_mb="$rss" -timeout="$timeout" \
        -print_final_stats=1 -artifact_prefix="$run/" "$run/corpus" \
        > "$run/log" 2>&1
    rc=$?
    final=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$run/log" | tail -n 1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log")
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/log")
    cov=$(printf '%s\n' "$final" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s\n' "$final" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(printf '%s\n' "$final" | sed -n 's/.*corp: \([^ ]*\).*/\1/p')
    printf '%-16s %4ss  runs %-9s exec/s %-6s cov %-5s ft %-6s corpus %s (from %s seeds)\n' \
        "$t" "$seconds" "${runs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$nseeds"
    found=$(ls "$run" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' || true)
    if [ $rc -ne 0 ] || [ -n "$found" ]; then
        echo "fuzz-smoke: $t FAILED (exit $rc): $(echo $found)" >&2
        grep -E 'ERROR|fuzz_[a-z_]*:|SUMMARY|runtime error' "$run/log" | head -n 8 >&2
        echo "fuzz-smoke: log $run/log; replay with $bin $run/<input> (or ${bin}-replay)" >&2
        failed="$failed $t"
    fi
done

if [ -n "$failed" ]; then
    echo "fuzz-smoke: found something in:$failed" >&2
    exit 1
fi
echo "fuzz-smoke: no crash in $# target(s)"
exit 0
