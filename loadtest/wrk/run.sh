#!/bin/bash
# run.sh - the wrk load test of httpd: stock APR pools against reaps, across
# worker threads, measuring throughput and memory (issue 7).
#
# For every point (scenario x threads per child x configuration x repeat) it
# starts Debian's apache2 on a fresh temporary ServerRoot through
# tests/httpd/httpd_lib.sh (loopback, worker MPM unless --mpm event, one
# child process with T threads), warms it up, drives it with Debian's wrk
# (T connections, min(T, 2) wrk threads, scenario.lua), samples the child's
# RSS from /proc every 100 ms, reads the per-request peaks mod_reap and
# mod_bc log, and stops it.  Configurations run in alternation (A B C A B
# C ...) so that drift on a shared machine does not pose as a difference
# between them.
#
#   configurations  stock        Debian's libapr-1, mod_reap + mod_bc loaded
#                   reap         the reap-backed APR (apr-patch/), BcPfree On
#                   reap-off     the reap-backed APR, BcPfree Off (bc only)
#                   reap-malloc  reap-backed APR + LD_PRELOAD libreap-malloc.so
#                   (also: reap-malloc-off, stock-off, on request, and
#                   stock2, stock once more: an A/A check of the noise)
#   scenarios       static  a 4 KiB file
#                   small   GET /bc?e=<a one-line expression>
#                   medium  POST /bc, the primes below 10,000 by trial division
#                   mix     small, medium and deliberately bad programs
#                           (syntax, runtime, depth, output, program size)
#
# Output: <out>/wrk-<stamp>.csv (one row per run), -summary.csv (median,
# min, max per point), .md (tables, the issue's targets as ratios),
# -throughput.png and -rss.png (gnuplot), and progress lines on stdout.
# Every run is also checked: no child crashed, no unexpected status, every
# 200 body is exactly GNU bc's output (/usr/bin/bc) for that program.  The
# exit status is 0 when every check passed, 1 when one failed, 77 when
# nothing failed but something was skipped (no mod_bc.so, no reap-backed
# APR).  Speed is measured and printed, never asserted.
#
# usage: loadtest/wrk/run.sh [--quick] [--estimate] [--build DIR] [--out DIR]
#            [--duration S] [--warmup S] [--reps N] [--threads "1 2 4"]
#            [--scenarios "static mix"] [--configs "stock reap"] [--mpm event]
#            [--pin] [--keep]
#   --quick     checks the harness in under 3 minutes: threads 1 and 4, one
#               repeat, 2 s runs, scenarios static and mix (every
#               configuration touched)
#   --estimate  print the plan and its estimated duration, run nothing
#   --pin       the server on CPU 0, wrk on CPU 1 (taskset): server and
#               client stop taking each other's core, so req/s is the
#               server's cost on one core (needs 2 CPUs)
#   --mpm M     the MPM, worker (the default) or event; the event MPM's
#               child gets 2T + 2 threads, as its listener closes every
#               keep-alive connection whenever all workers are busy (wrk
#               counts those as read errors, hundreds a second with T)
#   --keep      keep the work directory (server logs, wrk output)
# The build directory (default: the current directory when it holds
# mod_reap/apxs/.libs/mod_reap.so, else <source>/build) has mod_reap.so,
# mod_bc.so and libreap-malloc.so; the reap-backed APR comes from
# $REAP_APR_DIR, else the build's tests/httpd/mod_reap_paths.sh, else
# <build>/install/apr, as for tests/httpd/test_mod_reap_reap.sh.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

# ---- options ---------------------------------------------------------------------

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg) # before this run adds its own
QUICK=0
ESTIMATE=0
PIN=0
KEEP=0
MPM=worker
BUILD=${MR_BUILDDIR:-}
OUT=
DURATION=
WARMUP=
REPS=
THREADS=
SCENARIOS=
CONFIGS=
# Seconds per run beyond wrk's own: server start, probes, log parsing (the
# stop of apache2, about 1.5 s, overlaps the next run's start and warm-up).
OVERHEAD=1.2

usage() {
    sed -n '/^# usage:/,/^# <build>/p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --quick) QUICK=1 ;;
    --estimate) ESTIMATE=1 ;;
    --pin) PIN=1 ;;
    --keep) KEEP=1 ;;
    --mpm) MPM=$2; shift ;;
    --build) BUILD=$2; shift ;;
    --out) OUT=$2; shift ;;
    --duration) DURATION=$2; shift ;;
    --warmup) WARMUP=$2; shift ;;
    --reps) REPS=$2; shift ;;
    --threads) THREADS=$2; shift ;;
    --scenarios) SCENARIOS=$2; shift ;;
    --configs) CONFIGS=$2; shift ;;
    -h | --help) usage ;;
    *) echo "run.sh: unknown option $1" >&2; usage ;;
    esac
    shift
done

case $MPM in
worker | event) ;;
*) echo "run.sh: --mpm must be worker or event, not '$MPM'" >&2; exit 2 ;;
esac

if [ "$QUICK" = 1 ]; then
    DURATION=${DURATION:-2}
    WARMUP=${WARMUP:-1}
    REPS=${REPS:-1}
    THREADS=${THREADS:-"1 4"}
    SCENARIOS=${SCENARIOS:-"static mix"}
else
    DURATION=${DURATION:-3}
    WARMUP=${WARMUP:-1}
    REPS=${REPS:-3}
    THREADS=${THREADS:-"1 2 4 8 16 32 64"}
    SCENARIOS=${SCENARIOS:-"static small medium mix"}
fi
CONFIGS=${CONFIGS:-"stock reap reap-off reap-malloc"}
for n in "$DURATION" "$WARMUP" "$REPS" $THREADS; do
    case $n in
    '' | *[!0-9]* | 0*) echo "run.sh: durations, repeats and thread counts are whole numbers above 0 ('$n')" >&2; exit 2 ;;
    esac
done

. "$top/loadtest/lib.sh"
BUILD=$(lt_build_dir "$BUILD" "$top") || exit 2
OUT=${OUT:-$top/loadtest/results}

# The reap-backed APR, found as tests/httpd/test_mod_reap_reap.sh finds it.
env_apr=${REAP_APR_DIR:-}
REAP_APR_DIR=
[ -f "$BUILD/tests/httpd/mod_reap_paths.sh" ] && . "$BUILD/tests/httpd/mod_reap_paths.sh"
REAP_APR_DIR=${env_apr:-${REAP_APR_DIR:-$BUILD/install/apr}}
REAP_APR_LIB=$REAP_APR_DIR/lib

MR_BUILDDIR=$BUILD
MR_APR_LIB=
. "$top/tests/httpd/httpd_lib.sh"
MALLOC_SO=$MR_LIBREAP_DIR/libreap-malloc.so
BCBIN=/usr/bin/bc

# ---- what can run ----------------------------------------------------------------

SKIPPED=()
HAVE_REAP=1
HAVE_BC=1
HAVE_MALLOC=1
if [ ! -e "$REAP_APR_LIB/libapr-1.so.0" ] ||
    ! nm -D "$REAP_APR_LIB/libapr-1.so.0" 2>/dev/null | grep -q ' T apr_pfree$'; then
    HAVE_REAP=0
    SKIPPED+=("reap-backed configurations: no reap-backed APR at $REAP_APR_LIB (apr-patch/build-apr.sh)")
fi
[ -f "$MALLOC_SO" ] || { HAVE_MALLOC=0; SKIPPED+=("reap-malloc configurations: $MALLOC_SO not built"); }
[ -f "$MR_MOD_BC" ] || { HAVE_BC=0; SKIPPED+=("bc scenarios: mod_bc.so not built ($MR_MOD_BC)"); }
for need in "$MR_MOD_REAP" /usr/bin/wrk "$BCBIN" "$MR_APACHE"; do
    [ -e "$need" ] || { echo "run.sh: $need is missing (make; packages wrk bc apache2)" >&2; exit 1; }
done
# --pin: the server's processes on CPU 0, wrk on CPU 1.
WRK=(wrk)
if [ "$PIN" = 1 ]; then
    lt_pin_check
    WRK=(taskset -c 1 wrk)
fi

# config_set <name>: C_APR (lib dir or ""), C_PRELOAD, C_PFREE; false if unknown.
config_set() {
    C_APR=$REAP_APR_LIB C_PRELOAD= C_PFREE=On
    case $1 in
    stock | stock2) C_APR= ;; # stock2: the same again, an A/A check of the noise
    stock-off) C_APR= C_PFREE=Off ;;
    reap) ;;
    reap-off) C_PFREE=Off ;;
    reap-malloc) C_PRELOAD=$MALLOC_SO ;;
    reap-malloc-off) C_PRELOAD=$MALLOC_SO C_PFREE=Off ;;
    *) return 1 ;;
    esac
}

config_usable() {
    config_set "$1" || return 1
    [ -z "$C_APR" ] || [ "$HAVE_REAP" = 1 ] || return 1
    [ -z "$C_PRELOAD" ] || [ "$HAVE_MALLOC" = 1 ] || return 1
}

# The configurations a scenario runs: BcPfree only matters to bc.
configs_for() {
    local c
    for c in $CONFIGS; do
        config_usable "$c" || continue
        if [ "$1" = static ]; then
            case $c in *-off) continue ;; esac
        fi
        printf '%s ' "$c"
    done
}

for c in $CONFIGS; do
    config_set "$c" || { echo "run.sh: unknown configuration $c" >&2; exit 2; }
done
RUN_SCENARIOS=
for s in $SCENARIOS; do
    case $s in
    static) RUN_SCENARIOS="${RUN_SCENARIOS:+$RUN_SCENARIOS }$s" ;;
    small | medium | mix)
        if [ "$HAVE_BC" = 1 ]; then RUN_SCENARIOS="${RUN_SCENARIOS:+$RUN_SCENARIOS }$s"; fi ;;
    *) echo "run.sh: unknown scenario $s" >&2; exit 2 ;;
    esac
done

# ---- the plan and its estimate ---------------------------------------------------

PLAN=()
for s in $RUN_SCENARIOS; do
    for t in $THREADS; do
        r=1
        while [ $r -le "$REPS" ]; do
            for c in $(configs_for "$s"); do PLAN+=("$s $t $c $r"); done
            r=$((r + 1))
        done
    done
done
NRUNS=${#PLAN[@]}

# measured_s <scenario> <threads>: the measured window.  On the bc programs
# at 32 and more threads a request on stock APR takes seconds (each drops
# 23 MB that glibc must find again), so within a 3 s window stock finished
# no request at 64 threads: those points get at least BC_LONG_S seconds.
BC_LONG_S=10
measured_s() {
    case $1 in
    medium | mix)
        if [ "$QUICK" = 0 ] && [ "$2" -ge 32 ] && [ "$DURATION" -lt $BC_LONG_S ]; then
            echo $BC_LONG_S
            return
        fi
        ;;
    esac
    echo "$DURATION"
}
EST_S=$(for p in "${PLAN[@]}"; do
    read -r s t _ _ <<<"$p"
    measured_s "$s" "$t"
done | awk -v w="$WARMUP" -v o="$OVERHEAD" '{ e += $1 + w + o } END { printf "%d", e + 5 }')

say "wrk load test of httpd: $( [ "$QUICK" = 1 ] && echo quick || echo full ) mode"
say "  build        $BUILD"
say "  reap APR     $REAP_APR_LIB $( [ "$HAVE_REAP" = 1 ] || echo '(MISSING)')"
say "  scenarios    $RUN_SCENARIOS"
say "  threads      $THREADS (one child, $MPM MPM; wrk connections = threads$( [ "$MPM" = event ] && echo "; the child has 2T + 2 threads"))"
say "  configs      $CONFIGS"
say "  per run      ${WARMUP} s warm-up + ${DURATION} s measured ($BC_LONG_S s for bc at 32+ threads), $REPS repeat(s)"
[ "$PIN" = 1 ] && say "  pinned       the server on CPU 0, wrk on CPU 1"
say "  estimate     $NRUNS runs, ~$((EST_S / 60)) min $((EST_S % 60)) s"
[ ${#SKIPPED[@]} -eq 0 ] || loud "SKIPPED:" "${SKIPPED[@]}"
[ "$ESTIMATE" = 1 ] && exit 0
[ "$NRUNS" -gt 0 ] || { say "run.sh: nothing to run"; exit 77; }

# ---- work directory, programs and expected outputs -------------------------------

WORK=$(mktemp -d /tmp/wrk-loadtest.XXXXXX)
cleanup() {
    if [ "$KEEP" = 1 ]; then say "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
FAILS=$WORK/fails
: >"$FAILS"

# urlencode <string>: every byte but [A-Za-z0-9._~-] as %XX.
urlencode() {
    local s=$1 out= c i
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case $c in
        [A-Za-z0-9._~-]) out+=$c ;;
        *) out+=$(printf '%%%02X' "'$c") ;;
        esac
    done
    printf '%s' "$out"
}

P=$here/programs
STATIC=$WORK/s4k.txt
# 4096 bytes of text, the same every time.
awk 'BEGIN { for (i = 0; i < 64; i++) printf "%-63s\n", "reap loadtest static line " i }' >"$STATIC"
SMALL_EXPR=$(tr -d '\n' <"$P/small.expr")
SMALL_PATH="/bc?e=$(urlencode "$SMALL_EXPR")"
# mod_bc does not split long lines (GNU bc does at 70 unless told not to).
printf '%s\n' "$SMALL_EXPR" | BC_LINE_LENGTH=0 "$BCBIN" -q >"$WORK/small.out"
BC_LINE_LENGTH=0 "$BCBIN" -q "$P/medium.bc" </dev/null >"$WORK/medium.out"
# A program larger than BcMaxProgramSize (16K below): 20,000 bytes.
awk 'BEGIN { for (i = 0; i < 10000; i++) print "1" }' >"$WORK/oversize.bc"
[ -s "$WORK/small.out" ] && [ -s "$WORK/medium.out" ] ||
    { echo "run.sh: GNU bc gave no output for the programs" >&2; exit 1; }

# plan_line <name> <weight> <method> <path> <body> <status> <expect>
plan_line() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@"; }

write_plans() {
    plan_line static 1 GET /s4k.txt - 200 "$STATIC" >"$WORK/plan-static"
    plan_line small 1 GET "$SMALL_PATH" - 200 "$WORK/small.out" >"$WORK/plan-small"
    plan_line medium 1 POST /bc "$P/medium.bc" 200 "$WORK/medium.out" >"$WORK/plan-medium"
    {
        plan_line small 10 GET "$SMALL_PATH" - 200 "$WORK/small.out"
        plan_line medium 4 POST /bc "$P/medium.bc" 200 "$WORK/medium.out"
        plan_line syntax 1 POST /bc "$P/bad-syntax.bc" 400 -
        plan_line runtime 1 POST /bc "$P/bad-runtime.bc" 400 -
        plan_line depth 1 POST /bc "$P/bad-depth.bc" 508 -
        plan_line output 1 POST /bc "$P/bad-output.bc" 422 -
        plan_line size 1 POST /bc "$WORK/oversize.bc" 413 -
    } >"$WORK/plan-mix"
}
write_plans
# Statuses the mix may answer besides 200, as "status limit".
MIX_EXPECTED="400 none|508 depth|422 output|413 program-size"

# Probes sent with curl after each bc run's measurement: method, path,
# body file ("-": none), status, X-Bc-Limit
# ("-": none) and the file holding the exact expected body ("-": any).
PROBES="GET|$SMALL_PATH|-|200|-|$WORK/small.out
POST|/bc|$P/medium.bc|200|-|$WORK/medium.out
POST|/bc|$P/bad-syntax.bc|400|-|-
POST|/bc|$P/bad-runtime.bc|400|-|-
POST|/bc|$P/bad-depth.bc|508|depth|-
POST|/bc|$P/bad-output.bc|422|output|-
POST|/bc|$WORK/oversize.bc|413|program-size|-
POST|/bc|$P/bad-memory.bc|507|memory|-"
# Only once per configuration (it takes BcTimeLimit of /bc-short, 1 s).
PROBE_TIME="POST|/bc-short|$P/bad-time.bc|503|time|-"

# ---- the server's site configuration ---------------------------------------------

# Printed by httpd_lib.sh's mr_write_conf: mod_reap, mod_bc (when built),
# the access log with both per-request peaks, and the bc locations.
wrk_site() {
    cat <<EOF
LoadModule reap_module $MR_MOD_REAP
LogFormat "%>s %B %D %{reap-peak}n %{bc-peak}n %m %U" loadtest
CustomLog "$MR_ROOT/logs/access.log" loadtest
EOF
    [ "$HAVE_BC" = 1 ] || return 0
    cat <<EOF
LoadModule bc_module $MR_MOD_BC
<Location /bc>
    SetHandler bc
    BcPfree $C_PFREE
    BcMathLib Off
    BcTimeLimit 30
    BcMaxOutput 64k
    BcMaxDepth 1000
    BcMaxProgramSize 16k
    BcMemoryLimit 64M
</Location>
<Location /bc-short>
    SetHandler bc
    BcPfree $C_PFREE
    BcTimeLimit 1
</Location>
EOF
}

# ---- one run ---------------------------------------------------------------------

# rss_sampler <stopfile> <outfile> <pids...>: the largest VmRSS seen.
rss_sampler() {
    local stop=$1 out=$2 max=0
    shift 2
    while [ ! -e "$stop" ]; do
        mr_proc_mem "$@"
        [ "$MR_RSS" -gt "$max" ] && max=$MR_RSS
        sleep 0.1
    done
    echo "$max" >"$out"
}

# probe <method|path|body|status|limit|expect>: one request with curl,
# checked exactly.  Failures go to fail().
probe() {
    local method path body status limit expect got hdr
    IFS='|' read -r method path body status limit expect <<<"$1"
    local args=(-s -o "$RUN/probe.body" -D "$RUN/probe.hdr" -w '%{http_code}' --max-time 30)
    [ "$body" = - ] || args+=(-H 'Content-Type: text/plain' --data-binary "@$body")
    got=$(curl "${args[@]}" "http://127.0.0.1:$MR_PORT$path")
    hdr=$(sed -n 's/^[Xx]-[Bb]c-[Ll]imit: *\([^[:space:]]*\).*/\1/p' "$RUN/probe.hdr")
    [ -n "$hdr" ] || hdr=-
    local what="$RUN_ID: $method $path ${body##*/}"
    if [ "$got" != "$status" ]; then
        fail "$what: status $got, expected $status ($(head -c 200 "$RUN/probe.body" | tr '\n' ' '))"
    elif [ "$hdr" != "$limit" ]; then
        fail "$what: X-Bc-Limit '$hdr', expected '$limit'"
    elif [ "$expect" != - ] && ! cmp -s "$RUN/probe.body" "$expect"; then
        fail "$what: body differs from GNU bc's: '$(head -c 200 "$RUN/probe.body")'"
    fi
}

# real_dir <dir>: its physical path, or nothing when it does not exist.
real_dir() { [ -d "$1" ] && (cd "$1" && pwd -P); }

# under <file> <dir>: the file's path lies under the directory (as given
# or resolved).
under() {
    local real
    real=$(real_dir "$2")
    case $1 in "$2"/*) return 0 ;; esac
    [ -n "$real" ] && case $1 in "$real"/*) return 0 ;; esac
    return 1
}

# check_mapping <pid>: the child's libapr-1 and preload are what the
# configuration says.
check_mapping() {
    local maps=/proc/$1/maps lib
    lib=$(grep -o '/[^ ]*libapr-1\.so[^ ]*' "$maps" | head -1)
    if [ -z "$lib" ]; then
        fail "$RUN_ID: child $1 maps no libapr-1"
    elif [ -n "$C_APR" ] && ! under "$lib" "$C_APR"; then
        fail "$RUN_ID: child maps libapr-1 from '$lib', not from $C_APR"
    elif [ -z "$C_APR" ] && under "$lib" "$REAP_APR_LIB"; then
        fail "$RUN_ID: stock configuration maps the reap-backed $lib"
    fi
    if [ -n "$C_PRELOAD" ] && ! grep -q 'libreap-malloc\.so' "$maps"; then
        fail "$RUN_ID: libreap-malloc.so is not mapped in the child"
    fi
}

# peaks <field> <first line> <last line>: "median max" of a numeric
# access-log field over those lines ("- -" when none is numeric: stock APR
# has no reap-peak).
peaks() {
    awk -v f="$1" -v a="$2" -v b="$3" 'NR >= a && NR <= b && $f ~ /^[0-9]+$/ { print $f }' \
        "$MR_ROOT/logs/access.log" |
        sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)], v[NR]; else print "- -" }'
}

# wrk_field <key> <line-prefix>: key=value from the WRK lines of wrk's output.
wrk_field() {
    grep "^WRK $2 " "$RUN/wrk.out" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1
}

# check_wrk <scenario>: statuses and bodies of every response of the run.
check_wrk() {
    local s=$1 line code lim n
    [ -n "$(wrk_field requests summary)" ] || { fail "$RUN_ID: wrk printed no summary: $(head -c 300 "$RUN/wrk.out")"; return; }
    for k in connect read write timeout; do
        n=$(wrk_field "$k" summary)
        [ "${n:-0}" = 0 ] || fail "$RUN_ID: $n socket $k error(s)"
    done
    n=$(wrk_field status summary)
    [ "$s" = mix ] || [ "${n:-0}" = 0 ] || fail "$RUN_ID: $n response(s) with a status above 399"
    n=$(sed -n 's/^WRK badbody //p' "$RUN/wrk.out")
    [ "${n:-0}" = 0 ] || fail "$RUN_ID: $n response(s) with status 200 and a wrong body: $(sed -n 's/^WRK badsample //p' "$RUN/wrk.out")"
    while read -r _ _ code lim n; do
        if [ "$s" != mix ] || ! printf '%s\n' "$MIX_EXPECTED" | tr '|' '\n' | grep -qx "$code $lim"; then
            fail "$RUN_ID: $n unexpected response(s) $code (X-Bc-Limit $lim)"
        fi
    done < <(grep '^WRK limit ' "$RUN/wrk.out")
    if [ "$s" = mix ]; then
        # every deliberate bad program was sent and answered as it should
        printf '%s\n' "$MIX_EXPECTED" | tr '|' '\n' | while read -r code lim; do
            grep -q "^WRK limit $code $lim " "$RUN/wrk.out" ||
                fail "$RUN_ID: the mix got no $code ($lim) answer"
        done
        for k in small medium; do
            n=$(sed -n "s/^WRK ok $k //p" "$RUN/wrk.out")
            [ "${n:-0}" -gt 0 ] || fail "$RUN_ID: no correct $k answer in the mix"
        done
    fi
}

# The threads of the child serving T connections: T, or 2T + 2 for the
# event MPM, whose listener shuts the keep-alive connections down while
# no worker is idle (with T threads about 1 request in 20 ended so under
# wrk, with 2T still 1 in 400 at T = 1).
child_threads() {
    if [ "$MPM" = event ]; then echo $(($1 * 2 + 2)); else echo "$1"; fi
}

# one_run <scenario> <threads> <config> <rep>: always run in the
# background (`one_run ... &`, one subshell, whose pid start_run keeps):
# httpd_lib.sh's EXIT trap stops the server and removes its root when that
# subshell ends, and its `exit`s end only it.  Writes $RUN/result, shell
# assignments of the figures, then $RUN/measured, then stops the server.
one_run() {
    s=$1 t=$2 c=$3 rep=$4
    config_set "$c"
    MR_APR_LIB=$C_APR MR_PRELOAD=$C_PRELOAD MR_MPM=$MPM MR_SERVERS=1 MR_THREADS=$(child_threads "$t")
    MR_SITE=wrk_site
    MR_NEED="$MR_MOD_REAP"
    [ "$HAVE_BC" = 1 ] && MR_NEED="$MR_NEED $MR_MOD_BC"
    mr_start >"$RUN/start.log" 2>&1 || exit 1
    cp "$STATIC" "$MR_ROOT/htdocs/s4k.txt" && chmod a+r "$MR_ROOT/htdocs/s4k.txt"
    pids=$(mr_children)
    [ -n "$pids" ] || { fail "$RUN_ID: no child process"; exit 1; }
    for p in $pids; do check_mapping "$p"; done
    if [ "$PIN" = 1 ]; then # every thread of the parent and the children
        for p in $(cat "$MR_ROOT/run/httpd.pid") $pids; do
            taskset -a -p -c 0 "$p" >/dev/null || fail "$RUN_ID: taskset of $p failed"
        done
    fi

    wt=$((t < 2 ? t : 2))
    url=http://127.0.0.1:$MR_PORT/
    export WRK_PLAN=$WORK/plan-$s
    export WRK_CHECK=1
    [ "$s" = static ] && [ "$QUICK" = 0 ] && WRK_CHECK=0
    # The idle child: started, one request served (mr_start's probe).
    mr_proc_mem $pids
    idle_rss=$MR_RSS
    "${WRK[@]}" -t "$wt" -c "$t" -d "${WARMUP}s" --timeout 30s -s "$here/scenario.lua" "$url" \
        >"$RUN/warmup.out" 2>&1
    first=$(($(wc -l <"$MR_ROOT/logs/access.log") + 1))
    rss_sampler "$RUN/stop" "$RUN/rssmax" $pids &
    sampler=$!
    read -r user0 sys0 flt0 < <(mr_proc_cpu $pids)
    "${WRK[@]}" -t "$wt" -c "$t" -d "$(measured_s "$s" "$t")s" --timeout 30s --latency -s "$here/scenario.lua" \
        "$url" >"$RUN/wrk.out" 2>&1
    read -r user1 sys1 flt1 < <(mr_proc_cpu $pids)
    touch "$RUN/stop"
    wait "$sampler"
    last=$(wc -l <"$MR_ROOT/logs/access.log")
    mr_proc_mem $pids
    final_rss=$MR_RSS hwm=$MR_HWM

    # Probes after the measured run, so their limits (BcMemoryLimit) do
    # not show in the run's RSS peak; the crash checks below cover them.
    if [ "$s" != static ]; then
        printf '%s\n' "$PROBES" | while read -r pr; do probe "$pr"; done
        [ -e "$WORK/timeprobe-$c" ] || { touch "$WORK/timeprobe-$c"; probe "$PROBE_TIME"; }
    else
        code=$(curl -s -o "$RUN/probe.body" -w '%{http_code}' "http://127.0.0.1:$MR_PORT/s4k.txt")
        [ "$code" = 200 ] && cmp -s "$RUN/probe.body" "$STATIC" ||
            fail "$RUN_ID: GET /s4k.txt: status $code or a wrong body"
    fi

    alive=1
    now=$(mr_children)
    [ "$now" = "$pids" ] || { alive=0; fail "$RUN_ID: the children changed: '$pids' -> '$now'"; }
    for p in $pids; do kill -0 "$p" 2>/dev/null || { alive=0; fail "$RUN_ID: child $p died"; }; done
    check_wrk "$s"
    read -r rp_med rp_max < <(peaks 4 "$first" "$last")
    read -r bp_med bp_max < <(peaks 5 "$first" "$last")
    n2xx=$(awk -v a="$first" -v b="$last" 'NR >= a && NR <= b && $1 !~ /^2/' "$MR_ROOT/logs/access.log" | wc -l)
    {
        echo "R_requests=$(wrk_field requests summary)"
        echo "R_duration_us=$(wrk_field duration_us summary)"
        echo "R_non2xx=$(wrk_field status summary)"
        echo "R_log_non2xx=$n2xx"
        for k in connect read write timeout; do echo "R_$k=$(wrk_field $k summary)"; done
        for k in p50_us p99_us max_us; do echo "R_$k=$(wrk_field $k latency)"; done
        echo "R_badbody=$(sed -n 's/^WRK badbody //p' "$RUN/wrk.out")"
        echo "R_idle_rss=$idle_rss R_hwm=$hwm R_rssmax=$(cat "$RUN/rssmax") R_final_rss=$final_rss"
        echo "R_rp_med=$rp_med R_rp_max=$rp_max R_bp_med=$bp_med R_bp_max=$bp_max"
        echo "R_cpu_ticks=$((user1 + sys1 - user0 - sys0))"
        echo "R_user_ticks=$((user1 - user0)) R_sys_ticks=$((sys1 - sys0)) R_minflt=$((flt1 - flt0))"
    } >"$RUN/result"
    # From here on this run only waits for apache2 to stop (a second or
    # two, nearly all of it sleeping): the next run may start meanwhile.
    touch "$RUN/measured"

    mr_stop_server
    if grep -Eq 'exit signal|Segmentation|Aborted|AH00052' "$MR_ROOT/logs/error.log"; then
        alive=0
        fail "$RUN_ID: crash in error.log: $(grep -E 'exit signal|Segmentation|Aborted|AH00052' "$MR_ROOT/logs/error.log" | head -2)"
    fi
    cp "$MR_ROOT/logs/error.log" "$RUN/error.log"
    echo "R_alive=$alive" >>"$RUN/result"
}

# ---- the sweep -------------------------------------------------------------------

mkdir -p "$OUT" || exit 1
STAMP=$(date -u +%Y%m%d-%H%M%S)
BASE=$OUT/wrk-$STAMP
CSV=$BASE.csv
echo "scenario,config,apr,preload,bc_pfree,threads,wrk_threads,connections,rep,duration_s,requests,req_per_s,lat_p50_ms,lat_p99_ms,lat_max_ms,non2xx,socket_errors,bad_bodies,rss_idle_kb,rss_peak_kb,rss_sampled_max_kb,rss_final_kb,req_peak_median_b,req_peak_max_b,bc_peak_median_b,bc_peak_max_b,crashed,cpu_us_per_req,user_us_per_req,sys_us_per_req,minflt_per_req" >"$CSV"

# start_run <index>: one_run of PLAN[index] in the background, in
# $WORK/run-<index>; sets RUN, RUN_ID and RUN_PID.
start_run() {
    read -r s t c rep <<<"${PLAN[$1]}"
    RUN=$WORK/run-$1
    RUN_ID="[$s t=$t $c #$rep]"
    rm -rf "$RUN"
    mkdir -p "$RUN"
    one_run "$s" "$t" "$c" "$rep" &
    RUN_PID=$!
}

# await_measured: until the running one_run has measured or has ended.
await_measured() {
    while [ ! -e "$RUN/measured" ] && kill -0 "$RUN_PID" 2>/dev/null; do
        sleep 0.05
    done
}

# finish_run <index> <pid>: wait for that run to end and report it: a CSV
# row and a progress line.
finish_run() {
    local n=$1 s t c rep rps errs el left
    wait "$2"
    local rc=$?
    read -r s t c rep <<<"${PLAN[$n]}"
    RUN=$WORK/run-$n
    RUN_ID="[$s t=$t $c #$rep]"
    if [ $rc != 0 ] || [ ! -f "$RUN/result" ]; then
        fail "$RUN_ID: the run failed (server did not start?): $(tail -5 "$RUN/start.log" | tr '\n' ' ')"
        return
    fi
    R_requests= R_duration_us= R_alive=0 R_cpu_ticks= R_user_ticks= R_sys_ticks= R_minflt=
    . "$RUN/result"
    [ "$s" = mix ] || [ "${R_log_non2xx:-0}" = 0 ] ||
        fail "$RUN_ID: the access log has $R_log_non2xx non-2xx line(s)"
    config_set "$c"
    rps=$(awk -v n="${R_requests:-0}" -v d="${R_duration_us:-0}" 'BEGIN { printf "%.1f", (d > 0 ? n * 1e6 / d : 0) }')
    errs=$(( ${R_connect:-0} + ${R_read:-0} + ${R_write:-0} + ${R_timeout:-0} ))
    echo "$s,$c,$( [ -n "$C_APR" ] && echo reap || echo stock ),$( [ -n "$C_PRELOAD" ] && echo libreap-malloc || echo none ),$C_PFREE,$t,$((t < 2 ? t : 2)),$t,$rep,$(awk -v d="${R_duration_us:-0}" 'BEGIN { printf "%.2f", d / 1e6 }'),${R_requests:-0},$rps,$(ms "$R_p50_us"),$(ms "$R_p99_us"),$(ms "$R_max_us"),${R_non2xx:-0},$errs,${R_badbody:-0},$R_idle_rss,$R_hwm,$R_rssmax,$R_final_rss,$R_rp_med,$R_rp_max,$R_bp_med,$R_bp_max,$((1 - R_alive)),$(cpu_per_request "$R_cpu_ticks" "$R_requests"),$(cpu_per_request "$R_user_ticks" "$R_requests"),$(cpu_per_request "$R_sys_ticks" "$R_requests"),$(per_request "$R_minflt" "$R_requests")" >>"$CSV"
    el=$(($(date +%s) - T0))
    left=$(((NRUNS - n - 1) * el / (n + 1)))
    printf '[%3d/%d %02d:%02d left %02d:%02d] %-6s t=%-2s %-12s #%s  %9s req/s  p99 %8s ms  non2xx %-5s RSS peak %6.1f MB  req peak %s\n' \
        $((n + 1)) "$NRUNS" $((el / 60)) $((el % 60)) $((left / 60)) $((left % 60)) "$s" "$t" "$c" "$rep" "$rps" \
        "$(ms "$R_p99_us")" "${R_non2xx:-0}" "$(awk -v k="$R_hwm" 'BEGIN { print k / 1024 }')" "$R_rp_med"
}

ms() { awk -v u="${1:-0}" 'BEGIN { printf "%.3f", u / 1000 }'; }

# cpu_per_request <ticks> <requests>: the child's CPU microseconds per
# request over the measured window ("-" when it served none).
CLK_TCK=$(getconf CLK_TCK)
cpu_per_request() {
    per_request "$1" "$2" "$((1000000 / CLK_TCK))" %.1f
}

# per_request <count> <requests> [<factor> <format>]: count * factor per
# request ("-" when there were none); by default an event count, 4 decimals.
per_request() {
    awk -v c="${1:-0}" -v n="${2:-0}" -v f="${3:-1}" -v fmt="${4:-%.4f}" \
        'BEGIN { if (n > 0) printf fmt, c * f / n; else print "-" }'
}

# stop_runs: when we are interrupted, end the runs still going (their
# EXIT traps stop their servers) and wait for them, at most 30 s.
stop_runs() {
    local p i
    for p in $RUN_PID $PREV_PID; do kill -TERM "$p" 2>/dev/null; done
    for p in $RUN_PID $PREV_PID; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 300 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    done
}
RUN_PID=
PREV_PID=
trap 'stop_runs; cleanup' EXIT

# Runs go one after the other, but the next one starts while the last one
# waits for apache2 to stop, and its report comes out then.
T0=$(date +%s)
PREV=-1
for ((i = 0; i < NRUNS; i++)); do
    start_run "$i"
    await_measured
    if [ ! -e "$RUN/measured" ] && grep -q '^FATAL' "$RUN/start.log" 2>/dev/null; then
        # Another job rebuilding the shared build tree, or a port taken:
        # one more try before calling it a failure.
        say "$RUN_ID: apache2 did not start ($(grep '^FATAL' "$RUN/start.log" | head -1)); retrying once"
        wait "$RUN_PID"
        sleep 3
        start_run "$i"
        await_measured
    fi
    [ $PREV -ge 0 ] && finish_run $PREV "$PREV_PID"
    PREV=$i PREV_PID=$RUN_PID
done
[ $PREV -ge 0 ] && finish_run $PREV "$PREV_PID"
RUN_PID= PREV_PID=
ELAPSED=$(($(date +%s) - T0))

# ---- summary: median and spread per point ----------------------------------------

SUMMARY=$BASE-summary.csv
# Groups by scenario, config, threads (in first-seen order); for each
# numeric column the median, min and max of its repeats.
awk -F, '
function med(key, col,   n, i, j, a, t) {
    n = split(vals[key, col], a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    lo = a[1]; hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
NR == 1 { next }
{
    key = $1 "," $2 "," $6
    if (!(key in cnt)) order[++groups] = key
    cnt[key]++
    for (c = 10; c <= 31; c++) vals[key, c] = vals[key, c] ($c ~ /^[0-9.]+$/ ? " " $c : "")
    sum16[key] += $16; sum17[key] += $17; sum18[key] += $18; sum27[key] += $27
}
END {
    print "scenario,config,threads,runs,req_per_s,req_per_s_min,req_per_s_max,lat_p50_ms,lat_p99_ms,lat_max_ms,non2xx,socket_errors,bad_bodies,crashes,rss_peak_mb,rss_peak_mb_min,rss_peak_mb_max,rss_final_mb,rss_idle_mb,req_peak_median_kb,req_peak_max_kb,bc_peak_median_kb,bc_peak_max_kb,cpu_us_per_req,cpu_us_per_req_min,cpu_us_per_req_max,user_us_per_req,sys_us_per_req,minflt_per_req"
    for (g = 1; g <= groups; g++) {
        k = order[g]
        r = med(k, 12); rlo = lo; rhi = hi
        p50 = med(k, 13); p99 = med(k, 14); mx = med(k, 15)
        rss = med(k, 20); slo = lo; shi = hi
        fin = med(k, 22); idle = med(k, 19)
        rpm = vals[k, 23] == "" ? "-" : sprintf("%.1f", med(k, 23) / 1024)
        rpx = vals[k, 24] == "" ? "-" : (med(k, 24) ? sprintf("%.1f", hi / 1024) : "-")
        bpm = vals[k, 25] == "" ? "-" : sprintf("%.1f", med(k, 25) / 1024)
        bpx = vals[k, 26] == "" ? "-" : (med(k, 26) ? sprintf("%.1f", hi / 1024) : "-")
        cpu = "-,-,-"
        if (vals[k, 28] != "") { c = med(k, 28); cpu = sprintf("%.1f,%.1f,%.1f", c, lo, hi) }
        split_cpu = "-,-,-"
        if (vals[k, 29] != "" && vals[k, 30] != "" && vals[k, 31] != "")
            split_cpu = sprintf("%.1f,%.1f,%.4f", med(k, 29), med(k, 30), med(k, 31))
        printf "%s,%d,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%s,%s,%s,%s,%s\n",
            k, cnt[k], r, rlo, rhi, p50, p99, mx, sum16[k], sum17[k], sum18[k], sum27[k],
            rss / 1024, slo / 1024, shi / 1024, fin / 1024, idle / 1024, rpm, rpx, bpm, bpx, cpu, split_cpu
    }
}' "$CSV" >"$SUMMARY"

# ratio_lines: the issue's targets, computed (printed, never asserted).
ratio_lines() {
    awk -F, '
    NR == 1 { next }
    { v["rps", $1, $2, $3] = $5; v["rss", $1, $2, $3] = $15
      v["cpu", $1, $2, $3] = $24; v["grow", $1, $2, $3] = $15 - $19; v["idle", $1, $2, $3] = $19
      if ($27 != "-") { v["user", $1, $2, $3] = $27; v["sys", $1, $2, $3] = $28; v["flt", $1, $2, $3] = $29 } }
    function line(label, s, a, b, what, target,   t, out, any) {
        out = ""; any = 0
        for (t = 1; t <= 64; t *= 2) {
            if (!((what, s, a, t) in v) || !((what, s, b, t) in v)) continue
            out = out sprintf(" t%d=%s", t, ratio(v[what, s, a, t], v[what, s, b, t])); any = 1
        }
        if (any) printf "- %s (target %s):%s\n", label, target, out
    }
    # A configuration that finished no request within the measured window
    # (stock APR on the medium program at 64 threads: each request takes
    # longer than the window) has 0 req/s: the ratio is then "inf".
    function ratio(num, den) {
        if (den > 0) return sprintf("%.3f", num / den)
        return num > 0 ? "inf" : "n/a"
    }
    END {
        line("static: req/s reap / stock", "static", "reap", "stock", "rps", ">= 0.97 at every t")
        line("static: req/s stock2 / stock (A/A: the harness against itself)", "static", "stock2", "stock", "rps", "none, for information: how far 1.0 moves by noise alone")
        line("static: peak child RSS reap / stock", "static", "reap", "stock", "rss", "<= 1.0 (issue 25)")
        line("static: idle child RSS reap / stock", "static", "reap", "stock", "idle", "none, for information: the child before its first request, code and configuration")
        line("static: child RSS growth over the idle child (peak - idle) reap / stock", "static", "reap", "stock", "grow", "none, for information: the memory the requests took")
        line("static: child CPU per request reap / stock", "static", "reap", "stock", "cpu", "none, for information: what each request cost the server")
        line("static: child user CPU per request reap / stock", "static", "reap", "stock", "user", "none, for information")
        line("static: child system CPU per request reap / stock", "static", "reap", "stock", "sys", "none, for information")
        line("static: child minor page faults per request reap / stock", "static", "reap", "stock", "flt", "none, for information")
        line("static: req/s reap-malloc / stock", "static", "reap-malloc", "stock", "rps", "none, for information")
        line("bc medium: req/s reap (BcPfree On) / stock", "medium", "reap", "stock", "rps", ">= 1.0")
        line("bc medium: peak child RSS reap-off / reap (Off / On)", "medium", "reap-off", "reap", "rss", ">= 5")
        line("bc medium: child RSS growth over the idle child (peak - idle) reap-off / reap", "medium", "reap-off", "reap", "grow", "none, for information: the memory requests took, without the ~5 MB of code and libraries every child maps")
        line("bc mix: peak child RSS reap-off / reap (Off / On)", "mix", "reap-off", "reap", "rss", "none, for information")
    }' "$SUMMARY"
}

# ---- Markdown --------------------------------------------------------------------

MD=$BASE.md
{
    echo "# wrk load test of httpd, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    lt_machine "$(wrk -v 2>&1 | head -1 | cut -d' ' -f1,2)"
    echo "Load average at the start: $LOAD_START (a shared machine: compare configurations within one run)."
    echo
    echo "Mode: $( [ "$QUICK" = 1 ] && echo quick || echo full ); $NRUNS runs in $((ELAPSED / 60)) min $((ELAPSED % 60)) s;" \
        "${WARMUP} s warm-up + ${DURATION} s measured per run ($BC_LONG_S s for the bc programs at 32 and 64 threads in full mode); $REPS repeat(s), configurations in alternation;" \
        "$MPM MPM, one child process with $( [ "$MPM" = event ] && echo "2T + 2" || echo T) threads, wrk with T connections and min(T, 2) threads$( [ "$PIN" = 1 ] && echo "; pinned: the server on CPU 0, wrk on CPU 1")."
    echo "Figures are medians over the repeats, with the spread (min-max) in brackets."
    echo "RSS peak is the child's VmHWM at the end of the run; request peak is mod_reap's reap-peak note"
    echo "(the request pool), bc peak is mod_bc's bc-peak note (the program's subpool; on stock APR the bytes allocated)."
    echo "CPU µs/req is the child's user + system time over the measured window (/proc, $CLK_TCK ticks a second) over the requests wrk counted;"
    echo "the CSVs also split it into user and system time and give the child's minor page faults per request."
    [ ${#SKIPPED[@]} -eq 0 ] || { echo; for x in "${SKIPPED[@]}"; do echo "**SKIPPED:** $x"; done; }
    for s in $RUN_SCENARIOS; do
        echo
        echo "## $s"
        echo
        echo "| threads | config | req/s (min-max) | p50 ms | p99 ms | max ms | non-2xx | sock err | RSS peak MB (min-max) | RSS final MB | req peak KB med/max | bc peak KB med/max | CPU µs/req (min-max) |"
        echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        awk -F, -v s="$s" 'NR > 1 && $1 == s {
            printf "| %s | %s | %.0f (%.0f-%.0f) | %.2f | %.2f | %.1f | %s | %s | %.1f (%.1f-%.1f) | %.1f | %s / %s | %s / %s | %s (%s-%s) |\n",
                $3, $2, $5, $6, $7, $8, $9, $10, $11, $12, $15, $16, $17, $18, $20, $21, $22, $23, $24, $25, $26 }' "$SUMMARY"
    done
    echo
    echo "## Targets of issues 7 and 25 (computed, not asserted)"
    echo
    ratio_lines
    echo
    echo "Raw runs: \`$(basename "$CSV")\`; summary: \`$(basename "$SUMMARY")\`."
} >"$MD"
lt_compare "$SUMMARY" "$MD" --same "$MPM MPM"

# ---- plots -----------------------------------------------------------------------

# config_index <name>: its place in CONFIGS, so a configuration keeps its
# colour in every panel.
config_index() {
    local n=1 x
    for x in $CONFIGS; do
        [ "$x" = "$1" ] && break
        n=$((n + 1))
    done
    echo $n
}

# plot <png> <column> <min column> <max column> <ylabel>: one panel per
# scenario, one line per configuration, median with min-max error bars.
plot() {
    local png=$1 gp=${1%.png}.gp s c sep q='\"' sq="'"
    xmax=$(echo $THREADS | tr ' ' '\n' | sort -n | tail -1 | awk '{ print $1 * 1.4 }')
    {
        lt_gnuplot_page "$png" "$(echo $RUN_SCENARIOS | wc -w)"
        echo "set xlabel 'threads per child (= wrk connections)'; set ylabel '$5'"
        echo "set logscale x 2; set xrange [0.7:$xmax]; set xtics ($(echo $THREADS | tr ' ' ',')); set yrange [0:*]; set key top left"
        for s in $RUN_SCENARIOS; do
            echo "set title '$s'"
            printf 'plot '
            sep=
            for c in $(configs_for "$s"); do
                # gnuplot runs: awk -F, '$1=="<s>" && $2=="<c>"' <summary>
                printf '%s"< awk -F, %s$1==%s%s%s && $2==%s%s%s%s %s" using 3:%s:%s:%s with yerrorlines lt %d title %s%s%s' \
                    "$sep" "$sq" "$q" "$s" "$q" "$q" "$c" "$q" "$sq" "$SUMMARY" "$2" "$3" "$4" \
                    "$(config_index "$c")" "$sq" "$c" "$sq"
                sep=', '
            done
            echo
        done
        echo "unset multiplot"
    } >"$gp"
    gnuplot "$gp" 2>"$WORK/gnuplot.err" || { fail "gnuplot failed on $gp: $(head -3 "$WORK/gnuplot.err")"; return; }
}

if command -v gnuplot >/dev/null 2>&1; then
    plot "$BASE-throughput.png" 5 6 7 "requests per second"
    plot "$BASE-rss.png" 15 16 17 "child peak RSS, MB"
    for f in "$BASE-throughput.png" "$BASE-rss.png"; do
        [ -s "$f" ] || fail "plot $f was not written"
    done
else
    fail "gnuplot is missing (package gnuplot-nox): no plots"
fi

# ---- report ----------------------------------------------------------------------

say
say "done: $NRUNS runs in $((ELAPSED / 60)) min $((ELAPSED % 60)) s (estimate was ~$((EST_S / 60)) min $((EST_S % 60)) s)"
say "targets of issues 7 and 25 (computed, not asserted):"
ratio_lines
[ -z "$COMPARE" ] || printf '%s\n' "$COMPARE"
say "results: $CSV"
say "         $SUMMARY"
say "         $MD"
[ -f "$BASE-throughput.png" ] && say "         $BASE-throughput.png $BASE-rss.png"
[ -s "$CSV" ] && [ "$(wc -l <"$CSV")" -gt 1 ] || fail "no run produced a CSV row"
[ -s "$MD" ] || fail "no Markdown summary"
[ ${#SKIPPED[@]} -eq 0 ] || loud "SKIPPED:" "${SKIPPED[@]}"
lt_exit_if_failed
say "all checks passed (no crash, no unexpected status, every body right)"
[ ${#SKIPPED[@]} -eq 0 ] || exit 77
exit 0
