#!/bin/sh
# quick-test.sh - `make check` runs the wrk load test in --quick mode: a
# check that the harness works (servers start on stock APR, on the
# reap-backed APR and with libreap-malloc.so preloaded, wrk drives them,
# nothing crashes, every answer is right, the CSV, Markdown and plots are
# written, pool.py reads the CSV), never a check of speed.  Runs from the
# top build directory like tests/httpd/test_mod_reap_*.sh; its results go
# to the build tree (loadtest/wrk-check/), never into the source tree's
# loadtest/results/.
# Exit status as run.sh: 0 pass, 1 fail, 77 skipped (no mod_bc.so or no
# reap-backed APR: said loudly in the log).
MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
export MR_BUILDDIR
# Only the latest check's results are kept.
rm -rf "$MR_BUILDDIR/loadtest/wrk-check"
out=$MR_BUILDDIR/loadtest/wrk-check
bash "$(dirname "$0")/run.sh" --quick --build "$MR_BUILDDIR" --out "$out"
status=$?
[ "$status" -eq 0 ] || exit "$status"
# pool.py, the script the README's pooled static figures come from, must
# read what run.sh writes: one stock/reap pair per thread count here.
csv=$(ls "$out"/wrk-*.csv | grep -v -- '-summary\.csv$' | head -1)
python3 "$(dirname "$0")/pool.py" "$csv" || {
    echo "quick-test: pool.py could not pool $csv" >&2
    exit 1
}
