#!/bin/sh
# regenerate.sh - run again the benchmarks whose results docs/benchmarks.md
# cites, each with the command that produced the kept files.
#
#   loadtest/results/regenerate.sh [--list] [BUILD_DIR] [NAME...]
#
# NAME is one of: reapbench mt giveback wrk-bc wrk-static wrk-peak
# wrk-peak-event profile h2 h2-equal h2-nomod h2-profile trace mimalloc-bench
# mimalloc-bench-large
# soak modules modules-include-frees modules-proxy-html bc (default: all of
# them, in that order; about 3 hours on 2 cores).  BUILD_DIR is the
# build directory of ./quickstart [<source>/build], with the reap-backed
# APR in BUILD_DIR/install/apr.  --list prints each name, the kept files
# it stands for and its command, and runs nothing.
#
# Every runner writes new files with a new time stamp under
# loadtest/results/ (bc prints its table only).  Nothing here deletes the
# kept files: compare, update docs/benchmarks.md, then `git rm` the old
# ones.  The figures move from run to run on a shared machine; the runners
# never assert a speed.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)

# name | kept files | command (run from the source directory; $build is
# BUILD_DIR)
runs() {
    cat <<'EOF'
reapbench|reapbench-summary.csv|loadtest/reapbench.sh "$build"
mt|mt-20261124-102311.*, mt-20261124-102311-runs.csv, -rss.*|REPS=15 loadtest/mt/run.sh "$build"
giveback|giveback-20261128-095559.*|loadtest/mt/giveback.sh --reps 5 --out loadtest/results "$build"
wrk-bc|wrk-20261122-221153.*|loadtest/wrk/run.sh --build "$build" --scenarios "small medium mix"
wrk-static|wrk-20261123-150914.*, wrk-20261123-204318.* and the CSVs pool.py reads|loadtest/wrk/run.sh --build "$build" --scenarios static --configs "stock reap" --reps 40
wrk-peak|wrk-20261127-213333.* (worker MPM)|loadtest/wrk/run.sh --build "$build" --scenarios static --configs "stock reap" --threads "1 16 64" --reps 10 --duration 4
wrk-peak-event|wrk-20261127-213955.* (event MPM)|loadtest/wrk/run.sh --build "$build" --mpm event --scenarios static --configs "stock reap" --threads "1 16 64" --reps 10 --duration 4
profile|profile/profile-20261127-223108.md, -223143.md|loadtest/wrk/profile.sh --build "$build"
h2|h2-20261127-090235.*|loadtest/h2/run.sh --build "$build" --out loadtest/results --reps 3
h2-equal|h2-20261127-090814.*|loadtest/h2/run.sh --build "$build" --out loadtest/results --rps 50
h2-nomod|h2-20261128-100847.*|loadtest/h2/run.sh --build "$build" --out loadtest/results --reps 2
h2-profile|h2-20261125-231012.* (of 61d8858)|loadtest/h2/run.sh --build "$build" --reps 5
trace|trace-20261128-105300.*, profile/profile-20261128-105300.md|loadtest/trace/scenarios.sh
mimalloc-bench|mimalloc-bench-20261128-151502.*|loadtest/mt/mimalloc-bench.sh --build "$build" --out loadtest/results "${MIMALLOC_BENCH:?set MIMALLOC_BENCH to a built mimalloc-bench checkout (docs/benchmarks.md)}"
mimalloc-bench-large|mimalloc-bench-20261129-035945.* (malloc-large's row)|loadtest/mt/mimalloc-bench.sh --tests "malloc-large" --no-security --build "$build" --out loadtest/results "${MIMALLOC_BENCH:?set MIMALLOC_BENCH to a built mimalloc-bench checkout (docs/benchmarks.md)}"
soak|soak-20261122-152641.*|loadtest/soak/soak.sh "$build"
modules|modules-20261129-040947.*|loadtest/modules/run.sh --reps 5 --build "$build"
modules-proxy-html|modules-20261129-045601.*|loadtest/modules/run.sh --workloads proxy_html --reps 5 --build "$build"
modules-include-frees|modules-20261129-003829.* (fsize, flastmod and if frees)|loadtest/modules/run.sh --workloads include --reps 3 --build "$build"
bc|(none: docs/benchmarks.md, "bc")|loadtest/bc-bench.sh "$build/modules/mod_bc/reap-bc"
EOF
}

list=0
if [ "${1:-}" = --list ]; then
    list=1
    shift
fi
build=$top/build
if [ $# -gt 0 ] && [ -d "$1" ]; then
    build=$(cd "$1" && pwd)
    shift
fi
names=${*:-"reapbench mt giveback wrk-bc wrk-static wrk-peak wrk-peak-event profile h2 h2-equal h2-nomod h2-profile trace mimalloc-bench mimalloc-bench-large soak modules modules-include-frees modules-proxy-html bc"}

if [ "$list" = 1 ]; then
    runs | while IFS='|' read -r name files cmd; do
        printf '%-11s %s\n            %s\n' "$name" "$files" "$cmd"
    done
    exit 0
fi

for n in $names; do
    runs | grep -q "^$n|" || { echo "regenerate.sh: no result set named '$n'" >&2; exit 2; }
done
[ -d "$build" ] || { echo "regenerate.sh: no build directory $build (./quickstart)" >&2; exit 2; }

cd "$top"
status=0
for n in $names; do
    cmd=$(runs | sed -n "s/^$n|[^|]*|//p")
    echo "== $n: $cmd"
    build=$build sh -c "$cmd" || { echo "== $n failed" >&2; status=1; }
done
if [ "$status" -eq 0 ]; then
    echo "new results are in loadtest/results/; the pooled static figures: docs/benchmarks.md"
fi
exit $status
