#!/bin/bash
# soak.sh - the soak test: Debian's apache2 on the reap-backed APR with
# mod_reap and mod_bc, under wrk for a fixed time with a mix of valid bc
# programs and hostile ones, while a side client sends truncated requests.
#
#   loadtest/soak/soak.sh [--duration SEC] [--connections N] [--out DIR] BUILD_DIR
#
# Kinds of request (loadtest/soak/soak.lua sends them at random, weighted):
#   valid programs (GNU bc's output, computed now, is the expected answer),
#   random bytes, a syntax error, 10^(10^9), scale=10^9 then 1/3, an endless
#   loop, endless recursion, an endless print, a body past BcMaxProgramSize;
#   and, from the side client, requests cut off in the headers, bodies
#   shorter than their Content-Length, and broken chunked bodies.
#
# It passes when no child process crashed, every valid request got the
# right answer, every hostile one its own status and X-Bc-Limit header
# (valid programs go to /bc-valid, hostile ones to /bc, which differ only
# in the time limit), no request took longer than 33 s, the server still
# answers afterwards, and the children's RSS in the last third of the run
# is no higher than in the second third (a median over samples every
# 0.5 s, with 5% or the second third's interquartile range for noise,
# whichever is more): no leak.  It prints the counts, and writes
# them with the RSS samples to DIR [loadtest/results].
# Exit status: 0 pass, 1 fail, 2 bad usage.

set -uo pipefail

duration=300
conns=8
out=
while [ $# -gt 1 ]; do
    case $1 in
    --duration) duration=$2; shift 2 ;;
    --connections) conns=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { sed -n '6p' "$0" | sed 's/^# *//' >&2; exit 2; }
MR_BUILDDIR=$(cd "$1" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${out:-$top/loadtest/results}
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
report=$out/soak-$stamp.txt

mr_env_apr=${REAP_APR_DIR:-}
[ -f "$MR_BUILDDIR/tests/httpd/mod_reap_paths.sh" ] &&
    . "$MR_BUILDDIR/tests/httpd/mod_reap_paths.sh"
REAP_APR_DIR=${mr_env_apr:-${REAP_APR_DIR:-$MR_BUILDDIR/install/apr}}
MR_APR_LIB=$REAP_APR_DIR/lib
. "$top/tests/httpd/httpd_lib.sh"
[ -e "$MR_APR_LIB/libapr-1.so.0" ] || mr_fatal "no reap-backed APR in $MR_APR_LIB"
command -v wrk >/dev/null || mr_fatal "no wrk (Debian package wrk)"
GNU_BC=${GNU_BC:-/usr/bin/bc}
[ -x "$GNU_BC" ] || mr_fatal "no GNU bc (Debian package bc)"

TIME_LIMIT=1
MR_NEED="$MR_MOD_REAP $MR_MOD_BC"
MR_SITE=soak_site
MR_SERVERS=2
MR_THREADS=$((conns > 8 ? conns : 8))
soak_site() {
    cat <<EOF
LoadModule reap_module $MR_MOD_REAP
LoadModule bc_module $MR_MOD_BC
Timeout 5
LogFormat "%m %U %>s %D" soak
CustomLog "$MR_ROOT/logs/access.log" soak
<Location /bc>
    SetHandler bc
    BcTimeLimit $TIME_LIMIT
    BcMaxOutput 64K
    BcMaxProgramSize 64K
    BcMaxDepth 2000
    BcMemoryLimit 16M
</Location>
<Location /reap-status>
    SetHandler reap-status
</Location>
# The same limits, but time: a valid program may wait for the CPU behind
# the hostile ones on a loaded machine, and must not be taken for one.
<Location /bc-valid>
    SetHandler bc
    BcTimeLimit 30
    BcMaxOutput 64K
    BcMaxProgramSize 64K
    BcMaxDepth 2000
    BcMemoryLimit 16M
</Location>
EOF
}

# ---- the programs ---------------------------------------------------------------------
work=$(mktemp -d /tmp/reap-soak.XXXXXX)
trap 'rm -rf "$work"; mr_stop' EXIT
manifest=$work/manifest
: >"$manifest"

# kind <name> <weight> <statuses> <limit> <body file>
kind() {
    echo "$1 /bc $2 $3 $4 $5 -" >>"$manifest"
}

# valid <name> <weight> <program file>: 200 and GNU bc's output.
valid() {
    "$GNU_BC" -q <"$3" >"$work/$1.want" 2>/dev/null ||
        mr_fatal "GNU bc failed on $3"
    echo "$1 /bc-valid $2 200 - $3 $work/$1.want" >>"$manifest"
}

program() { # program <name> <text>: a program file in $work
    printf '%s\n' "$2" >"$work/$1.bc"
    echo "$work/$1.bc"
}

valid prime 15 "$top/loadtest/bc/prime.bc"
valid fact 10 "$top/loadtest/bc/fact.bc"
valid fib 10 "$top/loadtest/bc/fib.bc"
valid power 15 "$(program power '2^1000; 3^-2; scale=30; 3^-2')"
valid sqrt 10 "$(program sqrt 'scale=200; sqrt(2); sqrt(10^50+1)')"
valid funcs 10 "$(program funcs 'define g(n) { auto i, s; for (i = 1; i <= n; i++) s += i * i; return s }
g(500); obase=16; g(100); obase=10; ibase=16; FF*2')"
for i in 1 2 3 4; do
    head -c 2000 /dev/urandom >"$work/random$i.bin"
    kind random$i 2 200,400,413,422,503,507,508 any "$work/random$i.bin"
done
kind syntax 5 400 - "$(program syntax '1 + * 2
x = (3')"
kind huge_power 2 503,507 any "$(program huge_power '10^(10^9)')"
kind huge_scale 2 503,507 any "$(program huge_scale 'scale=10^9; 1/3')"
kind endless_loop 2 503 time "$(program endless_loop 'while (1) { }')"
kind deep_recursion 5 508 depth "$(program deep_recursion 'define f(x) { return f(x + 1) }
f(1)')"
kind endless_print 5 422 output "$(program endless_print 'while (1) print "xxxxxxxxxx"')"
yes '1+1' | head -c 100000 >"$work/oversized.bc"
kind oversized 5 413 program-size "$work/oversized.bc"

# ---- the side client: truncated requests -------------------------------------------
truncated_client() {
    cat <<'EOF'
import socket, sys, time
port, count_file = int(sys.argv[1]), sys.argv[2]
cuts = [
    b"POST /bc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le",
    b"POST /bc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n2^10",
    b"POST /bc HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n2^",
    b"POST /bc HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n2^10\n\r\n",
    b"GET /bc?e=2%5E",
]
sent = 0
while True:
    for cut in cuts:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(cut)
            sent += 1
        except OSError:
            pass
        with open(count_file, "w") as f:
            f.write(str(sent))
        time.sleep(0.05)
EOF
}

# ---- the RSS sampler --------------------------------------------------------------------
sample_rss() {
    t0=$(date +%s.%N)
    while :; do
        kb=0
        for c in $(mr_children); do
            r=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$c/status" 2>/dev/null)
            kb=$((kb + ${r:-0}))
        done
        printf '%.1f %d\n' "$(echo "$(date +%s.%N) - $t0" | bc)" "$kb"
        sleep 0.5
    done
}

# Every 5 s, mod_reap's figures summed over the children: the footprint of
# all live pools, and the base allocator's bytes in use, held and cached.
# They tell a leak (the pools' footprint grows) from an allocator keeping
# memory (held grows, footprint does not).
sample_reap() {
    t0=$(date +%s)
    while :; do
        curl -s "http://127.0.0.1:$MR_PORT/reap-status" | grep '"totals"' |
            sed -n 's/.*"process": {[^}]*"footprint": \([0-9]*\).*"base": {"in_use": \([0-9]*\), "held": \([0-9]*\),[^}]*"cached": \([0-9]*\).*/\1 \2 \3 \4/p' |
            while read -r fp used held cached; do
                echo "$(( $(date +%s) - t0 )) $fp $used $held $cached"
            done
        sleep 5
    done
}

# ---- the run --------------------------------------------------------------------------
mr_start
kids_before=$(mr_children)
echo "soak: apache2 on 127.0.0.1:$MR_PORT (2 children x $MR_THREADS threads), wrk $conns connections, ${duration}s"
sample_rss >"$work/rss" &
sampler=$!
sample_reap >"$work/reap" &
reap_sampler=$!
truncated_client >"$work/truncated.py"
python3 "$work/truncated.py" "$MR_PORT" "$work/truncated.count" &
side=$!
# one connection per wrk thread, so soak.lua pairs requests and responses
wrk -t "$conns" -c "$conns" -d "${duration}s" --timeout 10s -s "$here/soak.lua" \
    "http://127.0.0.1:$MR_PORT/" -- "$manifest" "$$" >"$work/wrk.out" 2>&1
wrk_status=$?
kill "$sampler" "$reap_sampler" "$side" 2>/dev/null
wait 2>/dev/null

# ---- verdict ----------------------------------------------------------------------------
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

[ $wrk_status -eq 0 ] || { fail "wrk exited with $wrk_status:"; cat "$work/wrk.out"; }
grep -q '^TOTAL' "$work/wrk.out" || fail "no summary from wrk: $(tail -5 "$work/wrk.out")"
read -r _ requests secs max_us sock_errors timeouts _ p99_us < <(grep '^TOTAL' "$work/wrk.out")
: "${requests:=0}" "${secs:=0}" "${max_us:=0}" "${sock_errors:=0}" "${timeouts:=0}" "${p99_us:=0}"

crashes=$(grep -c 'exit signal\|Segmentation fault\|child pid [0-9]* exit' "$MR_ROOT/logs/error.log")
kids_after=$(mr_children)
[ "$crashes" -eq 0 ] || fail "$crashes crash(es) in the error log: $(grep 'exit signal' "$MR_ROOT/logs/error.log" | head -3)"
[ "$kids_before" = "$kids_after" ] || fail "children were '$kids_before', now '$kids_after'"
[ "$sock_errors" -eq 0 ] && [ "$timeouts" -eq 0 ] ||
    fail "$sock_errors socket errors and $timeouts timeouts"
limit_us=33000000
[ "$max_us" -le "$limit_us" ] || fail "a request took ${max_us} us (the longest time limit is 30 s)"

{
    printf '%-16s %9s %9s %9s  %s\n' kind sent passed failed "first failure"
    grep '^KIND' "$work/wrk.out" | sort -k2 | while read -r _ k s p f first; do
        printf '%-16s %9d %9d %9d  %s\n' "$k" "$s" "$p" "$f" "$first"
    done
} >"$work/kinds"
bad_kinds=$(grep '^KIND' "$work/wrk.out" | awk '$5 > 0' | wc -l)
[ "$bad_kinds" -eq 0 ] || fail "$bad_kinds kind(s) got a wrong status or answer"
wrong=$(grep '^KIND' "$work/wrk.out" | awk '$2 !~ /^random/ && $5 > 0 { n += $5 } END { print n + 0 }')

# the server still answers, correctly
after=$(curl -s -H 'Content-Type: text/plain' --data-binary "@$top/loadtest/bc/prime.bc" \
    "http://127.0.0.1:$MR_PORT/bc")
[ "$after" = "$(cat "$work/prime.want")" ] || fail "after the run /bc answered '$after'"

# RSS: medians of the second and last thirds of the samples
n=$(wc -l <"$work/rss")
third=$((n / 3))
# quartiles FROM TO: lower quartile, median and upper quartile of the RSS
# samples FROM to TO (sed line addresses)
quartiles() {
    sed -n "$1,$2p" "$work/rss" | awk '{ print $2 }' | sort -n |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 3) / 4)], v[int((NR + 1) / 2)], v[int((3 * NR + 3) / 4)]; else print 0, 0, 0 }'
}
read -r q1 rss2 q3 <<EOF
$(quartiles $((third + 1)) $((2 * third)))
EOF
read -r _ rss3 _ <<EOF
$(quartiles $((2 * third + 1)) '$')
EOF
rss_max=$(awk '{ print $2 }' "$work/rss" | sort -n | tail -1)
[ "$n" -ge 6 ] || fail "only $n RSS samples"
# Requests in flight move the RSS by megabytes (bc programs run up to their
# time limit, holding their memory): growth must pass both 5% and the
# interquartile range of the second third's samples.  A leak raises the
# whole last third; one slow request there raises only a few samples.
iqr=$((q3 - q1))
slack=$((rss2 / 20 > iqr ? rss2 / 20 : iqr))
[ "$rss3" -le $((rss2 + slack)) ] || fail "RSS grew: median $rss2 kB in the second third, $rss3 kB in the last (noise allowed: $slack kB)"
hostile=$(grep '^KIND' "$work/wrk.out" | awk '$2 !~ /^(prime|fact|fib|power|sqrt|funcs)$/ { n += $3 } END { print n + 0 }')
truncated_n=$(cat "$work/truncated.count" 2>/dev/null || echo 0)

{
    echo "soak test $stamp: ${duration} s, wrk $conns connections, apache2 worker 2 x $MR_THREADS threads, reap-backed APR"
    echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
    printf 'requests %s in %s s (%.0f/s), p99 %.1f ms, max %.1f ms, socket errors %s, timeouts %s\n' \
        "$requests" "$secs" "$(echo "$requests / ($secs + 0.001)" | bc -l)" \
        "$(echo "$p99_us / 1000" | bc -l)" "$(echo "$max_us / 1000" | bc -l)" "$sock_errors" "$timeouts"
    echo "hostile requests through wrk: $hostile; truncated requests from the side client: $truncated_n"
    echo "crashes: $crashes; wrong answers to valid programs: $wrong"
    echo "children's RSS (sum): median $rss2 kB in the second third, $rss3 kB in the last third, max $rss_max kB ($n samples)"
    awk 'NR == 1 || NR % 4 == 0 { printf "  at %4d s: pools %6.1f MB, base in use %6.1f MB, held %6.1f MB, cached %5.1f MB\n", $1, $2 / 1048576, $3 / 1048576, $4 / 1048576, $5 / 1048576 }' "$work/reap"
    cat "$work/kinds"
    echo "verdict: $([ $failed -eq 0 ] && echo PASS || echo "FAIL ($failed)")"
} | tee "$report"
cp "$work/rss" "$out/soak-$stamp.rss"
cp "$work/reap" "$out/soak-$stamp.reap"
[ $failed -eq 0 ]
