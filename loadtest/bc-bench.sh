#!/bin/sh
# bc-bench.sh - reap-bc against GNU bc (Debian's /usr/bin/bc) on the four
# workloads of the mod_bc issue: pi to 2,000 digits with -l, the 1000th
# prime by trial division, 2000!, and the 10,000th Fibonacci number.
#
# Each workload runs REPEAT times (default 5) for each bc, the two bcs
# alternating so that load from elsewhere on the machine falls on both; the
# script checks that both print the same digits, then prints the median wall
# time of each, their ratio, and reap-bc's peak reap footprint (--stats) on
# the 1000th prime, freeing numbers onto the reap and (--no-free) not.  It prints figures; it asserts nothing about time.
#
# usage: loadtest/bc-bench.sh [REAP_BC [GNU_BC]]   (env REPEAT=n)

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -e
here=$(cd "$(dirname "$0")" && pwd)
REAP_BC=${1:-${REAP_BC:-./modules/mod_bc/reap-bc}}
GNU_BC=${2:-${GNU_BC:-/usr/bin/bc}}
REPEAT=${REPEAT:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bcbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -x "$REAP_BC" ] || { echo "reap-bc not found: $REAP_BC" >&2; exit 1; }
[ -x "$GNU_BC" ] || { echo "GNU bc not found: $GNU_BC" >&2; exit 1; }

now_ns() { date +%s%N; }

# time_one BC OPTS FILE OUT: wall seconds of one run, output kept in OUT
time_one() {
    t0=$(now_ns)
    # shellcheck disable=SC2086
    "$1" -q $2 "$3" </dev/null >"$4"
    t1=$(now_ns)
    echo "$t0 $t1" | awk '{ printf "%.4f\n", ($2 - $1) / 1e9 }'
}

median() {
    sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
                    else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf '%-22s %10s %10s %8s\n' workload "GNU bc s" "reap-bc s" "reap/GNU"
for w in pi:-l prime: fact: fib:; do
    name=${w%%:*}
    opts=${w#*:}
    file="$here/bc/$name.bc"
    : >"$tmp/g.times"
    : >"$tmp/r.times"
    i=0
    while [ "$i" -lt "$REPEAT" ]; do
        time_one "$GNU_BC" "$opts" "$file" "$tmp/g.out" >>"$tmp/g.times"
        time_one "$REAP_BC" "$opts" "$file" "$tmp/r.out" >>"$tmp/r.times"
        i=$((i + 1))
    done
    if ! cmp -s "$tmp/g.out" "$tmp/r.out"; then
        echo "$name: outputs differ!" >&2
        exit 1
    fi
    g=$(median <"$tmp/g.times")
    r=$(median <"$tmp/r.times")
    label=$name
    case $name in
    pi) label="pi 2000 digits (-l)" ;;
    prime) label="1000th prime" ;;
    fact) label="2000!" ;;
    fib) label="10,000th Fibonacci" ;;
    esac
    printf '%-22s %10s %10s %8s\n' "$label" "$g" "$r" \
        "$(echo "$r $g" | awk '{ printf "%.2f", $1 / $2 }')"
done

"$REAP_BC" --stats "$here/bc/prime.bc" </dev/null 2>"$tmp/stats" >/dev/null
"$REAP_BC" --stats --no-free "$here/bc/prime.bc" </dev/null 2>"$tmp/nofree" >/dev/null
echo "1000th prime, reap-bc --stats:           $(sed -n 's/^reap-bc: //p' "$tmp/stats")"
echo "1000th prime, reap-bc --stats --no-free: $(sed -n 's/^reap-bc: //p' "$tmp/nofree")"
echo "(the 2002 mod_bc experiment: 7.4 MB with pools alone, 240 KB with reaps)"
