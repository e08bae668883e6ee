#!/bin/bash
# run.sh - the HTTP/2 scenario of the load test (issue 25): httpd with
# mod_http2 on stock APR pools against reaps, driven by h2load (Debian's
# nghttp2-client), over h2c and over h2 with TLS, with httpd's default
# MaxMemFree and with MaxMemFree 128.
#
# For every point (protocol x MaxMemFree x configuration x repeat) it starts
# Debian's apache2 on a fresh temporary ServerRoot through
# tests/httpd/httpd_lib.sh (loopback, event MPM, 3 children of 96 threads,
# mod_http2, mod_reap; for TLS also mod_ssl with a self-signed certificate
# made into the work directory), serves a 4 KiB static file in B bursts of
# `h2load -n N -c C -m M`, samples the RSS of every apache2 process (the
# parent and the children, summed) from /proc every 100 ms, reads it once
# more IDLE seconds after the last burst, and stops the server.  The
# configurations run in alternation (A B A B ...), so drift on a shared
# machine does not pose as a difference between them.
#
#   configurations  stock      Debian's libapr-1
#                   reap       the reap-backed APR (apr-patch/)
#                   reap-nomod the reap-backed APR without mod_reap: what
#                              every other program on that APR gets (the
#                              give-back is libreap's own, issue 48)
#                   stock-sym  stock APR built with symbols from the same
#                              source (loadtest/wrk/stock-apr-sym.sh), for
#                              --perf record: Debian's library is stripped
#                   stock-malloc  the same without Debian's
#                              --enable-allocator-uses-mmap: memnodes from
#                              malloc, as APR builds by default
#   protocols       h2c        HTTP/2 over cleartext (prior knowledge)
#                   tls        HTTP/2 over TLS (ALPN h2)
#   MaxMemFree      default    no directive: httpd's default, 2048 KB
#                   128        MaxMemFree 128
#
# Output: <out>/h2-<stamp>.csv (one row per run), -summary.csv (median,
# min, max per point), -rss.csv (RSS over time of every run), .md (tables:
# req/s, peak RSS, idle RSS, CPU time and page faults per request, and the
# reap / stock ratios), -rss.png (gnuplot: RSS over time, one panel per
# protocol and MaxMemFree, one line per run), progress lines on stdout.
# Every run is also checked: every request of every burst succeeded with a
# 2xx, h2load spoke h2c or h2, a curl GET over HTTP/2 returns the file
# exactly, the children map the right libapr-1, none died or changed, and
# the error log holds no crash and nothing above notice but mod_reap's
# start-up warning on stock APR.  The exit status is 0 when every check
# passed, 1 when one failed, 77 (skip) only when h2load or mod_http2.so is
# missing.  Speed is measured and printed, never asserted.
#
# usage: loadtest/h2/run.sh [--quick] [--estimate] [--build DIR] [--out DIR]
#            [--reps N] [--configs "stock reap reap-nomod"] [--protocols "h2c tls"]
#            [--maxmemfree "default 128"] [--requests N] [--clients C]
#            [--streams M] [--rps R] [--bursts B] [--idle S] [--threads T] [--pin]
#            [--perf stat|record] [--keep] [--max-idle-ratio R]
#   --quick     checks the harness in about 1.5 minutes: one repeat,
#               -n 5000 bursts, every protocol and MaxMemFree
#   --estimate  print the plan and its estimated duration, run nothing
#   --requests, --clients, --streams  h2load's -n, -c and -m [20000 64 10]
#   --rps       h2load's --rps: at most R requests a second per client, so
#               that both APRs serve the same load and their peak RSS is
#               compared at equal throughput (C x R should be below the
#               slower one's req/s) [no limit]
#   --bursts    h2load runs one after the other [3]
#   --idle      seconds from the end of the last burst to the idle RSS [6]
#   --threads   ThreadsPerChild of each of the 3 children [C + 32]
#   --pin       apache2 on CPU 0, h2load on CPU 1 (taskset): the server's
#               req/s on one core, not shared with the client (2 CPUs)
#   --perf stat    perf stat of every apache2 process over the bursts:
#               CPU, page faults, context switches, TLB flushes and the
#               mmap, munmap, madvise and futex calls, per request
#   --perf record  perf record -g over the bursts; the top symbols of each
#               run (perf report --no-children) go to <out>/h2-<stamp>-perf/
#   --keep      keep the work directory (server logs, h2load output, and at
#               idle each apache2 process's smaps and /reap-status?json)
#   --max-idle-ratio R  fail when, for some protocol, MaxMemFree and reap
#               configuration, the median idle RSS is above R times stock's
#               (a memory check with a margin, for the test tier: the
#               give-back of issue 25 regressing shows as 2-4x stock)
# The build directory (default: the current directory when it holds
# mod_reap/apxs/.libs/mod_reap.so, else <source>/build) has mod_reap.so; the
# reap-backed APR comes from $REAP_APR_DIR, else the build's
# tests/httpd/mod_reap_paths.sh, else <build>/install/apr.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

# ---- options ---------------------------------------------------------------------

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
QUICK=0 ESTIMATE=0 PIN=0 KEEP=0 PERF= MAX_IDLE_RATIO=
BUILD=${MR_BUILDDIR:-} OUT='' REPS='' REQUESTS='' CLIENTS=64 STREAMS=10 RPS= BURSTS=3 IDLE=6
CONFIGS="stock reap reap-nomod" PROTOCOLS="h2c tls" MAXMEMFREE="default 128"
# The event MPM: 3 children (httpd's StartServers) of C + 32 threads.  When
# every worker of a child is busy, the event MPM closes that child's idle
# keep-alive connections ("All workers are busy or dying, will shutdown N
# keep-alive connections"), h2 ones too, and h2load counts their pending
# requests as failed: up to 4,551 of 20,000 a burst with httpd's default
# of 25 threads, and in one burst of about 190 with 64.  One child may
# accept all of h2load's C connections, so each has C + 32 threads.
SERVERS=3 THREADS=

usage() {
    sed -n '/^# usage:/,/^# tests\/httpd/p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --quick | --estimate | --pin | --keep) declare "$(echo "${1#--}" | tr a-z A-Z)=1" ;;
    --perf) PERF=$2; shift ;;
    --max-idle-ratio) MAX_IDLE_RATIO=$2; shift ;;
    --build) BUILD=$2; shift ;;
    --out) OUT=$2; shift ;;
    --reps) REPS=$2; shift ;;
    --configs) CONFIGS=$2; shift ;;
    --protocols) PROTOCOLS=$2; shift ;;
    --maxmemfree) MAXMEMFREE=$2; shift ;;
    --requests) REQUESTS=$2; shift ;;
    --clients) CLIENTS=$2; shift ;;
    --streams) STREAMS=$2; shift ;;
    --rps) RPS=$2; shift ;;
    --bursts) BURSTS=$2; shift ;;
    --idle) IDLE=$2; shift ;;
    --threads) THREADS=$2; shift ;;
    -h | --help) usage ;;
    *) echo "run.sh: unknown option $1" >&2; usage ;;
    esac
    shift
done
if [ "$QUICK" = 1 ]; then
    REPS=${REPS:-1} REQUESTS=${REQUESTS:-5000}
else
    REPS=${REPS:-3} REQUESTS=${REQUESTS:-20000}
fi
THREADS=${THREADS:-$((CLIENTS + 32))}
for n in "$REPS" "$REQUESTS" "$CLIENTS" "$STREAMS" "$BURSTS" "$IDLE" "$THREADS" ${RPS:+"$RPS"}; do
    case $n in
    '' | *[!0-9]* | 0*) echo "run.sh: counts and seconds are whole numbers above 0 ('$n')" >&2; exit 2 ;;
    esac
done
for p in $PROTOCOLS; do
    case $p in h2c | tls) ;; *) echo "run.sh: unknown protocol $p (h2c, tls)" >&2; exit 2 ;; esac
done
for m in $MAXMEMFREE; do
    case $m in default | [1-9] | [1-9]*[0-9]) ;; *) echo "run.sh: MaxMemFree is 'default' or KB ('$m')" >&2; exit 2 ;; esac
done
case $PERF in '' | stat | record) ;; *) echo "run.sh: --perf stat or --perf record" >&2; exit 2 ;; esac
case $MAX_IDLE_RATIO in
'' | [0-9].[0-9] | [0-9].[0-9][0-9] | [0-9]) ;;
*) echo "run.sh: --max-idle-ratio takes a ratio such as 1.5 ('$MAX_IDLE_RATIO')" >&2; exit 2 ;;
esac

. "$top/loadtest/lib.sh"
BUILD=$(lt_build_dir "$BUILD" "$top") || exit 2
OUT=${OUT:-$top/loadtest/results}

MR_BUILDDIR=$BUILD
MR_APR_LIB=
. "$top/tests/httpd/httpd_lib.sh"
REAP_APR_LIB=$(mr_reap_apr_lib)
MOD_HTTP2=$MR_MODDIR/mod_http2.so

# ---- what can run ----------------------------------------------------------------

missing=
command -v h2load >/dev/null || missing="h2load (package nghttp2-client)"
[ -f "$MOD_HTTP2" ] || missing="${missing:+$missing and }$MOD_HTTP2 (package apache2-bin)"
if [ -n "$missing" ]; then
    loud "SKIPPED: the HTTP/2 load test did NOT run: no $missing"
    exit 77
fi
for need in "$MR_APACHE" "$MR_MOD_REAP" "$MR_MODDIR/mod_mpm_event.so"; do
    [ -e "$need" ] || { echo "run.sh: $need is missing (make; package apache2)" >&2; exit 1; }
done
case " $PROTOCOLS " in
*" tls "*)
    for need in "$MR_MODDIR/mod_ssl.so" "$MR_MODDIR/mod_socache_shmcb.so"; do
        [ -e "$need" ] || { echo "run.sh: $need is missing (package apache2-bin)" >&2; exit 1; }
    done
    command -v openssl >/dev/null || { echo "run.sh: openssl is missing (package openssl)" >&2; exit 1; }
    ;;
esac
if [ -n "$PERF" ]; then
    command -v perf >/dev/null || { echo "run.sh: --perf needs perf (package linux-perf)" >&2; exit 2; }
fi
H2LOAD=(h2load)
if [ "$PIN" = 1 ]; then
    lt_pin_check
    H2LOAD=(taskset -c 1 h2load)
fi

# config_set <name>: C_APR, the libapr-1 directory ("" for Debian's), and
# C_MODREAP, 1 when the server loads mod_reap.
config_set() {
    C_MODREAP=1
    case $1 in
    stock) C_APR= ;;
    reap) C_APR=$REAP_APR_LIB ;;
    reap-nomod) C_APR=$REAP_APR_LIB C_MODREAP=0 ;;
    stock-sym) C_APR=$BUILD/apr-stock-sym/install/lib ;;
    stock-malloc) C_APR=$BUILD/apr-stock-malloc/install/lib ;;
    *) return 1 ;;
    esac
}
for c in $CONFIGS; do
    config_set "$c" || { echo "run.sh: unknown configuration $c (stock, reap, reap-nomod, stock-sym, stock-malloc)" >&2; exit 2; }
    case $c in
    reap | reap-nomod)
        nm -D "$REAP_APR_LIB/libapr-1.so.0" 2>/dev/null | grep -q ' T apr_pfree$' || {
            echo "run.sh: no reap-backed APR at $REAP_APR_LIB (make apr-build)" >&2
            exit 1
        } ;;
    stock-sym)
        "$top/loadtest/wrk/stock-apr-sym.sh" "$BUILD" >/dev/null || exit 1 ;;
    stock-malloc)
        "$top/loadtest/wrk/stock-apr-sym.sh" "$BUILD" malloc >/dev/null || exit 1 ;;
    esac
done

# ---- the plan and its estimate ---------------------------------------------------

PLAN=()
for p in $PROTOCOLS; do
    for m in $MAXMEMFREE; do
        for ((r = 1; r <= REPS; r++)); do
            for c in $CONFIGS; do PLAN+=("$p $m $c $r"); done
        done
    done
done
NRUNS=${#PLAN[@]}
# A run: ~1 s to start, the bursts at about 6,000 req/s on 2 shared cores,
# the idle wait, ~2.5 s to check and stop; with --rps, C x R req/s at most.
EST_S=$(awk -v n="$NRUNS" -v b="$BURSTS" -v q="$REQUESTS" -v i="$IDLE" -v r="${RPS:-0}" -v c="$CLIENTS" \
    'BEGIN { rate = (r > 0 && r * c < 6000) ? r * c : 6000; printf "%d", n * (3.5 + b * q / rate + i) + 5 }')
say "HTTP/2 load test of httpd: $([ "$QUICK" = 1 ] && echo quick || echo full) mode"
say "  build        $BUILD"
say "  reap APR     $REAP_APR_LIB"
say "  protocols    $PROTOCOLS; MaxMemFree $MAXMEMFREE; configs $CONFIGS"
say "  server       event MPM, $SERVERS children x $THREADS threads"
say "  per run      $BURSTS x h2load -n $REQUESTS -c $CLIENTS -m $STREAMS${RPS:+ --rps $RPS}, idle RSS $IDLE s after; $REPS repeat(s)"
[ "$PIN" = 1 ] && say "  pinned       apache2 on CPU 0, h2load on CPU 1"
[ -n "$PERF" ] && say "  perf         $PERF over the bursts"
say "  estimate     $NRUNS runs, ~$((EST_S / 60)) min $((EST_S % 60)) s"
[ "$ESTIMATE" = 1 ] && exit 0
[ "$NRUNS" -gt 0 ] || { say "run.sh: nothing to run"; exit 2; }

# ---- work directory, file, certificate -------------------------------------------

WORK=$(mktemp -d /tmp/h2-loadtest.XXXXXX)
FAILS=$WORK/fails
: >"$FAILS"
finish_work() {
    if [ "$KEEP" = 1 ]; then say "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
cleanup_push finish_work

STATIC=$WORK/s4k.txt
awk 'BEGIN { for (i = 0; i < 64; i++) printf "%-63s\n", "reap h2 loadtest static line " i }' >"$STATIC"
CERT=$WORK/cert.pem KEY=$WORK/key.pem
case " $PROTOCOLS " in
*" tls "*)
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -keyout "$KEY" -out "$CERT" -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 -addext basicConstraints=critical,CA:FALSE \
        >"$WORK/openssl.log" 2>&1 || { cat "$WORK/openssl.log"; echo "run.sh: openssl failed" >&2; exit 1; }
    ;;
esac

# ---- the server's site configuration ---------------------------------------------

# Printed by httpd_lib.sh's mr_write_conf for the run's C_PROTO and C_MMF.
h2_site() {
    echo "LoadModule http2_module $MOD_HTTP2"
    echo "Protocols h2c http/1.1"
    [ "$C_MODREAP" = 0 ] || cat <<EOF
LoadModule reap_module $MR_MOD_REAP
<Location /reap-status>
    SetHandler reap-status
</Location>
EOF
    [ "$C_MMF" = default ] || echo "MaxMemFree $C_MMF"
    [ "$C_PROTO" = tls ] || return 0
    cat <<EOF
LoadModule socache_shmcb_module $MR_MODDIR/mod_socache_shmcb.so
LoadModule ssl_module $MR_MODDIR/mod_ssl.so
SSLSessionCache "shmcb:$MR_ROOT/run/ssl_scache(512000)"
Listen 127.0.0.1:$((MR_PORT + 1)) https
<VirtualHost 127.0.0.1:$((MR_PORT + 1))>
    ServerName 127.0.0.1
    SSLEngine on
    SSLCertificateFile "$CERT"
    SSLCertificateKeyFile "$KEY"
    Protocols h2 http/1.1
</VirtualHost>
EOF
}

# ---- one run ---------------------------------------------------------------------

# rss_sampler <stopfile> <outfile> <pids...>: "<epoch seconds> <kB>", the
# processes' summed VmRSS, every 100 ms until the stop file appears.
rss_sampler() {
    local stop=$1 out=$2
    shift 2
    while [ ! -e "$stop" ]; do
        mr_proc_mem "$@"
        echo "$EPOCHREALTIME $MR_RSS"
        sleep 0.1
    done >"$out"
}

# check_burst <file>: every request of the burst succeeded, with a 2xx, on
# the run's protocol.  Sets B_OK (requests that succeeded) and B_SECS
# (h2load's time for the burst).
check_burst() {
    local f=$1 n2xx proto
    B_OK=$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' "$f")
    # "finished in 701.13ms, ..." or "finished in 2.54s, ..."
    B_SECS=$(awk '/^finished in / { t = $3; sub(/,$/, "", t)
        if (sub(/ms$/, "", t)) t /= 1000; else sub(/s$/, "", t)
        print t }' "$f")
    n2xx=$(sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p' "$f")
    proto=$(sed -n 's/^Application protocol: //p' "$f")
    [ "$proto" = "$WANT_PROTO" ] || fail "$RUN_ID: h2load spoke '$proto', not $WANT_PROTO"
    [ "${B_OK:-0}" = "$REQUESTS" ] && [ "${n2xx:-0}" = "$REQUESTS" ] ||
        fail "$RUN_ID: ${B_OK:-0} of $REQUESTS requests succeeded, ${n2xx:-0} with a 2xx: $(grep '^requests:' "$f")"
    B_OK=${B_OK:-0} B_SECS=${B_SECS:-0}
}

# perf_start <pids...>: perf over the bursts, when asked for.
perf_start() {
    local list
    list=$(echo "$@" | tr ' ' ',')
    case $PERF in
    stat)
        perf stat -x, -o "$RUN/perf.stat" -p "$list" -e task-clock,page-faults,context-switches \
            -e syscalls:sys_enter_mmap,syscalls:sys_enter_munmap,syscalls:sys_enter_madvise \
            -e syscalls:sys_enter_futex,tlb:tlb_flush >"$RUN/perf.log" 2>&1 &
        ;;
    record)
        perf record -g -F 999 -o "$RUN/perf.data" -p "$list" >"$RUN/perf.log" 2>&1 &
        ;;
    *) return 0 ;;
    esac
    PERF_PID=$!
    sleep 0.5 # perf attaches to every thread before the first burst
}

# perf_stop <requests>: stop perf; PERF_COLS, the per-request figures.
perf_stop() {
    PERF_COLS=-,-,-,-,-,-,-,-
    [ -n "$PERF" ] || return 0
    kill -INT "$PERF_PID" 2>/dev/null
    wait "$PERF_PID"
    if [ "$PERF" = stat ]; then
        PERF_COLS=$(awk -F, -v n="$1" '
            { v[$3] = $1 }
            END { split("task-clock page-faults context-switches syscalls:sys_enter_mmap syscalls:sys_enter_munmap syscalls:sys_enter_madvise syscalls:sys_enter_futex tlb:tlb_flush", e, " ")
                  for (i = 1; i <= 8; i++) {
                      x = (e[i] in v && v[e[i]] ~ /^[0-9.]+$/ && n > 0) ? sprintf(i == 1 ? "%.1f" : "%.3f", v[e[i]] * (i == 1 ? 1000 : 1) / n) : "-"
                      printf "%s%s", (i > 1 ? "," : ""), x } }' "$RUN/perf.stat")
        case $PERF_COLS in *-*) fail "$RUN_ID: perf stat counted nothing: $(head -3 "$RUN/perf.log")" ;; esac
    fi
}

# perf_report: the recorded run's top symbols into $PERFDIR (after the
# run, so that reading the profile does not delay the idle reading).
perf_report() {
    [ "$PERF" = record ] || return 0
    local rep=$PERFDIR/$RUN_NAME.txt
    {
        echo "# $RUN_ID: perf record -g -F 999 -p <every apache2 process> over the bursts"
        echo "# perf report --no-children --sort dso,sym --stdio -g none"
        perf report -i "$RUN/perf.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null |
            grep -v '^#' | grep -v '^$' | head -40
        echo "# where the kernel's time went, with what it calls (perf report --children --sort sym):"
        echo "# munmap, mmap, madvise, futex, page faults, TLB shootdowns, mmap_lock waits"
        perf report -i "$RUN/perf.data" --children --sort sym --stdio -g none 2>/dev/null |
            grep -E '\] (__vm_munmap|vm_mmap_pgoff|__x64_sys_madvise|__x64_sys_futex|asm_exc_page_fault|flush_tlb_mm_range|rwsem_down_write_slowpath)$'
    } >"$rep"
    [ "$(wc -l <"$rep")" -gt 5 ] || fail "$RUN_ID: perf report is empty: $(head -3 "$RUN/perf.log")"
}

# Where the idle memory is, for --keep: each apache2 process's smaps and
# the server's /reap-status?json.  keep_idle_memory URL PID...
keep_idle_memory() {
    local url=$1 p
    shift
    for p in "$@"; do
        { echo "== $p $(tr '\0' ' ' </proc/$p/cmdline)"; cat "/proc/$p/smaps_rollup"; } >>"$RUN/idle-smaps" 2>/dev/null
        cat "/proc/$p/smaps" >"$RUN/idle-smaps-$p" 2>/dev/null
    done
    [ "$C_MODREAP" = 1 ] || return 0
    curl -s "${curlopt[@]}" -o "$RUN/idle-reap-status.json" "${url%/*}/reap-status?json" 2>/dev/null
}

# one_run <protocol> <maxmemfree> <config> <rep>: in a subshell (its EXIT
# trap, from httpd_lib.sh, stops the server); writes $RUN/result.
one_run() {
    C_PROTO=$1 C_MMF=$2 c=$3
    config_set "$c"
    MR_APR_LIB=$C_APR MR_PRELOAD='' MR_MPM=event MR_SERVERS=$SERVERS MR_THREADS=$THREADS
    MR_SITE=h2_site MR_NEED=$MR_MOD_REAP
    mr_start >"$RUN/start.log" 2>&1 || { fail "$RUN_ID: apache2 did not start: $(tail -3 "$RUN/start.log" | tr '\n' ' ')"; exit 1; }
    cp "$STATIC" "$MR_ROOT/htdocs/s4k.txt" && chmod a+r "$MR_ROOT/htdocs/s4k.txt"
    local parent children pids url curlopt
    parent=$(cat "$MR_ROOT/run/httpd.pid")
    children=$(mr_children)
    pids="$parent $children"
    [ -n "$children" ] || { fail "$RUN_ID: no child process"; exit 1; }
    if [ -n "$C_APR" ]; then
        mr_libapr_under "$C_APR" >/dev/null || fail "$RUN_ID: children map $(mr_child_libapr), not $C_APR's"
    else
        case $(mr_child_libapr) in "$REAP_APR_LIB"/* | "$BUILD"/*) fail "$RUN_ID: stock maps $(mr_child_libapr)" ;; esac
    fi
    if [ "$PIN" = 1 ]; then
        for p in $pids; do taskset -a -p -c 0 "$p" >/dev/null || fail "$RUN_ID: taskset of $p failed"; done
    fi
    if [ "$C_PROTO" = tls ]; then
        url=https://127.0.0.1:$((MR_PORT + 1))/s4k.txt WANT_PROTO=h2 curlopt=(--http2 -k)
    else
        url=http://127.0.0.1:$MR_PORT/s4k.txt WANT_PROTO=h2c curlopt=(--http2-prior-knowledge)
    fi

    rss_sampler "$RUN/stop" "$RUN/rss" $pids &
    local sampler=$! t0 t1 b total=0 allsecs=0 bursts=
    cleanup_push "touch '$RUN/stop'"
    perf_start $pids
    read -r u0 s0 f0 < <(mr_proc_cpu $pids)
    t0=$EPOCHREALTIME
    for ((b = 1; b <= BURSTS; b++)); do
        "${H2LOAD[@]}" -n "$REQUESTS" -c "$CLIENTS" -m "$STREAMS" ${RPS:+--rps "$RPS"} "$url" >"$RUN/h2load-$b.out" 2>&1
        check_burst "$RUN/h2load-$b.out"
        total=$((total + B_OK))
        allsecs=$(awk -v a="$allsecs" -v s="$B_SECS" 'BEGIN { print a + s }')
        bursts="$bursts${bursts:+/}$(awk -v n="$B_OK" -v s="$B_SECS" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')"
    done
    t1=$EPOCHREALTIME
    read -r u1 s1 f1 < <(mr_proc_cpu $pids)
    perf_stop "$total"
    mr_proc_mem $pids
    local end_rss=$MR_RSS hwm=$MR_HWM
    sleep "$IDLE"
    mr_proc_mem $pids
    local idle_rss=$MR_RSS
    if [ "$KEEP" = 1 ]; then keep_idle_memory "$url" $pids; fi
    touch "$RUN/stop"
    wait "$sampler"

    local code
    code=$(curl -s "${curlopt[@]}" -o "$RUN/probe.body" -w '%{http_version} %{http_code}' "$url")
    [ "$code" = "2 200" ] && cmp -s "$RUN/probe.body" "$STATIC" ||
        fail "$RUN_ID: curl GET over HTTP/2: '$code' or a wrong body"
    local alive=1
    [ "$(mr_children)" = "$children" ] || { alive=0; fail "$RUN_ID: the children changed: '$children' -> '$(mr_children)'"; }
    mr_stop_server
    perf_report
    cp "$MR_ROOT/logs/error.log" "$RUN/error.log"
    if grep -Eq 'exit signal|Segmentation|Aborted|AH00052' "$RUN/error.log"; then
        alive=0
        fail "$RUN_ID: crash in error.log: $(grep -Em2 'exit signal|Segmentation|Aborted|AH00052' "$RUN/error.log")"
    fi
    # Allowed: mod_reap's warning on stock APR, and mod_ssl's AH01882 when
    # Debian's apache2 was built against a newer libssl3 than the one
    # installed (a state of the machine, not of the run).
    mr_log_clean_file "$RUN/error.log" 'mod_reap: libreap .* is NOT reap-backed' \
        'AH01882: Init: this version of mod_ssl was compiled against a newer library' >"$RUN/log-check" ||
        fail "$RUN_ID: error.log: $(tr '\n' ' ' <"$RUN/log-check")"

    local start_rss
    start_rss=$(awk 'NR == 1 { print $2 }' "$RUN/rss")
    awk -v t0="$t0" -v key="$C_PROTO,$C_MMF,$c,$4" '{ printf "%s,%.2f,%.2f\n", key, $1 - t0, $2 / 1024 }' \
        "$RUN/rss" >"$RUN/rss.csv"
    local smax
    smax=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$RUN/rss")
    # CSV columns after protocol,maxmemfree,config,apr,rep: see the header.
    awk -v n="$total" -v s="$allsecs" -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
        -v ut="$((u1 - u0))" -v st="$((s1 - s0))" -v fl="$((f1 - f0))" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%d,%.3f,%.1f,%.2f,%.1f,%.1f,%.1f,%.3f", n, s, (s > 0 ? n / s : 0), w,
                 (ut + st) * 1e6 / hz / n, ut * 1e6 / hz / n, st * 1e6 / hz / n, fl / n }' >"$RUN/row"
    printf ',%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$bursts" "$start_rss" "$hwm" "$smax" "$end_rss" "$idle_rss" \
        "$(echo $pids | wc -w)" "$((1 - alive))" "$PERF_COLS" >>"$RUN/row"
}

# ---- the sweep -------------------------------------------------------------------

mkdir -p "$OUT" || exit 1
STAMP=$(date -u +%Y%m%d-%H%M%S)
BASE=$OUT/h2-$STAMP
CSV=$BASE.csv
RSSCSV=$BASE-rss.csv
PERFDIR=$BASE-perf
[ "$PERF" = record ] && mkdir -p "$PERFDIR"
echo "protocol,maxmemfree,config,apr,rep,requests,burst_s,req_per_s,wall_s,cpu_us_per_req,user_us_per_req,sys_us_per_req,minflt_per_req,burst_req_per_s,rss_start_kb,rss_peak_kb,rss_sampled_max_kb,rss_end_kb,rss_idle_kb,processes,crashed,perf_cpu_us_per_req,perf_faults_per_req,perf_cs_per_req,perf_mmap_per_req,perf_munmap_per_req,perf_madvise_per_req,perf_futex_per_req,perf_tlb_flush_per_req" >"$CSV"
echo "protocol,maxmemfree,config,rep,t_s,rss_mb" >"$RSSCSV"

T0=$(date +%s)
for ((i = 0; i < NRUNS; i++)); do
    read -r p m c r <<<"${PLAN[$i]}"
    RUN=$WORK/run-$i RUN_ID="[$p MaxMemFree=$m $c #$r]" RUN_NAME=$p-$m-$c-$r
    mkdir -p "$RUN"
    (one_run "$p" "$m" "$c" "$r")
    el=$(($(date +%s) - T0))
    if [ ! -s "$RUN/row" ]; then
        fail "$RUN_ID: the run gave no figures"
        continue
    fi
    config_set "$c"
    echo "$p,$m,$c,$(case $c in reap*) echo reap ;; *) echo stock ;; esac),$r,$(cat "$RUN/row")" >>"$CSV"
    cat "$RUN/rss.csv" >>"$RSSCSV"
    tail -1 "$CSV" | awk -F, -v i=$((i + 1)) -v n="$NRUNS" -v el="$el" '{
        printf "[%2d/%d %02d:%02d] %-3s MaxMemFree=%-7s %-9s #%s %8.0f req/s (%s)  CPU %6.1f us/req  RSS peak %6.1f MB  idle %6.1f MB\n",
            i, n, el / 60, el % 60, $1, $2, $3, $5, $8, $14, $10, $16 / 1024, $19 / 1024 }'
done
ELAPSED=$(($(date +%s) - T0))

# ---- summary: median and spread per point ----------------------------------------

SUMMARY=$BASE-summary.csv
# The median of each column, by point, in the order the points first ran.
awk -F, '
function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    lo = a[1]; hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# spread(values, scale, format): "median,min,max", each divided by scale.
function spread(s, d, fmt,   m) {
    m = median(s)
    return sprintf(fmt "," fmt "," fmt, m / d, lo / d, hi / d)
}
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    k = $1 "," $2 "," $3
    if (!(k in runs)) order[++np] = k
    runs[k]++
    crashed[k] += $col["crashed"]
    for (f in col) if ($col[f] ~ /^[0-9.]+$/) v[k, f] = v[k, f] " " $col[f]
}
END {
    print "protocol,maxmemfree,config,runs,req_per_s,req_per_s_min,req_per_s_max,rss_peak_mb,rss_peak_mb_min,rss_peak_mb_max,rss_idle_mb,rss_idle_mb_min,rss_idle_mb_max,rss_sampled_max_mb,rss_start_mb,cpu_us_per_req,cpu_us_per_req_min,cpu_us_per_req_max,sys_us_per_req,minflt_per_req,crashed,perf_faults_per_req,perf_mmap_per_req,perf_munmap_per_req,perf_futex_per_req,perf_tlb_flush_per_req"
    for (i = 1; i <= np; i++) {
        k = order[i]
        printf "%s,%d", k, runs[k]
        printf ",%s,%s,%s", spread(v[k, "req_per_s"], 1, "%.0f"), spread(v[k, "rss_peak_kb"], 1024, "%.1f"),
            spread(v[k, "rss_idle_kb"], 1024, "%.1f")
        printf ",%.1f,%.1f", median(v[k, "rss_sampled_max_kb"]) / 1024, median(v[k, "rss_start_kb"]) / 1024
        printf ",%s", spread(v[k, "cpu_us_per_req"], 1, "%.1f")
        printf ",%.1f,%.2f,%d", median(v[k, "sys_us_per_req"]), median(v[k, "minflt_per_req"]), crashed[k]
        n = split("perf_faults_per_req perf_mmap_per_req perf_munmap_per_req perf_futex_per_req perf_tlb_flush_per_req", pf, " ")
        for (j = 1; j <= n; j++) printf ",%s", (v[k, pf[j]] == "" ? "-" : sprintf("%.2f", median(v[k, pf[j]])))
        print ""
    }
}' "$CSV" >"$SUMMARY"

# ratios: "protocol maxmemfree config req/s peak idle cpu", each reap
# configuration (reap, reap-nomod) / stock (the first configuration that is
# not a reap one stands for stock).
ratios() {
    awk -F, -v base="$(for c in $CONFIGS; do case $c in reap*) ;; *) echo "$c"; break ;; esac; done)" '
    NR == 1 { next }
    { k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
      if ($3 ~ /^reap/ && !($3 in isreap)) { isreap[$3] = 1; reaps[++nr] = $3 }
      rps[k, $3] = $5; peak[k, $3] = $8; idle[k, $3] = $11; cpu[k, $3] = $16 }
    function r(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
    END { for (i = 1; i <= n; i++) for (j = 1; j <= nr; j++) { k = order[i]; c = reaps[j]
              if (!((k, c) in rps) || !((k, base) in rps)) continue
              print k, c, r(rps[k, c], rps[k, base]), r(peak[k, c], peak[k, base]),
                  r(idle[k, c], idle[k, base]), r(cpu[k, c], cpu[k, base]) } }' "$SUMMARY"
}

# ---- Markdown --------------------------------------------------------------------

MD=$BASE.md
{
    echo "# HTTP/2 load test of httpd, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    lt_machine "$(h2load --version | head -1)"
    echo "Load average at the start: $LOAD_START (a shared machine: compare configurations within one run)."
    echo
    echo "Mode: $([ "$QUICK" = 1 ] && echo quick || echo full); $NRUNS runs in $((ELAPSED / 60)) min $((ELAPSED % 60)) s;" \
        "event MPM, $SERVERS children x $THREADS threads, mod_http2, and mod_reap but in reap-nomod; a 4 KiB static file;" \
        "$BURSTS bursts of \`h2load -n $REQUESTS -c $CLIENTS -m $STREAMS${RPS:+ --rps $RPS}\` a run; $REPS repeat(s), configurations in alternation$([ "$PIN" = 1 ] && echo "; pinned: apache2 on CPU 0, h2load on CPU 1")."
    echo "Figures are medians over the repeats, with the spread (min-max) in brackets."
    echo "RSS is summed over every apache2 process (the parent and the children): peak is the sum of their VmHWM after the bursts,"
    echo "idle their VmRSS $IDLE s after the last burst. req/s is all the bursts' requests over h2load's time for them;"
    echo "CPU µs/req is the processes' user + system time over the bursts, per request; faults/req their minor page faults."
    for p in $PROTOCOLS; do
        echo
        echo "## $p"
        echo
        echo "| MaxMemFree | config | req/s (min-max) | peak RSS MB (min-max) | idle RSS MB (min-max) | CPU µs/req (min-max) | faults/req |"
        echo "|---|---|---:|---:|---:|---:|---:|"
        awk -F, -v p="$p" 'NR > 1 && $1 == p {
            printf "| %s | %s | %s (%s-%s) | %s (%s-%s) | %s (%s-%s) | %s (%s-%s) | %s |\n",
                $2, $3, $5, $6, $7, $8, $9, $10, $11, $12, $13, $16, $17, $18, $20 }' "$SUMMARY"
    done
    echo
    echo "## reap ÷ stock (ratios of the medians)"
    echo
    echo "| protocol | MaxMemFree | config | req/s | peak RSS | idle RSS | CPU µs/req |"
    echo "|---|---|---|---:|---:|---:|---:|"
    ratios | awk '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }'
    if [ "$PERF" = stat ]; then
        echo
        echo "## perf stat over the bursts, per request (medians)"
        echo
        echo "| protocol | MaxMemFree | config | page faults | mmap | munmap | futex | TLB flushes |"
        echo "|---|---|---|---:|---:|---:|---:|---:|"
        awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $22, $23, $24, $25, $26 }' "$SUMMARY"
    fi
    [ "$PERF" = record ] && { echo; echo "Top symbols of each run (perf report --no-children): \`$(basename "$PERFDIR")/\`."; }
    echo
    echo "Raw runs: \`$(basename "$CSV")\`; summary: \`$(basename "$SUMMARY")\`; RSS over time: \`$(basename "$RSSCSV")\`, \`$(basename "$BASE")-rss.png\`."
} >"$MD"
lt_compare "$SUMMARY" "$MD"

# ---- plot: RSS over time ---------------------------------------------------------

# One panel per protocol and MaxMemFree, one line per run, a colour per
# configuration; t = 0 when the first burst starts.
plot_rss() {
    local png=$BASE-rss.png gp=$BASE-rss.gp p m c r lt sep q='\"' sq="'"
    {
        lt_gnuplot_page "$png" $(($(echo $PROTOCOLS | wc -w) * $(echo $MAXMEMFREE | wc -w)))
        echo "set xlabel 'seconds from the first burst (idle RSS read at the last point)'; set ylabel 'RSS of all apache2 processes, MB'"
        echo "set yrange [0:*]; set key bottom right"
        for p in $PROTOCOLS; do
            for m in $MAXMEMFREE; do
                echo "set title '$p, MaxMemFree $m: $BURSTS x h2load -n $REQUESTS -c $CLIENTS -m $STREAMS${RPS:+ --rps $RPS}'"
                printf 'plot '
                sep='' lt=0
                for c in $CONFIGS; do
                    lt=$((lt + 1))
                    for ((r = 1; r <= REPS; r++)); do
                        # gnuplot runs: awk -F, '$1=="<p>" && $2=="<m>" && $3=="<c>" && $4==<r>' <rss.csv>
                        printf '%s"< awk -F, %s$1==%s%s%s && $2==%s%s%s && $3==%s%s%s && $4==%s%s %s" using 5:6 with lines lt %d %s' \
                            "$sep" "$sq" "$q" "$p" "$q" "$q" "$m" "$q" "$q" "$c" "$q" "$r" "$sq" "$RSSCSV" "$lt" \
                            "$([ "$r" = 1 ] && echo "title '$c'" || echo notitle)"
                        sep=', '
                    done
                done
                echo
            done
        done
        echo "unset multiplot"
    } >"$gp"
    gnuplot "$gp" 2>"$WORK/gnuplot.err" || fail "gnuplot failed on $gp: $(head -3 "$WORK/gnuplot.err")"
    [ -s "$png" ] || fail "plot $png was not written"
}
if command -v gnuplot >/dev/null 2>&1; then
    plot_rss
else
    fail "gnuplot is missing (package gnuplot-nox): no plot"
fi

# ---- report ----------------------------------------------------------------------

say
say "done: $NRUNS runs in $((ELAPSED / 60)) min $((ELAPSED % 60)) s (estimate was ~$((EST_S / 60)) min $((EST_S % 60)) s)"
say "reap / stock, ratios of the medians (protocol, MaxMemFree, config: req/s, peak RSS, idle RSS, CPU per request):"
ratios | awk '{ printf "  %-3s MaxMemFree %-7s %-10s req/s %s  peak %s  idle %s  CPU %s\n", $1, $2, $3, $4, $5, $6, $7 }'
[ -z "$COMPARE" ] || printf '%s\n' "$COMPARE"
say "results: $CSV"
say "         $SUMMARY"
say "         $MD"
say "         $BASE-rss.png ($RSSCSV)"
[ "$PERF" = record ] && say "         $PERFDIR/"
[ "$(wc -l <"$CSV")" -gt 1 ] || fail "no run produced a CSV row"
if [ -n "$MAX_IDLE_RATIO" ]; then
    checked=0
    while read -r p m c _ _ idle _; do
        checked=$((checked + 1))
        if awk -v r="$idle" -v max="$MAX_IDLE_RATIO" 'BEGIN { exit !(r == "-" || r > max) }'; then
            fail "$p MaxMemFree $m: idle RSS $c / stock is $idle, above $MAX_IDLE_RATIO"
        else
            say "$p MaxMemFree $m: idle RSS $c / stock $idle, within $MAX_IDLE_RATIO"
        fi
    done < <(ratios)
    [ "$checked" -gt 0 ] || fail "--max-idle-ratio: no point ran both reap and stock"
fi
lt_exit_if_failed
say "all checks passed (every request succeeded, no crash, the error logs clean)"
exit 0
