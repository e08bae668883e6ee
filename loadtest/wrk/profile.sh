#!/bin/bash
# profile.sh - what a static request costs in user-space instructions, on
# stock APR and on the reap-backed APR, and where the difference lies.
#
# Starts Debian's apache2 (worker MPM, one child with T threads, mod_reap
# loaded as in run.sh's static scenario) under callgrind, once on each APR,
# zeroes the child's counters once it is up, drives it with wrk for D
# seconds, stops it, and divides the child's instructions by the requests
# it served (its calls of ap_process_request).  Then it compares the two
# profiles function by function (profile_compare.py).
#
# Debian's libapr-1 is stripped, so its functions would all be "???": the
# stock side runs on APR built from the same Debian source as the patched
# one, unpatched, with Debian's options and flags, into
# <build>/apr-stock-sym (stock-apr-sym.sh; built once, ~2 minutes).  Its
# totals match Debian's library to 0.1% (129.84M against 129.78M for one
# run).
#
# Usage: loadtest/wrk/profile.sh [--build DIR] [--threads T] [--duration D]
#                                [--out DIR] [--top N]
#   --build     the project's build directory (reap-backed APR built)  [build]
#   --threads   ThreadsPerChild and wrk connections                   [64]
#   --duration  seconds of wrk under callgrind (about 300 req/s)      [10]
#   --out       where profile-<stamp>.md and the callgrind files go
#               [loadtest/results/profile]
#   --top       functions listed in the comparison                    [30]
#
# mod_reap takes its /server-status snapshot at most every 500 ms of wall
# time as requests end: under callgrind's ~50x slowdown that is ~50 times as
# often per request as in a real run, so the report gives its share apart.
# Exit status: 0 with the report written, 1 on any failure.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=$top/build THREADS=64 DURATION=10 OUT=$top/loadtest/results/profile TOPN=30
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift ;;
    --threads) THREADS=$2; shift ;;
    --duration) DURATION=$2; shift ;;
    --out) OUT=$2; shift ;;
    --top) TOPN=$2; shift ;;
    -h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "profile.sh: unknown option $1 (--help)" >&2; exit 1 ;;
    esac
    shift
done
die() { echo "profile.sh: $*" >&2; exit 1; }
say() { printf '== %s\n' "$*"; }
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || die "no build directory"
for tool in valgrind callgrind_control callgrind_annotate wrk curl python3; do
    command -v "$tool" >/dev/null || die "$tool is missing (packages valgrind wrk curl python3)"
done
export MR_BUILDDIR=$BUILD
. "$top/tests/httpd/httpd_lib.sh"
[ -f "$BUILD/tests/httpd/mod_reap_paths.sh" ] && . "$BUILD/tests/httpd/mod_reap_paths.sh"
REAP_APR_LIB=${REAP_APR_DIR:-$BUILD/install/apr}/lib
[ -f "$REAP_APR_LIB/libapr-1.so.0" ] || die "no reap-backed APR in $REAP_APR_LIB (apr-patch/build-apr.sh)"

# ---- stock APR with symbols --------------------------------------------------
stock_lib=$("$here/stock-apr-sym.sh" "$BUILD") || die "no stock APR with symbols"

# ---- one profile ---------------------------------------------------------------
mkdir -p "$OUT" || die "cannot make $OUT"
stamp=$(date -u +%Y%m%d-%H%M%S)
work=$(mktemp -d /tmp/reap-profile.XXXXXX)
chmod 777 "$work" # the child writes its profile as www-data
wrapper=$work/apache2-callgrind
cat >"$wrapper" <<EOF
#!/bin/sh
exec valgrind -q --tool=callgrind --callgrind-out-file=$work/cg.\$\$.%p /usr/sbin/apache2 "\$@"
EOF
chmod 755 "$wrapper"
MR_APACHE=$wrapper MR_SERVERS=1 MR_THREADS=$THREADS
MR_WAIT_TRIES=600 # callgrind starts apache2 about 50 times slower
# Connections are kept for the whole run, so what a request costs is not
# mixed with a varying share of connection set-up.
profile_site() {
    printf 'LoadModule reap_module %s\nMaxKeepAliveRequests 0\nKeepAliveTimeout 60\n' "$MR_MOD_REAP"
}
MR_SITE=profile_site MR_NEED=$MR_MOD_REAP
page=$(head -c 3072 /dev/urandom | base64 -w 76)

# profile <name> <libapr dir>: the child's profile into $OUT
profile() {
    local name=$1 lib=$2 child cg
    MR_APR_LIB=$lib
    say "$name: apache2 under callgrind, $THREADS threads, wrk for $DURATION s"
    mr_start >"$work/$name.start" 2>&1 || { cat "$work/$name.start"; die "$name: apache2 did not start"; }
    printf '%s\n' "$page" >"$MR_ROOT/htdocs/s4k.txt" && chmod a+r "$MR_ROOT/htdocs/s4k.txt"
    child=$(mr_children | tr -s " " "\n" | grep -m1 .)
    [ -n "$child" ] || die "$name: no child process"
    # warm up every thread's first request, then count from zero
    wrk -t2 -c"$THREADS" -d2 "http://127.0.0.1:$MR_PORT/s4k.txt" >/dev/null 2>&1
    callgrind_control -z "$child" >/dev/null || die "$name: callgrind_control -z $child failed"
    wrk -t2 -c"$THREADS" -d"$DURATION" "http://127.0.0.1:$MR_PORT/s4k.txt" >"$work/$name.wrk" 2>&1
    grep -q "requests in" "$work/$name.wrk" || die "$name: wrk failed: $(cat "$work/$name.wrk")"
    grep -q "Non-2xx" "$work/$name.wrk" && die "$name: error responses: $(cat "$work/$name.wrk")"
    mr_stop >/dev/null 2>&1
    # the child writes its profile as it exits, after the parent
    for _ in $(seq 600); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
    cg=$(ls "$work"/cg.*."$child" 2>/dev/null | head -1)
    [ -s "$cg" ] || die "$name: no callgrind output for child $child"
    mv "$cg" "$OUT/profile-$stamp-$name.callgrind"
}
profile stock "$stock_lib"
profile reap "$REAP_APR_LIB"
rm -rf "$work"
python3 "$here/profile_compare.py" --top "$TOPN" --threads "$THREADS" \
    "$OUT/profile-$stamp-stock.callgrind" "$OUT/profile-$stamp-reap.callgrind" \
    >"$OUT/profile-$stamp.md" ||
    die "the comparison failed"
cat "$OUT/profile-$stamp.md"
say "report: $OUT/profile-$stamp.md"
