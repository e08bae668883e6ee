#!/bin/bash
# mimalloc-bench.sh - the programs of the public mimalloc-bench suite
# (github.com/daanx/mimalloc-bench), from a checkout the user supplies,
# under glibc, jemalloc, tcmalloc, mimalloc and libreap-malloc.so.
#
# Nothing of the suite is in this repository: DIR is a checkout whose
# programs are built in DIR/out/bench, as the suite builds them itself
# (`./build-bench-env.sh bench`, which downloads sh6bench and sh8bench;
# offline, `touch DIR/bench/shbench/sh6bench-new.c DIR/bench/shbench/sh8bench-new.c`
# first, or CMake stops on the missing sources, then
# `cmake -S DIR/bench -B DIR/out/bench && make -k -C DIR/out/bench`, in
# which the two fail to link and the rest builds).  A program that is not
# built is skipped and said so.
#
# Each program runs by LD_PRELOAD (the libraries of loadtest/mt/allocators)
# at 1 and 2 threads where it takes a count, REPS rounds, the allocators in
# an order that rotates from round to round so a shared machine's drift
# falls on all of them.  /usr/bin/time gives the wall time and max RSS of
# each run; programs that run for a fixed time report their rate, which is
# turned into a time as the suite does (larson and xmalloc-test print a
# relative time; rptest's memory ops and glibc-thread's iterations become
# 2e6 / ops and 1e9 / iterations).  Then the suite's security tests
# (DIR/out/bench/security/*: each prints NOT_CAUGHT when the allocator let
# the misuse pass) run once under every allocator, 2 s each at most.
#
# Output, under --out (default BUILD_DIR/loadtest/results):
#   mimalloc-bench-<stamp>.csv           every run
#   mimalloc-bench-<stamp>.txt           medians, reap / best peer and
#                                        reap / glibc for time and RSS
#   mimalloc-bench-<stamp>-security.csv  test, allocator, caught|missed|timeout
# and the table and the security totals on stdout.  Speed is printed, never
# asserted; the exit status is 2 on bad arguments or no built program.
#
# usage: loadtest/mt/mimalloc-bench.sh [--reps N] [--threads "1 2"]
#            [--tests "cfrac larson ..."] [--allocs "glibc ... reap"]
#            [--no-security] [--out DIR] [--build BUILD_DIR] DIR
#        defaults: 3 rounds, threads 1 and 2, every program below, all five
#        allocators, BUILD_DIR ./build (libreap-malloc.so's).  REAP_*
#        variables in the environment reach every run.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
here=$(cd "$(dirname "$0")" && pwd)
reps=3 threads="1 2" security=1 out="" build="" dir=""
allocs="glibc jemalloc tcmalloc mimalloc reap"
tests="cfrac espresso barnes alloc-test larson larson-sized xmalloc-test cache-scratch cache-thrash
       malloc-large mstress mleak rptest glibc-simple glibc-thread"
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    --allocs) allocs=$2; shift 2 ;;
    --no-security) security=0; shift ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "mimalloc-bench.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    *) dir=$1; shift ;;
    esac
done
[ -n "$dir" ] || { echo "mimalloc-bench.sh: name a mimalloc-bench checkout (--help)" >&2; exit 2; }
dir=$(cd "$dir" && pwd) || exit 2
bin=$dir/out/bench
[ -d "$bin" ] || {
    echo "mimalloc-bench.sh: $bin does not exist: build the suite first (cmake -S $dir/bench -B $bin && make -C $bin)" >&2
    exit 2
}
build=$(cd "${build:-$here/../../build}" && pwd) || exit 2
out=${out:-$build/loadtest/results}
mkdir -p "$out" || exit 2

# The library to preload for allocator $1 ("" for the C library's own).
. "$here/preload.sh"
preload() { mt_preload "$1" "$build" mimalloc-bench.sh; }
for a in $allocs; do preload "$a" >/dev/null || exit 2; done

# command <test> <threads>: the program's command line (empty when the test
# takes no thread count and threads is not the first of --threads); the
# arguments are the suite's own.
first_t=${threads%% *}
command_of() {
    local t=$2
    case $1 in
    cfrac) [ "$t" = "$first_t" ] && echo "./cfrac 17545186520507317056371138836327483792789528" ;;
    espresso) [ "$t" = "$first_t" ] && echo "./espresso $dir/bench/espresso/largest.espresso" ;;
    barnes) [ "$t" = "$first_t" ] && echo "./barnes" ;;
    malloc-large) [ "$t" = "$first_t" ] && echo "./malloc-large" ;;
    mleak) [ "$t" = "$first_t" ] && echo "./mleak 5" ;;
    glibc-simple) [ "$t" = "$first_t" ] && echo "./glibc-simple" ;;
    alloc-test) echo "./alloc-test $t" ;;
    larson) echo "./larson 5 8 1000 5000 100 4141 $t" ;;
    larson-sized) echo "./larson-sized 5 8 1000 5000 100 4141 $t" ;;
    xmalloc-test) echo "./xmalloc-test -w $t -t 5 -s 64" ;;
    cache-scratch) echo "./cache-scratch $t 1000 1 2000000 $t" ;;
    cache-thrash) echo "./cache-thrash $t 1000 1 2000000 $t" ;;
    mstress) echo "./mstress $t 50 25" ;;
    rptest) echo "./rptest $t 0 1 2 500 1000 100 8 16000" ;;
    glibc-thread) echo "./glibc-thread $t" ;;
    *) echo "mimalloc-bench.sh: unknown test $1" >&2; return 1 ;;
    esac
}
runnable=""
for t in $tests; do
    command_of "$t" "$first_t" >/dev/null || exit 2
    if [ -x "$bin/$t" ]; then runnable="$runnable $t"; else echo "mimalloc-bench.sh: $t is not built in $bin: skipped" >&2; fi
done
[ -n "$runnable" ] || { echo "mimalloc-bench.sh: no program of --tests is built in $bin" >&2; exit 2; }

# seconds <test> <wall> <output file>: the run's time, from its own rate for
# the programs that run for a fixed time.
seconds() {
    local v
    case $1 in
    larson*) v=$(sed -n 's/.*relative time: \([0-9.]*\)s.*/\1/p' "$3" | tail -1) ;;
    xmalloc-test) v=$(sed -n 's/^rtime: \([0-9.]*\).*/\1/p' "$3" | tail -1) ;;
    rptest) v=$(sed -n 's/.*[^0-9]\([0-9][0-9]*\) memory ops.*/\1/p' "$3" | tail -1)
        [ -n "$v" ] && v=$(awk -v o="$v" 'BEGIN { if (o > 0) printf "%.3f", 2e6 / o }') ;;
    glibc-thread) v=$(awk '/iterations/ { n = $1 } END { if (n > 0) printf "%.3f", 1e9 / n }' "$3") ;;
    *) v=$2 ;;
    esac
    echo "${v:-}"
}

stamp=$(date -u +%Y%m%d-%H%M%S)
csv=$out/mimalloc-bench-$stamp.csv txt=$out/mimalloc-bench-$stamp.txt sec=$out/mimalloc-bench-$stamp-security.csv
tmp=$(mktemp -d /tmp/mimalloc-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "round,test,threads,allocator,seconds,wall_s,max_rss_kb,user_s,sys_s,exit" >"$csv"
r=0
while [ "$r" -lt "$reps" ]; do
    r=$((r + 1))
    set -- $allocs # round r starts with allocator r
    i=1
    while [ "$i" -lt "$r" ]; do first=$1; shift; set -- "$@" "$first"; i=$((i + 1)); done
    for t in $runnable; do
        for n in $threads; do
            cmd=$(command_of "$t" "$n")
            [ -n "$cmd" ] || continue
            for a in "$@"; do
                lib=$(preload "$a")
                stdin=/dev/null
                [ "$t" = barnes ] && stdin=$dir/bench/barnes/input
                (cd "$bin" && env -u LD_PRELOAD ${lib:+LD_PRELOAD="$lib"} /usr/bin/time -o "$tmp/time" \
                    -f "%e %M %U %S %x" $cmd <"$stdin" >"$tmp/out" 2>&1)
                # the last line: before it GNU time may say how the command ended
                read -r wall rss user sys rc < <(tail -n 1 "$tmp/time" 2>/dev/null)
                case $wall in [0-9]*) ;; *) wall= rss= user= sys= rc=signal ;; esac
                s=$(seconds "$t" "$wall" "$tmp/out")
                echo "$r,$t,$n,$a,$s,$wall,$rss,$user,$sys,$rc" >>"$csv"
                printf '[round %d/%d] %-14s %s thr %-9s %8s s %8s KiB%s\n' "$r" "$reps" "$t" "$n" "$a" \
                    "${s:--}" "${rss:--}" "$([ "$rc" = 0 ] || echo "  exit $rc")" >&2
            done
        done
    done
done

# Medians per test, threads and allocator; reap against the best peer (the
# fastest, or the smallest RSS, of the others) and against glibc.
awk -F, -v allocs="$allocs" -v reps="$reps" '
function median(k,   n, i, j, v, t) {
    n = cnt[k]
    for (i = 1; i <= n; i++) v[i] = val[k, i] + 0
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function put(k, x) { if (x != "") val[k, ++cnt[k]] = x }
NR == 1 { next }
{   p = $2 " " $3
    if (!(p in seen)) { seen[p] = 1; order[++np] = p }
    put(p SUBSEP $4 SUBSEP "t", $5); put(p SUBSEP $4 SUBSEP "m", $7) }
function ratios(p, f,   j, best, bk, rk, gk) {
    rk = p SUBSEP "reap" SUBSEP f; gk = p SUBSEP "glibc" SUBSEP f; best = ""
    for (j = 1; j <= na; j++) {
        k = p SUBSEP a[j] SUBSEP f
        if (a[j] != "reap" && cnt[k] && (best == "" || median(k) < median(bk))) { best = a[j]; bk = k }
    }
    if (!cnt[rk]) return sprintf(" %16s %7s", "-", "-")
    return sprintf(" %7.2f %-8s %7s", best == "" ? 0 : median(rk) / median(bk), best,
                   cnt[gk] && median(gk) > 0 ? sprintf("%.2f", median(rk) / median(gk)) : "-")
}
END {
    na = split(allocs, a, " ")
    printf "mimalloc-bench programs, medians of %d rounds (allocators rotated each round)\n", reps
    printf "time: seconds (fixed-time programs: their rate as a time); RSS: max RSS, MB\n\n"
    printf "%-18s", "test threads"
    for (j = 1; j <= na; j++) printf " %9s", a[j]
    printf " | %-16s %7s | %-16s %7s\n", "time reap/best", "/glibc", "RSS reap/best", "/glibc"
    for (i = 1; i <= np; i++) {
        p = order[i]
        printf "%-18s", p
        for (j = 1; j <= na; j++) {
            k = p SUBSEP a[j] SUBSEP "t"
            if (cnt[k]) printf " %9.3f", median(k); else printf " %9s", "-"
        }
        printf " |%s |%s\n", ratios(p, "t"), ratios(p, "m")
        printf "%-18s", "  max RSS MB"
        for (j = 1; j <= na; j++) {
            k = p SUBSEP a[j] SUBSEP "m"
            if (cnt[k]) printf " %9.1f", median(k) / 1024; else printf " %9s", "-"
        }
        printf "\n"
    }
}' "$csv" | tee "$txt"

# The security tests: caught unless the program printed NOT_CAUGHT; a
# run that outlives 2 s is a timeout (neither).
if [ "$security" = 1 ] && [ -d "$bin/security" ]; then
    echo "test,allocator,result" >"$sec"
    for a in $allocs; do
        lib=$(preload "$a")
        for p in "$bin"/security/*; do
            [ -f "$p" ] && [ -x "$p" ] || continue
            # most end in a signal, on purpose: the shell's report of it is not wanted
            { (cd "$bin/security" && env -u LD_PRELOAD ${lib:+LD_PRELOAD="$lib"} timeout 2s "$p" >"$tmp/sec" 2>&1); } 2>/dev/null
            rc=$?
            if [ "$rc" = 124 ]; then res=timeout
            elif grep -aq NOT_CAUGHT "$tmp/sec"; then res=missed
            else res=caught; fi
            echo "$(basename "$p"),$a,$res" >>"$sec"
        done
    done
    {
        echo
        echo "security tests (the suite's bench/security): caught / run, per allocator"
        awk -F, -v allocs="$allocs" 'NR > 1 { n[$2]++; if ($3 == "caught") c[$2]++; if ($3 == "timeout") to[$2]++ }
            END { na = split(allocs, a, " ")
                  for (j = 1; j <= na; j++) printf "  %-9s %3d / %d%s\n", a[j], c[a[j]], n[a[j]], to[a[j]] ? " (" to[a[j]] " timed out)" : "" }' "$sec"
        echo "tests reap misses that glibc catches:"
        awk -F, 'NR > 1 { r[$1, $2] = $3; t[$1] = 1 }
            END { for (x in t) if (r[x, "reap"] != "caught" && r[x, "glibc"] == "caught") print "  " x }' "$sec" | sort
    } | tee -a "$txt"
fi
echo "csv: $csv (every run)$([ "$security" = 1 ] && echo "; security: $sec"); table: $txt"
