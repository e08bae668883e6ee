#!/bin/sh
# run.sh - runs the allocator benchmarks of loadtest/mt/ against glibc,
# jemalloc, tcmalloc, mimalloc (Debian's libjemalloc2, libtcmalloc-minimal4,
# libmimalloc2.0) and libreap-malloc.so through LD_PRELOAD, at 1, 2, 4 and
# 8 threads; prints a table (seconds and peak RSS, best of REPS runs),
# writes loadtest/results/mt-<date>.csv and, with gnuplot, a PNG of time
# against threads per benchmark.
#
# usage: loadtest/mt/run.sh [BUILD_DIR]   (default: ./build, or the cwd if
#        it holds loadtest/mt/threadtest).  Environment: THREADS="1 2 4 8",
#        BENCHES="threadtest ...", ALLOCS="glibc ... reap", REPS=3, SCALE=1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${1:-}
if [ -z "$build" ]; then
    if [ -x ./loadtest/mt/threadtest ]; then build=$PWD; else build=$top/build; fi
fi
bin=$build/loadtest/mt
THREADS=${THREADS:-"1 2 4 8"}
BENCHES=${BENCHES:-"threadtest larson cache-scratch cache-thrash prodcons mstress shbench"}
ALLOCS=${ALLOCS:-"glibc jemalloc tcmalloc mimalloc reap"}
REPS=${REPS:-3}
SCALE=${SCALE:-1}

# The library to preload for allocator $1, from loadtest/mt/allocators.
lib_of() {
    awk -v name="$1" -v build="$build" '
        !/^#/ && $1 == name { found = 1; lib = $2; if (lib == "-") lib = ""
                              sub(/@BUILD@/, build, lib); print lib }
        END { exit !found }' "$here/allocators" ||
        { echo "run.sh: unknown allocator $1 (see $here/allocators)" >&2; exit 2; }
}

for b in $BENCHES; do
    [ -x "$bin/$b" ] || { echo "run.sh: $bin/$b not built (make in $build)" >&2; exit 1; }
done
for a in $ALLOCS; do
    l=$(lib_of "$a")
    [ -z "$l" ] || [ -f "$l" ] || { echo "run.sh: $a: $l missing" >&2; exit 1; }
done

mkdir -p "$top/loadtest/results"
stamp=$(date -u +%Y%m%d-%H%M%S)
csv=$top/loadtest/results/mt-$stamp.csv
echo "bench,allocator,threads,seconds,mops_per_s,peak_rss_kb,extra" >"$csv"

field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

for b in $BENCHES; do
    for t in $THREADS; do
        for a in $ALLOCS; do
            l=$(lib_of "$a")
            best=""
            r=0
            while [ $r -lt "$REPS" ]; do
                line=$(LD_PRELOAD=$l "$bin/$b" -t "$t" -s "$SCALE" | grep '^bench=') || {
                    echo "run.sh: $b -t $t under $a failed" >&2; line=""; }
                if [ -n "$line" ]; then
                    s=$(field seconds "$line")
                    if [ -z "$best" ] || awk "BEGIN{exit !($s < $(field seconds "$best"))}"; then
                        best=$line
                    fi
                fi
                r=$((r + 1))
            done
            [ -n "$best" ] || continue
            extra=$(echo "$best" | tr ' ' '\n' | grep -E '^(blowup|peak_live_kb)=' | tr '\n' ' ' | sed 's/ $//')
            echo "$b,$a,$t,$(field seconds "$best"),$(field mops_per_s "$best"),$(field peak_rss_kb "$best"),$extra" >>"$csv"
        done
    done
done

# The table: one row per benchmark and thread count, seconds/RSS per allocator.
awk -F, -v allocs="$ALLOCS" '
NR == 1 { next }
{ key = $1 "," $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
  sec[key "," $2] = $4; rss[key "," $2] = $6; ext[key "," $2] = $7 }
END {
  na = split(allocs, A, " ")
  printf "%-14s %3s", "bench", "thr"
  for (i = 1; i <= na; i++) printf " | %-19s", A[i] " s / MB"
  printf "\n"
  for (k = 1; k <= n; k++) {
    split(order[k], kk, ",")
    printf "%-14s %3s", kk[1], kk[2]
    for (i = 1; i <= na; i++) {
      c = order[k] "," A[i]
      if (c in sec) printf " | %8.3f %6.1f    ", sec[c], rss[c] / 1024
      else printf " | %-19s", "-"
    }
    printf "\n"
  }
}' "$csv" | tee "$top/loadtest/results/mt-$stamp.txt"
echo "blowup (prodcons, RSS growth / peak live):" | tee -a "$top/loadtest/results/mt-$stamp.txt"
awk -F, '$1 == "prodcons" { split($7, e, " "); for (i in e) if (e[i] ~ /^blowup=/) { sub("blowup=", "", e[i]); printf "  %-9s %s threads: %s\n", $2, $3, e[i] } }' "$csv" | tee -a "$top/loadtest/results/mt-$stamp.txt"
echo "csv: $csv"

# plot GP_FILE PNG COLUMN YLABEL: one panel per benchmark, one line per allocator.
plot() {
    nb=$(echo $BENCHES | wc -w)
    {
        echo "set terminal png size 1400,$((330 * ((nb + 2) / 3))) font ',9'"
        echo "set output '$2'"
        echo "set datafile separator ','"
        echo "set multiplot layout $(((nb + 2) / 3)),3"
        echo "set xlabel 'threads'; set ylabel '$4'; set key top left; set logscale x 2"
        echo "set xrange [0.8:10]; set xtics (1,2,4,8); set yrange [0:*]"
        for b in $BENCHES; do
            echo "set title '$b'"
            printf "plot "
            sep=""
            for a in $ALLOCS; do
                printf "%s\"< awk -F, '\$1==\\\"%s\\\" \&\& \$2==\\\"%s\\\"' %s\" using 3:%s with linespoints title '%s'" \
                    "$sep" "$b" "$a" "$csv" "$3" "$a"
                sep=", "
            done
            echo
        done
        echo "unset multiplot"
    } >"$1"
    gnuplot "$1" && echo "png: $2"
}

if command -v gnuplot >/dev/null 2>&1; then
    base=$top/loadtest/results/mt-$stamp
    plot "$base.gp" "$base.png" 4 "seconds (lower is better)"
    plot "$base-rss.gp" "$base-rss.png" '($6/1024)' "peak RSS, MB"
fi
