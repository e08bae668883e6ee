#!/usr/bin/env bash
# reapbench.sh - run loadtest/reapbench under each malloc Debian ships.
#
#   loadtest/reapbench.sh [BUILD_DIR] [-- reapbench options]
#
# Each allocator runs in its own process (LD_PRELOAD); the processes take
# turns over ROUNDS rounds (glibc, jemalloc, tcmalloc, mimalloc, glibc, ...)
# so drift on a shared machine shows as spread, not as a difference.  The
# APR and reap rows appear in every process: compare a malloc with the
# reap rows of its own run.  Writes loadtest/results/reapbench-*.csv, a
# summary table of medians and the ratios the project's goals are stated
# in (reap ÷ the best malloc, ÷ mimalloc's heaps, ÷ talloc, region mode ÷
# APR's pools; issue 28), each over the medians of every process's rows
# with its least and most within one round (the noise), and those ratios
# beside the run before's (the ratios file this run
# replaces: in a fresh checkout, the committed figures; loadtest/compare.py).
#
# BASE=DIR (a build directory of another commit, e.g. the previous main's)
# adds that build's reapbench to every round beside this build's glibc
# process and under glibc too, after it in odd rounds and before it in even
# ones: the order alone moves every row, the rows without libreap too, so
# the sides take turns at it (an even ROUNDS gives each side as many
# firsts).  It ends with each reap and APR row
# of this build over the same row of BASE: medians of the rounds, and in
# brackets the least and most of the rounds' own ratios (each round's pair
# ran one after the other).  Below 1, this build is faster.  Written to
# loadtest/results/reapbench-base.csv (loadtest/compare.py --base).
# ROUNDS=N sets the rounds [3; with BASE, 4, and an odd N one more].

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
[ "${2:-}" = "--" ] && shift 2 || shift $(( $# > 0 ? 1 : 0 ))
bench=$build/loadtest/reapbench
[ -x "$bench" ] || { echo "reapbench.sh: build first (./quickstart)" >&2; exit 1; }
lib=/usr/lib/x86_64-linux-gnu
declare -A preload=(
    [glibc]=""
    [jemalloc]=$lib/libjemalloc.so.2
    [tcmalloc]=$lib/libtcmalloc_minimal.so.4
    [mimalloc]=$lib/libmimalloc.so.2
)
order=(glibc jemalloc tcmalloc mimalloc)
base=${BASE:-}
if [ -n "$base" ]; then # as many rounds with each side first
    rounds=${ROUNDS:-4}
    rounds=$((rounds + rounds % 2))
else
    rounds=${ROUNDS:-3}
fi
out=$top/loadtest/results
mkdir -p "$out"
if [ -n "$base" ] && [ ! -x "$base/loadtest/reapbench" ]; then
    echo "reapbench.sh: BASE=$base has no loadtest/reapbench (build it there)" >&2
    exit 1
fi
rm -f "$out"/reapbench-round-*.csv "$out"/reapbench-base-round-*.csv
# base_run <round> [reapbench options]: BASE's process of that round.
base_run() {
    local r=$1
    shift
    echo "round $r/$rounds: glibc, BASE's build" >&2
    "$base/loadtest/reapbench" --label glibc --reps 3 \
        --csv "$out/reapbench-base-round-$r.csv" "$@" >/dev/null
}
for ((r = 1; r <= rounds; r++)); do
    for a in "${order[@]}"; do
        if [ -n "${preload[$a]}" ] && [ ! -e "${preload[$a]}" ]; then
            echo "reapbench.sh: $a not installed (${preload[$a]}), skipped" >&2
            continue
        fi
        pair=no
        [ -n "$base" ] && [ "$a" = glibc ] && pair=yes
        if [ $pair = yes ] && ((r % 2 == 0)); then base_run "$r" "$@"; fi
        echo "round $r/$rounds: $a" >&2
        LD_PRELOAD=${preload[$a]} "$bench" --label "$a" --reps 3 \
            --csv "$out/reapbench-round-$r-$a.csv" "$@" >/dev/null
        if [ $pair = yes ] && ((r % 2 == 1)); then base_run "$r" "$@"; fi
    done
done
prev=$(mktemp)
trap 'rm -f "$prev"' EXIT
cp "$out/reapbench-ratios.csv" "$prev" 2>/dev/null || :
# Medians over rounds, one row per (workload, allocator, preloaded malloc).
python3 - "$out" "$rounds" <<'PY'
import csv, glob, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for f in sorted(glob.glob(f"{out}/reapbench-round-*.csv")):
    rnd = int(re.search(r"reapbench-round-(\d+)-", f).group(1))
    for row in csv.DictReader(open(f)):
        key = (row["workload"], row["allocator"], row["malloc"])
        row["round"] = rnd
        rows.setdefault(key, []).append(row)
order = {"batch": 0, "halffree": 1, "mixed": 2, "request": 3, "reuse": 4}
lines = ["workload,allocator,malloc_under_test,ns_per_alloc_median,ns_min,ns_max,peak_rss_kb_median,footprint_ratio,footprint_block_ratio,runs,note"]
print(f"{'workload':9} {'allocator':9} {'process':9} {'ns/alloc':>9} {'min-max':>15} {'peak RSS KiB':>12} {'fp/live(blk)':>12}")
rank = {"apr-pool": 0, "reap": 1, "reap-free": 2, "malloc": 3, "mi-heap": 4, "talloc": 5}
for key in sorted(rows, key=lambda k: (order.get(k[0], 9), rank.get(k[1], 9), k[2])):
    rs = rows[key]
    ns = [float(r["ns_per_alloc"]) for r in rs]
    kb = [float(r["peak_rss_kb"]) for r in rs]
    who = key[2] if key[1] == "malloc" else key[1]
    note = rs[0]["note"]
    fr = rs[0]["footprint_ratio"]
    ratio = f"{fr} ({rs[0]['footprint_block_ratio']})" if fr else ""
    print(f"{key[0]:9} {who:9} {key[2]:9} {statistics.median(ns):9.2f} {min(ns):7.2f}-{max(ns):<7.2f} {statistics.median(kb):12.0f} {ratio:>12}  {note}")
    lines.append(",".join([key[0], key[1], key[2], f"{statistics.median(ns):.3f}", f"{min(ns):.3f}", f"{max(ns):.3f}", f"{statistics.median(kb):.0f}", fr, rs[0]["footprint_block_ratio"], str(len(rs)), '"' + note + '"']))
open(f"{out}/reapbench-summary.csv", "w").write("\n".join(lines) + "\n")
print(f"(medians over {rounds} rounds of 3; CSV: loadtest/results/reapbench-summary.csv)")

# Ratios: an allocator that every process runs (apr-pool, reap, mi-heap)
# counts with the median of all its rows; a malloc with its own; talloc,
# which allocates with the process's malloc, as it is deployed: on glibc.
# In brackets, the least and the most the same ratio is within one round
# (each round's processes alone): how far the machine's noise moves it.
def ns(workload, allocator, malloc=None, rnd=None):
    v = [float(r["ns_per_alloc"]) for k, rs in rows.items() for r in rs
         if k[0] == workload and k[1] == allocator and (malloc is None or k[2] == malloc)
         and (rnd is None or r["round"] == rnd)]
    return statistics.median(v) if v else None
mallocs = sorted({k[2] for k in rows})
print()
print("reap ÷ peers (time per allocation, frees included; below 1 the reap is faster)")
print(f"{'workload':9} {'reap row':9} {'÷ best malloc':>30} {'÷ mi-heap':>18} {'÷ talloc/glibc':>18} {'÷ apr-pool':>18} {'fp/live':>8}")
NAMES = ("best_malloc", "mi_heap", "talloc_glibc", "apr_pool")
ratio_lines = ["workload,reap_row,best_malloc," + ",".join(f"ratio_{n}" for n in NAMES) + ",footprint_live,"
               + ",".join(f"ratio_{n}_range" for n in NAMES)]
all_rounds = sorted({r["round"] for rs in rows.values() for r in rs})
def ratios(wl, row, rnd=None):
    """The four ratios of a workload (None where there is no peer), over
    every round or over round rnd alone; and the best malloc's name."""
    reap = ns(wl, row, rnd=rnd)
    peers = [(t, m) for m in mallocs for t in [ns(wl, "malloc", m, rnd)] if t]
    best, who = min(peers) if peers else (None, "-")
    peer = [best, ns(wl, "mi-heap", rnd=rnd), ns(wl, "talloc", "glibc", rnd),
            ns(wl, "apr-pool", rnd=rnd) if wl == "batch" else None]
    mine = [reap, reap, reap, ns(wl, "reap", rnd=rnd)]
    return [a / b if a and b else None for a, b in zip(mine, peer)], who
for wl, row in (("batch", "reap"), ("halffree", "reap"), ("mixed", "reap"), ("request", "reap-free"), ("reuse", "reap")):
    if ns(wl, row) is None:
        continue
    med, who = ratios(wl, row)
    per_round = [ratios(wl, row, rnd)[0] for rnd in all_rounds]
    cells, ranges = [], []
    for i, v in enumerate(med):
        seen = [rr[i] for rr in per_round if rr[i] is not None]
        cells.append(f"{v:.2f}" if v is not None else "-")
        ranges.append(f"{min(seen):.2f}-{max(seen):.2f}" if v is not None and seen else "-")
    # the reap's footprint over the live bytes: its own figures, the same in every process
    fp = [r["footprint_ratio"] for k, rs in rows.items() for r in rs if k[:2] == (wl, "reap") and r["footprint_ratio"]]
    shown = [f"{c} [{r}]" if r != "-" else c for c, r in zip(cells, ranges)]
    print(f"{wl:9} {row:9} {shown[0]:>19} ({who:8}) {shown[1]:>18} {shown[2]:>18} {shown[3]:>18} {fp[0] if fp else '-':>8}")
    ratio_lines.append(",".join([wl, row, who] + cells + [fp[0] if fp else "-"] + ranges))
open(f"{out}/reapbench-ratios.csv", "w").write("\n".join(ratio_lines) + "\n")
print(f"(medians over {len(all_rounds)} rounds; in brackets, the least and most of the rounds' own ratios,"
      " which the ratio of all rounds' medians can fall just outside; CSV: loadtest/results/reapbench-ratios.csv)")
PY
python3 "$top/loadtest/compare.py" "$out/reapbench-ratios.csv" --before "$prev"
[ -z "$base" ] && exit 0
# This build against BASE, row by row: both under glibc, round by round.
python3 "$top/loadtest/compare.py" --base "$base" "$out"
