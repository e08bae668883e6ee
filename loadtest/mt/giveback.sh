#!/bin/sh
# giveback.sh - the RSS each allocator gives back after a peak, without
# malloc_trim: runs loadtest/mt/giveback (see its header) under glibc,
# jemalloc, tcmalloc, mimalloc and libreap-malloc.so (LD_PRELOAD, the
# libraries of loadtest/mt/allocators), with the worker threads staying
# alive and idle after their frees and with them exiting, REPS rounds in
# one run, the allocators in an order that rotates from round to round.
# Prints the medians over the rounds (RSS before, at the peak, at 0, 0.1,
# 0.5 and 1 s of the idle and after it (the 2 s sample is in the CSV),
# after / the smallest "after" of the allocators other than reap, and
# after / glibc's) and writes giveback-<stamp>.csv
# (every run) and giveback-<stamp>.txt (the table) under the output
# directory.  REAP_* variables in the environment reach libreap-malloc.so
# (and nobody else): `REAP_RETAIN_MAX=4m loadtest/mt/giveback.sh`.
#
# usage: loadtest/mt/giveback.sh [--reps N] [--threads T] [--mb M] [--idle S]
#            [--cross PCT] [--modes "idle exit"] [--allocs "glibc ... reap"]
#            [--out DIR] [BUILD_DIR]
#        defaults: 3 rounds, 4 threads, 256 MB, 2 s, 25% freed by another
#        thread, both modes, all five, DIR = BUILD_DIR/loadtest/results;
#        BUILD_DIR as for run.sh (./build, or the cwd if it holds
#        loadtest/mt/giveback).  REPS and ALLOCS in the environment also set
#        --reps and --allocs.  About 90 s with the defaults.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -eu
here=$(cd "$(dirname "$0")" && pwd)
reps=${REPS:-3} threads=4 mb=256 idle=2 cross=25 modes="idle exit"
allocs=${ALLOCS:-"glibc jemalloc tcmalloc mimalloc reap"} out="" build=""
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --mb) mb=$2; shift 2 ;;
    --idle) idle=$2; shift 2 ;;
    --cross) cross=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --allocs) allocs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "giveback.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
if [ -z "$build" ]; then
    if [ -x ./loadtest/mt/giveback ]; then build=$PWD; else build=$here/../../build; fi
fi
build=$(cd "$build" && pwd)
prog=$build/loadtest/mt/giveback
[ -x "$prog" ] || { echo "giveback.sh: $prog is not built (make in $build)" >&2; exit 2; }
out=${out:-$build/loadtest/results}
mkdir -p "$out"

# The library to preload for allocator $1 ("" for the C library's own).
. "$here/preload.sh"
preload() { mt_preload "$1" "$build" giveback.sh || exit 2; }
for a in $allocs; do preload "$a" >/dev/null; done

stamp=$(date -u +%Y%m%d-%H%M%S)
csv=$out/giveback-$stamp.csv txt=$out/giveback-$stamp.txt
samples="rss_0s_kb rss_0.1s_kb rss_0.5s_kb rss_1s_kb rss_2s_kb"
cols="before_kb peak_kb $samples after_kb"
echo "round,mode,allocator,threads,mb,cross_pct,live_kb,$(echo $cols | tr ' ' ,)" >"$csv"
r=0
while [ "$r" -lt "$reps" ]; do
    r=$((r + 1))
    set -- $allocs # rotate: round r starts with allocator r
    i=1
    while [ "$i" -lt "$r" ]; do first=$1; shift; set -- "$@" "$first"; i=$((i + 1)); done
    for mode in $modes; do
        for a in "$@"; do
            lib=$(preload "$a")
            line=$(env -u LD_PRELOAD ${lib:+LD_PRELOAD="$lib"} "$prog" -t "$threads" -m "$mb" \
                -i "$idle" -c "$cross" -x "$mode" -a "$a" | grep '^bench=giveback') || {
                echo "giveback.sh: $a, $mode: no result line" >&2; exit 1; }
            echo "$line" | awk -v r="$r" -v cols="$cols" '{
                for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
                n = split(cols, c, " ")
                row = r "," f["mode"] "," f["alloc"] "," f["threads"] "," f["mb"] "," f["cross_pct"] "," f["live_kb"]
                for (i = 1; i <= n; i++) row = row "," f[c[i]]
                print row }' >>"$csv"
        done
    done
    echo "round $r/$reps done" >&2
done

# The medians per mode and allocator, in the order of --allocs.
awk -F, -v allocs="$allocs" -v reps="$reps" -v threads="$threads" -v mb="$mb" -v idle="$idle" '
function median(key,   n, i, j, v, t) {
    n = cnt[key]
    for (i = 1; i <= n; i++) v[i] = val[key, i] + 0
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
NR == 1 { for (i = 8; i <= NF; i++) col[i] = $i; ncol = NF; next }  # the last sample is "after"
{
    if (!($2 in seen)) { seen[$2] = 1; modes[++nm] = $2 }
    for (i = 8; i <= ncol; i++) if ($i != "") { k = $2 SUBSEP $3 SUBSEP i; val[k, ++cnt[k]] = $i }
}
END {
    na = split(allocs, a, " ")
    printf "medians of %d rounds, KiB of RSS; %d threads, %s MB, idle %s s, allocators rotated each round\n", reps, threads, mb, idle
    for (m = 1; m <= nm; m++) {
        best = ""
        for (j = 1; j <= na; j++) {
            k = modes[m] SUBSEP a[j] SUBSEP ncol
            if (a[j] != "reap" && cnt[k] && (best == "" || median(k) < median(best_k))) { best = a[j]; best_k = k }
        }
        printf "\nthreads %-6s", modes[m] ":"
        for (i = 8; i <= ncol; i++) if (col[i] != "rss_2s_kb") {
            h = col[i]; sub(/_kb$/, "", h); sub(/^rss_/, "", h); printf " %9s", h }
        printf " | after/best peer (%s), after/glibc\n", best == "" ? "-" : best
        gk = modes[m] SUBSEP "glibc" SUBSEP ncol
        for (j = 1; j <= na; j++) {
            printf "  %-12s", a[j]
            for (i = 8; i <= ncol; i++) if (col[i] != "rss_2s_kb") {
                k = modes[m] SUBSEP a[j] SUBSEP i
                if (cnt[k]) printf " %9d", median(k); else printf " %9s", "-"
            }
            k = modes[m] SUBSEP a[j] SUBSEP ncol
            printf " |"
            if (best != "" && median(best_k) > 0) printf " %6.2f", median(k) / median(best_k); else printf " %6s", "-"
            if (cnt[gk] && median(gk) > 0) printf " %11.2f", median(k) / median(gk); else printf " %11s", "-"
            printf "\n"
        }
    }
}' "$csv" | tee "$txt"
echo "csv: $csv (every run); table: $txt"
