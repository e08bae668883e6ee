#!/bin/sh
# quick-test.sh - `make check-httpd` runs the wrk load test in --quick mode: a
# check that the harness works (servers start on stock APR, on the
# reap-backed APR and with libreap-malloc.so preloaded, wrk drives them,
# nothing crashes, every answer is right, the CSV, Markdown and plots are
# written, pool.py reads the CSV), never a check of speed.  It also reads
# every server's error log, kept with run.sh --keep: nothing above notice
# but mod_reap's start-up warning on stock APR and the worker MPM's note
# that every thread is busy (run.sh opens as many connections as the child
# has threads).  Runs from the top build directory like
# tests/httpd/test_mod_reap_*.sh; its results go to the build tree
# (loadtest/wrk-check/), never into the source tree's loadtest/results/;
# run.sh's work directory is removed at the end.
# Exit status as run.sh: 0 pass, 1 fail, 77 skipped (no mod_bc.so or no
# reap-backed APR: said loudly in the log).

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
export MR_BUILDDIR
MR_APR_LIB=
here=$(dirname "$0")
MR_LIBDIR=$here/../../tests/httpd
. "$MR_LIBDIR/httpd_lib.sh"

# Only the latest check's results are kept.
rm -rf "$MR_BUILDDIR/loadtest/wrk-check"
out=$MR_BUILDDIR/loadtest/wrk-check
mkdir -p "$out"
log=$out/run.log
{
    bash "$here/run.sh" --quick --keep --build "$MR_BUILDDIR" --out "$out"
    echo $? >"$out/run.status"
} | tee "$log"
status=$(cat "$out/run.status")
work=$(sed -n 's/^work directory kept: //p' "$log" | tail -1)
case $work in
/tmp/wrk-loadtest.*) cleanup_push "rm -rf '$work'" ;;
*) echo "quick-test: run.sh named no work directory" >&2; exit 1 ;;
esac

# The error log of every server run.sh started: mod_reap's warning on
# stock APR, AH00286 (MaxRequestWorkers reached) when wrk's connections
# take every thread, and nothing else above notice.
logs=0
bad=0
for f in "$work"/run-*/error.log; do
    [ -f "$f" ] || continue
    logs=$((logs + 1))
    mr_log_clean_file "$f" 'mod_reap: libreap .* is NOT reap-backed' \
        'AH00286: server reached MaxRequestWorkers' || bad=$((bad + 1))
done
echo "quick-test: $((logs - bad)) of $logs servers' error logs hold nothing above notice but the expected"
[ "$status" -eq 0 ] || exit "$status"
[ "$logs" -gt 0 ] && [ "$bad" -eq 0 ] || exit 1
# pool.py, the script the README's pooled static figures come from, must
# read what run.sh writes: one stock/reap pair per thread count here.
csv=$(ls "$out"/wrk-*.csv | grep -v -- '-summary\.csv$' | head -1)
python3 "$here/pool.py" "$csv" || {
    echo "quick-test: pool.py could not pool $csv" >&2
    exit 1
}
