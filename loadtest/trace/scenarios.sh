#!/bin/bash
# scenarios.sh - allocation traces of apache2 on the reap-backed APR (issue
# 29, item 3): how much memory a region keeps for dead objects in a real
# server, per kind of request, and which pools keep it.
#
# For each scenario it starts Debian's apache2 through
# tests/httpd/httpd_lib.sh (loopback, a port from 18000 up, the worker MPM
# with ONE child of 16 threads, so one trace holds every request) on the
# reap-backed APR with REAP_TRACE=<work>/t set, sends a fixed number of
# requests with curl (one connection, one request after the other), stops
# the server (the child writes the rest of its trace as it exits) and runs
# `reap-trace replay --csv` and `reap-trace top` on the child's trace.
#
#   static    GET of a 4 KiB file
#   autoindex mod_autoindex listing of a directory of 10,000 files
#             (FancyIndexing, sorted by name)
#   rewrite   mod_rewrite: four rules at server level (a condition on the
#             query string, two backreferences, a chain) ending on the
#             4 KiB file
#   proxy     mod_proxy_http to a backend virtual host of the same server
#             (a second Listen port), which serves the 4 KiB file: the
#             child's trace holds the front and the back request
#   bc        mod_bc (BcPfree On): the 100th prime by trial division (--prime)
#
# Every request's peak request-pool footprint (mod_reap's reap-peak note,
# in the access log) is read too: the median and the largest per scenario.
#
# Output: <out>/trace-<stamp>.csv (one row per scenario), .md (the table
# and the top pools of each scenario), -<worst>.png (reap-trace plot of the
# scenario with the most drag) and, with --keep, the traces.
# Exit status 0 when every request returned 200 and every trace was read,
# 1 otherwise.
#
# usage: loadtest/trace/scenarios.sh [--build DIR] [--apr DIR] [--out DIR]
#            [--scenarios "static autoindex rewrite proxy bc"] [--scale F]
#            [--prime N] [--no-trace] [--wrk S] [--keep]
#   --build     the build directory with mod_reap.so, mod_bc.so and
#               reap-trace [<source>/build]
#   --apr       the installed reap-backed APR to run on (its lib/ has
#               libapr-1.so.0) [$REAP_APR_DIR, else <build>/install/apr]
#   --scale F   multiply the request counts (static 2000, autoindex 10,
#               rewrite 2000, proxy 500, bc 50) by F [1]
#   --prime N   the bc scenario's program finds the Nth prime [100]; the
#               README's demo asks for the 1000th
#   --no-trace  no REAP_TRACE: only the reap-peak figures (fast; for
#               comparing two APR builds)
#   --wrk S     with --no-trace: after the counted requests, wrk -t1 -c4
#               for S seconds on the scenario's URL (GET; not bc), and
#               its requests/s in the table
#   --keep      keep the work directory (traces, server roots) and say where
# A full run takes about 3 minutes on the shared 2-core machine; the traces
# take about 200 MB while it runs.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

BUILD='' APR_DIR=${REAP_APR_DIR:-} OUT='' SCALE=1 TRACE=1 KEEP=0 WRK= PRIME=100
SCENARIOS="static autoindex rewrite proxy bc"

usage() {
    sed -n '/^# usage:/,/^# take about/p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift ;;
    --apr) APR_DIR=$2; shift ;;
    --out) OUT=$2; shift ;;
    --scenarios) SCENARIOS=$2; shift ;;
    --scale) SCALE=$2; shift ;;
    --prime) PRIME=$2; shift
        case $PRIME in *[!0-9]* | "") echo "scenarios.sh: --prime takes a number" >&2; exit 2 ;; esac ;;
    --no-trace) TRACE=0 ;;
    --wrk) WRK=$2; shift ;;
    --keep) KEEP=1 ;;
    -h | --help) usage ;;
    *) echo "scenarios.sh: unknown option $1" >&2; usage ;;
    esac
    shift
done
for s in $SCENARIOS; do
    case $s in static | autoindex | rewrite | proxy | bc) ;;
    *) echo "scenarios.sh: unknown scenario $s" >&2; exit 2 ;; esac
done

[ -z "$WRK" ] || [ "$TRACE" = 0 ] ||
    { echo "scenarios.sh: --wrk needs --no-trace (a traced wrk run writes GBs)" >&2; exit 2; }
BUILD=$(cd "${BUILD:-$top/build}" && pwd) || exit 2
OUT=${OUT:-$top/loadtest/results}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
REAP_TRACE_BIN=$BUILD/tools/reap-trace/reap-trace
[ -x "$REAP_TRACE_BIN" ] || { echo "scenarios.sh: no $REAP_TRACE_BIN (make)" >&2; exit 2; }

MR_BUILDDIR=$BUILD
MR_APR_LIB=
# shellcheck source=../../tests/httpd/httpd_lib.sh
. "$top/tests/httpd/httpd_lib.sh"
if [ -n "$APR_DIR" ]; then
    MR_APR_LIB=$APR_DIR/lib
fi
mr_need_reap_apr "loadtest/trace/scenarios.sh"

WORK=$(mktemp -d /tmp/drag-trace.XXXXXX)
[ "$KEEP" = 1 ] || cleanup_push "rm -rf '$WORK'"
STAMP=$(date -u +%Y%m%d-%H%M%S)
CSV=$OUT/trace-$STAMP.csv
MD=$OUT/trace-$STAMP.md
FAILED=0

# 16 threads: under wrk, proxy needs a free thread for each backend
# request it holds a front one for (4 deadlocked until the proxy timeout).
MR_SERVERS=1 MR_THREADS=16 MR_MPM=worker
MR_NEED="$MR_MOD_REAP $MR_MOD_BC"
MR_SITE=trace_site

# The static files, the 10,000-file directory and the bc program, made
# once and shared by every server root (read-only).
make_docs() {
    docs=$WORK/docs
    mkdir -p "$docs/static" "$docs/list" "$WORK/traces"
    head -c 4096 /dev/zero | tr '\0' 'x' >"$docs/static/4k.html"
    (cd "$docs/list" && seq -f 'file-%05g.txt' 1 10000 | xargs touch)
    cat >"$WORK/prime.bc" <<EOF
n = 0; p = 1
while (n < $PRIME) { p = p + 1; c = 1
  for (d = 2; d * d <= p; d++) if (p % d == 0) { c = 0; break }
  if (c) n = n + 1 }
p
EOF
    chmod -R a+rX "$WORK"
    chmod 1777 "$WORK/traces" # the children run as User (www-data as root)
}

trace_site() {
    cat <<EOF
LoadModule reap_module $MR_MOD_REAP
LoadModule bc_module $MR_MOD_BC
LoadModule alias_module $MR_MODDIR/mod_alias.so
LoadModule autoindex_module $MR_MODDIR/mod_autoindex.so
LoadModule rewrite_module $MR_MODDIR/mod_rewrite.so
LoadModule proxy_module $MR_MODDIR/mod_proxy.so
LoadModule proxy_http_module $MR_MODDIR/mod_proxy_http.so
LogFormat "%m %U%q %>s peak=%{reap-peak}n" trace
CustomLog "$MR_ROOT/logs/access.log" trace
Listen 127.0.0.1:$((MR_PORT + 1))
<VirtualHost 127.0.0.1:$((MR_PORT + 1))>
    DocumentRoot "$WORK/docs/static"
</VirtualHost>
Alias /static/ "$WORK/docs/static/"
Alias /list/ "$WORK/docs/list/"
<Directory "$WORK/docs">
    Require all granted
</Directory>
<Directory "$WORK/docs/list">
    Options +Indexes
    IndexOptions FancyIndexing
</Directory>
RewriteEngine On
RewriteCond %{QUERY_STRING} ^v=([0-9]+)$
RewriteRule ^/rw/([a-z]+)/([0-9]+)$ /rw2/\$2/\$1?v=%1
RewriteRule ^/rw2/([0-9]+)/([a-z]+)$ /rw3/\$2 [C]
RewriteRule ^/rw3/(.*)$ /rw4/\$1
RewriteRule ^/rw4/ /static/4k.html [PT]
ProxyPass /proxy/ http://127.0.0.1:$((MR_PORT + 1))/
<Location /bc>
    SetHandler bc
    BcPfree On
</Location>
EOF
}

# Our own start: httpd_lib's mr_start takes a random port; this machine's
# servers of this script use 18000 and up (and the next one for the
# backend).
trace_start() {
    MR_ROOT=$WORK/root-$1
    mkdir -p "$MR_ROOT/run" "$MR_ROOT/logs" "$MR_ROOT/htdocs"
    echo hello >"$MR_ROOT/htdocs/index.html"
    chmod -R a+rX "$MR_ROOT"
    cleanup_push mr_stop_server
    for MR_PORT in 18410 18420 18430 18440 18450 18460; do
        mr_write_conf
        : >"$MR_ROOT/logs/error.log"
        if mr_env "$MR_APACHE" -d "$MR_ROOT" -f "$MR_ROOT/httpd.conf" \
            -k start >"$MR_ROOT/logs/start.out" 2>&1 && mr_wait_up; then
            return 0
        fi
        mr_stop_server
    done
    cat "$MR_ROOT/logs/start.out" "$MR_ROOT/logs/error.log"
    return 1
}

# count_of <scenario>: its number of requests, scaled.
count_of() {
    case $1 in
    static | rewrite) n=2000 ;;
    autoindex) n=10 ;;
    bc) n=50 ;;
    proxy) n=500 ;;
    esac
    n=$(echo "$n * $SCALE / 1" | bc)
    [ "$n" -ge 1 ] || n=1
    echo "$n"
}

# urls <scenario> <n>: a curl config that sends the n requests.
urls() {
    base=http://127.0.0.1:$MR_PORT
    i=0
    while [ $i -lt "$2" ]; do
        [ "$1" = bc ] && [ $i -gt 0 ] && echo 'next'
        case $1 in
        static) echo "url = \"$base/static/4k.html\"" ;;
        autoindex) echo "url = \"$base/list/?C=N;O=A\"" ;;
        rewrite) echo "url = \"$base/rw/abc/$i?v=$i\"" ;;
        proxy) echo "url = \"$base/proxy/4k.html\"" ;;
        bc)
            echo "url = \"$base/bc\""
            echo "data-binary = \"@$WORK/prime.bc\""
            ;;
        esac
        echo 'output = "/dev/null"'
        echo 'write-out = "%{http_code}\n"'
        i=$((i + 1))
    done
}

# The median and the largest reap-peak of the scenario's requests (the
# access log; the backend request of proxy counts too).
peaks() {
    sed -n 's/.* peak=\([0-9][0-9]*\)$/\1/p' "$MR_ROOT/logs/access.log" |
        sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)], v[NR]; else print "- -" }'
}

# request_sizes < dump: what the last request pool of the trace allocated
# (the last reap made with the most allocations: a request pool, or a
# scenario's scratch pool), its sizes by total bytes.  A trace has no call
# sites; the sizes name them (docs/trace.md, "Traces of httpd").
request_sizes() {
    awk -F, '$2 == "create" { gen[$3]++ }
        $2 == "alloc" { n[$3 SUBSEP gen[$3]]++ ; k = $3 SUBSEP gen[$3] SUBSEP $6; c[k]++ }
        END {
            for (r in n) if (n[r] > best) { best = n[r]; who = r }
            split(who, w, SUBSEP)
            for (k in c) { split(k, f, SUBSEP)
                if (f[1] == w[1] && f[2] == w[2]) print c[k] * f[3], c[k], f[3] }
        }' | sort -k1,1nr | head -8 |
        awk 'BEGIN { print "bytes      count  size" } { printf "%-10d %-6d %d\n", $1, $2, $3 }'
}

run_scenario() {
    s=$1
    n=$(count_of "$s")
    rm -f "$WORK"/traces/t.*
    if [ "$TRACE" = 1 ]; then
        export REAP_TRACE=$WORK/traces/t
    fi
    trace_start "$s" || { echo "# $s: apache2 did not start"; FAILED=1; return; }
    unset REAP_TRACE
    child=$(mr_children | tr -d ' ')
    urls "$s" "$n" >"$WORK/$s.curl"
    codes=$(curl -s -K "$WORK/$s.curl" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
    MR_SENT=$((MR_SENT + n))
    case $codes in
    " $n 200;") ;;
    *) echo "# $s: status codes: $codes"; FAILED=1 ;;
    esac
    mr_wait_logged >/dev/null
    read -r p_med p_max <<<"$(peaks)"
    rps=-
    if [ -n "$WRK" ] && [ "$s" != bc ]; then
        u=$(urls "$s" 1 | sed -n 's/^url = "\(.*\)"$/\1/p')
        rps=$(wrk -t1 -c4 -d"${WRK}s" "$u" 2>&1 | sed -n 's/^Requests\/sec: *//p')
    fi
    mr_stop_server
    row="$s,$n,$p_med,$p_max"
    [ -z "$WRK" ] || row="$row,$rps"
    if [ "$TRACE" = 1 ]; then
        f=$WORK/traces/t.$child
        if [ ! -s "$f" ]; then
            echo "# $s: no trace of child $child"
            FAILED=1
            return
        fi
        "$REAP_TRACE_BIN" replay --csv "$f" >"$WORK/$s.replay" 2>"$WORK/$s.replay.err" ||
            { cat "$WORK/$s.replay.err"; FAILED=1; return; }
        "$REAP_TRACE_BIN" top -n 8 "$f" >"$WORK/$s.top" 2>&1
        "$REAP_TRACE_BIN" dump "$f" | request_sizes >"$WORK/$s.sizes"
        reg=$(grep '^region,' "$WORK/$s.replay")
        rp=$(grep '^reap,' "$WORK/$s.replay")
        apr=$(grep '^apr-pool,' "$WORK/$s.replay")
        if [ -z "$apr" ]; then
            echo "# $s: no apr-pool row (Debian's libapr-1 not loaded): $(cat "$WORK/$s.replay.err")"
            FAILED=1
            return
        fi
        rpeak=$(echo "$reg" | cut -d, -f2) rdrag=$(echo "$reg" | cut -d, -f5)
        ppeak=$(echo "$rp" | cut -d, -f2) live=$(echo "$reg" | cut -d, -f3)
        apeak=$(echo "$apr" | cut -d, -f2)
        row="$row,$rpeak,$apeak,$ppeak,$(echo "scale=3; $rpeak / $ppeak" | bc)"
        row="$row,$(echo "scale=3; $apeak / $ppeak" | bc),$live,$rdrag,$(stat -c %s "$f")"
        # the general-purpose peers replaying the same events, where they
        # load; "-" where one does not, and the reap over the smallest
        local a v best=
        for a in glibc mimalloc-heap jemalloc-arena; do
            v=$(grep "^$a," "$WORK/$s.replay" | cut -d, -f2)
            row="$row,${v:--}"
            [ -n "$v" ] && { [ -z "$best" ] || [ "$v" -lt "$best" ]; } && best=$v
        done
        row="$row,$([ -n "$best" ] && echo "scale=3; $ppeak / $best" | bc || echo -)"
        mv "$f" "$WORK/$s.trace"
    fi
    echo "$row" >>"$CSV"
    echo "# $row"
}

make_docs
if [ "$TRACE" = 1 ]; then
    echo "scenario,requests,req_peak_median,req_peak_max,region_peak,apr_pool_peak,reap_peak,region_over_reap,apr_pool_over_reap,peak_live,drag_region,trace_bytes,glibc_peak,mi_heap_peak,je_arena_peak,reap_over_best_peer" >"$CSV"
else
    echo "scenario,requests,req_peak_median,req_peak_max${WRK:+,wrk_rps}" >"$CSV"
fi
echo "# APR: $MR_APR_LIB; results: $CSV"
for s in $SCENARIOS; do
    run_scenario "$s"
done

{
    echo "# Traces of apache2 on the reap-backed APR ($STAMP)"
    echo
    echo "APR: \`$MR_APR_LIB\`; worker MPM, 1 child of 4 threads; requests one after the other over one connection."
    echo "req_peak: the request pool's peak footprint (mod_reap's reap-peak note), median and largest; the others are the whole child's trace replayed (\`reap-trace replay\`): region is stock APR's policy on libreap's blocks, apr_pool Debian's APR pools themselves."
    echo
    head -1 "$CSV" | sed 's/^/| /; s/,/ | /g; s/$/ |/'
    head -1 "$CSV" | sed 's/[^,]*/---/g; s/^/| /; s/,/ | /g; s/$/ |/'
    tail -n +2 "$CSV" | sed 's/^/| /; s/,/ | /g; s/$/ |/'
    if [ "$TRACE" = 1 ]; then
        for s in $SCENARIOS; do
            [ -f "$WORK/$s.top" ] || continue
            printf '\n## %s: reap-trace top -n 8\n\n```\n' "$s"
            cat "$WORK/$s.top"
            printf '```\n\nThe pool with the most allocations (one instance), by size:\n\n```\n'
            cat "$WORK/$s.sizes"
            printf '```\n'
        done
    fi
} >"$MD"

if [ "$TRACE" = 1 ]; then
    worst=$(tail -n +2 "$CSV" | sort -t, -k11 -g | tail -1 | cut -d, -f1)
    if [ -n "$worst" ] && [ -f "$WORK/$worst.trace" ]; then
        "$REAP_TRACE_BIN" plot "$WORK/$worst.trace" -o "$OUT/trace-$STAMP-$worst.png" >/dev/null 2>&1 &&
            rm -f "$OUT/trace-$STAMP-$worst.png.dat" "$OUT/trace-$STAMP-$worst.png.gp"
        echo "# most drag: $worst; plot $OUT/trace-$STAMP-$worst.png"
    fi
fi
[ "$KEEP" = 1 ] && echo "# kept $WORK"
echo "# wrote $MD"
exit $FAILED
