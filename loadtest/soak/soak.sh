#!/bin/bash
# soak.sh - the soak test: Debian's apache2 on the reap-backed APR with
# mod_reap and mod_bc, under wrk in phases of load with a mix of valid bc
# programs and hostile ones, while a side client sends truncated requests;
# between phases, once no request is in flight, the server's memory is read.
#
#   loadtest/soak/soak.sh [--duration SEC] [--phases N] [--connections N] [--out DIR] BUILD_DIR
#
# Kinds of request (loadtest/soak/soak.lua sends them at random, weighted):
#   valid programs (GNU bc's output, computed now, is the expected answer),
#   random bytes, a syntax error, 10^(10^9), scale=10^9 then 1/3, an endless
#   loop, endless recursion, an endless print, a body past BcMaxProgramSize;
#   and, from the side client, requests cut off in the headers, bodies
#   shorter than their Content-Length, and broken chunked bodies.
#
# It passes when
#   - no child process crashed, the same children serve from start to end,
#     and the error log holds nothing above notice;
#   - every answer is right: a valid program's is 200 with GNU bc's output,
#     a hostile one's its own status and X-Bc-Limit header (valid programs
#     go to /bc-valid, hostile ones to /bc, which differ only in the time
#     limit, none for valid programs; the side client uses /bc-cut);
#   - every request wrk sent is accounted for: answered, or in flight when
#     its phase ended (at most one per connection), none lost with a broken
#     connection; and the server's access log holds exactly those requests;
#   - memory does not grow: in the quiet gap after each phase (no request
#     in flight, every child's figures refreshed by a status request), the
#     pools' footprint summed over the children and the base allocator's
#     bytes in use, read after the children's idle trim, are, after the
#     last phase, at most what they were after the first (the warm-up)
#     plus 10% or 2 MiB, whichever is more.  A leak
#     grows with the requests served; the phases after the first serve
#     thousands.  RSS is printed beside them but not judged: the base
#     allocator gives pages back (madvise), so RSS follows the load;
#   - the server still answers correctly afterwards.
# Nothing is timed: latencies are printed, never judged.  It prints the
# counts and writes them with the quiet-gap figures to DIR
# [loadtest/results].  Exit status: 0 pass, 1 fail, 2 bad usage.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -uo pipefail

duration=300
phases=5
conns=8
out=
while [ $# -gt 1 ]; do
    case $1 in
    --duration) duration=$2; shift 2 ;;
    --phases) phases=$2; shift 2 ;;
    --connections) conns=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { sed -n '7p' "$0" | sed 's/^# *//' >&2; exit 2; }
for n in "$duration" "$phases" "$conns"; do
    case $n in
    '' | *[!0-9]* | 0*) echo "soak.sh: --duration, --phases and --connections take whole numbers above 0 ('$n')" >&2; exit 2 ;;
    esac
done
[ "$phases" -ge 2 ] || { echo "soak.sh: at least 2 phases (the first is the baseline)" >&2; exit 2; }
phase_s=$(((duration + phases - 1) / phases))
MR_BUILDDIR=$(cd "$1" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${out:-$top/loadtest/results}
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
report=$out/soak-$stamp.txt

MR_APR_LIB=
. "$top/tests/httpd/httpd_lib.sh"
MR_APR_LIB=$(mr_reap_apr_lib)
[ -e "$MR_APR_LIB/libapr-1.so.0" ] || mr_fatal "no reap-backed APR in $MR_APR_LIB"
command -v wrk >/dev/null || mr_fatal "no wrk (Debian package wrk)"
GNU_BC=${GNU_BC:-/usr/bin/bc}
[ -x "$GNU_BC" ] || mr_fatal "no GNU bc (Debian package bc)"

TIME_LIMIT=1
# A child that has made no allocator call for IDLE_MS gives back what its
# caches hold (libreap's idle trim); each quiet gap waits past it.
IDLE_MS=500
MR_NEED="$MR_MOD_REAP $MR_MOD_BC"
MR_SITE=soak_site
MR_SERVERS=2
MR_THREADS=$((conns > 8 ? conns : 8))
# bc_location <path> <time limit>: a bc handler with the soak's limits.
bc_location() {
    cat <<EOF
<Location $1>
    SetHandler bc
    BcTimeLimit $2
    BcMaxOutput 64K
    BcMaxProgramSize 64K
    BcMaxDepth 2000
    BcMemoryLimit 16M
</Location>
EOF
}
# /bc for hostile programs, /bc-cut for the side client (so its requests
# stay apart from wrk's in the access log), and /bc-valid with no time
# limit (0): a valid program may wait for the CPU behind the hostile ones
# on a loaded machine, and its answer must not depend on how long it took.
soak_site() {
    cat <<EOF
LoadModule reap_module $MR_MOD_REAP
LoadModule bc_module $MR_MOD_BC
ReapIdleRelease ${IDLE_MS}ms
Timeout 5
LogFormat "%m %U %>s %D" soak
CustomLog "$MR_ROOT/logs/access.log" soak
<Location /reap-status>
    SetHandler reap-status
</Location>
EOF
    bc_location /bc $TIME_LIMIT
    bc_location /bc-cut $TIME_LIMIT
    bc_location /bc-valid 0
}

# ---- the programs ---------------------------------------------------------------------
work=$(mktemp -d /tmp/reap-soak.XXXXXX)
cleanup_push "rm -rf '$work'"
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
# It runs until its stop file exists, and adds what it sent to its count.
truncated_client() {
    cat <<'EOF'
import os, socket, sys, time
port, count_file, stop_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cuts = [
    b"POST /bc-cut HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le",
    b"POST /bc-cut HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n2^10",
    b"POST /bc-cut HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n2^",
    b"POST /bc-cut HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n2^10\n\r\n",
    b"GET /bc-cut?e=2%5E",
]
sent = int(open(count_file).read()) if os.path.exists(count_file) else 0
while not os.path.exists(stop_file):
    for cut in cuts:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(cut)
            sent += 1
        except OSError:
            pass
        time.sleep(0.05)
    with open(count_file, "w") as f:
        f.write(str(sent))
EOF
}

# side_stop: end the side client, if it runs, and wait for it.
side=
side_stop() {
    [ -n "$side" ] || return 0
    touch "$work/side.stop"
    kill "$side" 2>/dev/null
    wait "$side" 2>/dev/null
    side=
}

# ---- the quiet gaps -----------------------------------------------------------------
# wait_quiet: until no request is in flight (mod_status counts the one
# asking as busy).  It waits for a state, not for a time; after 1200 polls
# something is stuck, and it says so.
wait_quiet() {
    i=0
    while [ $i -lt 1200 ]; do
        busy=$(curl -s "http://127.0.0.1:$MR_PORT/server-status?auto" |
            sed -n 's/^BusyWorkers: //p')
        [ "$busy" = 1 ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    mr_say "# still $busy busy worker(s) after the load stopped"
    return 1
}

# sample_memory <phase>: the line "<phase> <pools' footprint> <base in_use>
# <held> <cached> <allocators' free lists> <RSS kB> <idle trims so far>",
# summed over the children, into $work/memory, and the status answer into
# $work/reap-status.<phase>.
# A child refreshes its figures when it answers /reap-status, so they come
# from an answer given once every child has answered one in this gap: all
# taken while the server is quiet.
sample_memory() {
    # The figures are taken in one state every time: after each child's
    # idle trim, which empties the base allocator's thread caches and the
    # APR allocators' free lists.  Both count as bytes in use, but neither
    # grows with the requests served (MaxMemFree bounds the lists), and
    # whether a gap found them full or empty depended on when its status
    # requests landed: in use read 4.3-8.0 MB in the gaps of one run.  A
    # status request then refills them only with what it allocates itself.
    sleep "$(awk -v ms="$IDLE_MS" 'BEGIN { print 4 * ms / 1000 }')"
    want=$(mr_children | wc -w)
    seen=
    i=0
    while [ $i -lt 200 ] && [ "$(echo $seen | wc -w)" -lt "$want" ]; do
        body=$(curl -s -H 'Connection: close' "http://127.0.0.1:$MR_PORT/reap-status")
        pid=$(printf '%s\n' "$body" | sed -n '1s/.*"pid": \([0-9]*\),.*/\1/p')
        case " $seen " in *" $pid "*) ;; *) seen="$seen $pid" ;; esac
        i=$((i + 1))
    done
    [ "$(echo $seen | wc -w)" -ge "$want" ] ||
        { mr_say "# only children$seen answered /reap-status"; return 1; }
    kb=0
    for c in $(mr_children); do
        r=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$c/status" 2>/dev/null)
        kb=$((kb + ${r:-0}))
    done
    figures=$(printf '%s\n' "$body" | grep '"totals"' |
        sed -n 's/.*"process": {[^}]*"footprint": \([0-9]*\).*"base": {"in_use": \([0-9]*\), "held": \([0-9]*\),[^}]*"cached": \([0-9]*\).*"allocator_lists": {"bytes": \([0-9]*\).*/\1 \2 \3 \4 \5/p')
    printf '%s\n' "$body" >"$work/reap-status.$1"
    [ -n "$figures" ] || { mr_say "# no figures in /reap-status: $(printf '%s\n' "$body" | head -3)"; return 1; }
    trims=$(printf '%s\n' "$body" | grep '"totals"' | sed -n 's/.*"release_trims": *\([0-9]*\).*/\1/p')
    echo "$1 $figures $kb ${trims:-0}" >>"$work/memory"
}

# ---- the run --------------------------------------------------------------------------
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

mr_start
kids_before=$(mr_children)
echo "soak: apache2 on 127.0.0.1:$MR_PORT (2 children x $MR_THREADS threads), wrk $conns connections, $phases phases of ${phase_s}s"
truncated_client >"$work/truncated.py"
cleanup_push side_stop
: >"$work/memory"
p=1
while [ $p -le "$phases" ]; do
    rm -f "$work/side.stop"
    python3 "$work/truncated.py" "$MR_PORT" "$work/truncated.count" "$work/side.stop" &
    side=$!
    # One connection per wrk thread, so soak.lua pairs requests and
    # responses.  wrk's --timeout only counts slow answers (printed).
    wrk -t "$conns" -c "$conns" -d "${phase_s}s" --timeout 60s -s "$here/soak.lua" \
        "http://127.0.0.1:$MR_PORT/" -- "$manifest" "$(($$ * 16 + p))" >"$work/wrk.$p" 2>&1
    status=$?
    side_stop
    [ $status -eq 0 ] || fail "phase $p: wrk exited with $status: $(tail -5 "$work/wrk.$p")"
    grep -q '^ACCOUNT' "$work/wrk.$p" || fail "phase $p: no summary from wrk: $(tail -5 "$work/wrk.$p")"
    if wait_quiet; then
        sample_memory "$p" || fail "phase $p: no memory figures in the quiet gap"
    else
        fail "phase $p: the server did not go quiet after the load"
    fi
    echo "  phase $p of $phases: $(awk '/^ACCOUNT/ { print $2 " sent, " $3 " answered" }' "$work/wrk.$p");" \
        "quiet: $(awk -v p="$p" '$1 == p { printf "pools %.1f MB, base in use %.1f MB (allocator free lists %.1f MB), RSS %.1f MB", $2 / 1048576, $3 / 1048576, $6 / 1048576, $7 / 1024 }' "$work/memory")"
    p=$((p + 1))
done
cat "$work"/wrk.[0-9]* >"$work/wrk.out"

# ---- verdict ----------------------------------------------------------------------------
# crashes and children
crashes=$(grep -c 'exit signal\|Segmentation fault\|child pid [0-9]* exit' "$MR_ROOT/logs/error.log")
kids_after=$(mr_children)
[ "$crashes" -eq 0 ] || fail "$crashes crash(es) in the error log: $(grep 'exit signal' "$MR_ROOT/logs/error.log" | head -3)"
[ "$kids_before" = "$kids_after" ] || fail "children were '$kids_before', now '$kids_after'"

# every answer right
awk '/^KIND/ { s[$2] += $3; ok[$2] += $4; bad[$2] += $5; if (!($2 in first) || first[$2] == "-") first[$2] = $6 }
     END { for (k in s) printf "%-16s %9d %9d %9d  %s\n", k, s[k], ok[k], bad[k], first[k] }' \
    "$work/wrk.out" | sort >"$work/kinds"
wrong=$(awk '{ n += $4 } END { print n + 0 }' "$work/kinds")
[ "$wrong" -eq 0 ] || fail "$wrong answer(s) with a wrong status, header or body: $(awk '$4 > 0 { printf "%s (%s) ", $1, $5 }' "$work/kinds")"

# every request accounted for
read -r sent answered lost in_flight < <(awk '/^ACCOUNT/ { s += $2; a += $3; l += $4; f += $5 }
    END { print s + 0, a + 0, l + 0, f + 0 }' "$work/wrk.out")
logged=$(awk '$2 == "/bc" || $2 == "/bc-valid"' "$MR_ROOT/logs/access.log" | wc -l)
[ "$sent" -gt 0 ] || fail "wrk sent nothing"
[ "$sent" -eq $((answered + lost + in_flight)) ] ||
    fail "soak.lua's account does not add up: $sent sent, $answered answered, $lost lost, $in_flight in flight"
[ "$lost" -eq 0 ] || fail "$lost request(s) lost: their connection broke before the answer"
[ "$in_flight" -le $((phases * conns)) ] ||
    fail "$in_flight requests in flight at the phases' ends, more than one per connection"
[ "$logged" -eq $((answered + in_flight)) ] ||
    fail "the server logged $logged of wrk's requests, not the $answered answered and $in_flight in flight"

# the server still answers, correctly
after=$(curl -s -H 'Content-Type: text/plain' --data-binary "@$top/loadtest/bc/prime.bc" \
    "http://127.0.0.1:$MR_PORT/bc")
[ "$after" = "$(cat "$work/prime.want")" ] || fail "after the run /bc answered '$after'"

# Memory, from the quiet gaps.  grown <what> <column>: fails when the
# figure after the last phase passes the one after the first by more than
# 10% or 2 MiB, whichever is more.
# <column> is an awk expression over a line of $work/memory.
grown() {
    read -r first last < <(awk 'NR == 1 { f = '"$2"' } { l = '"$2"' } END { print f + 0, l + 0 }' "$work/memory")
    slack=$((first / 10 > 2097152 ? first / 10 : 2097152))
    [ "$last" -le $((first + slack)) ] ||
        fail "$1 grew from $first bytes after phase 1 to $last after phase $phases (allowed: $slack more)"
}
if [ "$(wc -l <"$work/memory")" -eq "$phases" ]; then
    grown "the pools' footprint" '$2'
    grown "the base allocator's bytes in use" '$3'
else
    fail "memory was read in $(wc -l <"$work/memory") of $phases quiet gaps"
fi

# the error log, the server stopped: nothing above notice (at LogLevel
# warn, neither the hostile programs nor the truncated requests log)
mr_stop_server
mr_log_clean || fail "the error log holds lines above notice"

hostile=$(awk '$1 !~ /^(prime|fact|fib|power|sqrt|funcs)$/ { n += $2 } END { print n + 0 }' "$work/kinds")
truncated_n=$(cat "$work/truncated.count" 2>/dev/null || echo 0)
{
    echo "soak test $stamp: ${duration} s in $phases phases, wrk $conns connections, apache2 worker 2 x $MR_THREADS threads, reap-backed APR"
    echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
    awk '/^TOTAL/ { n += $2; s += $3; if ($4 > m) m = $4; e += $5; t += $6 }
        END { printf "requests %d in %.0f s (%.0f/s), longest %.1f ms, socket errors %d, wrk timeouts (60 s) %d: printed, not judged\n", n, s, n / (s + 0.001), m / 1000, e, t }' "$work/wrk.out"
    echo "requests sent $sent: answered $answered, in flight at a phase's end $in_flight, lost $lost; logged by the server $logged"
    echo "hostile requests through wrk: $hostile; truncated requests from the side client: $truncated_n"
    echo "crashes: $crashes; wrong answers: $wrong"
    echo "quiet gaps (sums over the children):"
    awk '{ printf "  after phase %d: pools %6.1f MB, base in use %6.1f MB (free lists %5.1f MB), held %6.1f MB, cached %5.1f MB, RSS %6.1f MB, idle trims %d\n", $1, $2 / 1048576, $3 / 1048576, $6 / 1048576, $4 / 1048576, $5 / 1048576, $7 / 1024, $8 }' "$work/memory"
    printf '%-16s %9s %9s %9s  %s\n' kind sent passed failed "first failure"
    cat "$work/kinds"
    echo "verdict: $([ $failed -eq 0 ] && echo PASS || echo "FAIL ($failed)")"
} | tee "$report"
cp "$work/memory" "$out/soak-$stamp.memory"
[ $failed -eq 0 ]
