#!/bin/sh
# demo.sh - the project's demo, run by ./quickstart: Debian's apache2 on the
# reap-backed APR with mod_reap and mod_bc, on a loopback port, left running
# for you to try.  It computes the 1000th prime through the server, once
# with BcPfree On (numbers freed with ap_pfree) and once with BcPfree Off
# (pool behaviour), and prints each request's peak memory beside the figures
# of the original reap experiment (Berger, Zorn and McKinley 2002).
#
#   modules/mod_bc/demo.sh [start] BUILD_DIR   start (again) and measure
#   modules/mod_bc/demo.sh stop BUILD_DIR      stop the demo server
#
# The server's root is BUILD_DIR/demo; its logs are in BUILD_DIR/demo/logs.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

mode=start
case ${1:-} in
start | stop) mode=$1; shift ;;
esac
[ $# -eq 1 ] || { echo "usage: $0 [start|stop] BUILD_DIR" >&2; exit 2; }
MR_BUILDDIR=$(cd "$1" && pwd) || exit 2
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
MR_APR_LIB=$MR_BUILDDIR/install/apr/lib
MR_ROOT_DIR=$MR_BUILDDIR/demo
. "$srcdir/tests/httpd/httpd_lib.sh"

MR_ROOT=$MR_ROOT_DIR
mr_stop_server
[ "$mode" = stop ] && { echo "demo server stopped"; exit 0; }

[ -e "$MR_APR_LIB/libapr-1.so.0" ] ||
    mr_fatal "no reap-backed APR in $MR_APR_LIB (apr-patch/build-apr.sh)"
MR_NEED="$MR_MOD_REAP $MR_MOD_BC"
MR_SITE=demo_site
MR_THREADS=8
demo_site() {
    cat <<EOF
LoadModule reap_module $MR_MOD_REAP
LoadModule bc_module $MR_MOD_BC
LogFormat "%h %t \"%r\" %>s %B reap-peak=%{reap-peak}n bc-peak=%{bc-peak}n" demo
CustomLog "$MR_ROOT/logs/access.log" demo
<Location /bc>
    SetHandler bc
    BcPfree On
</Location>
<Location /bc-nofree>
    SetHandler bc
    BcPfree Off
</Location>
<Location /reap-status>
    SetHandler reap-status
</Location>
EOF
}
mr_start
trap - EXIT

url=http://127.0.0.1:$MR_PORT
prime_bc=$srcdir/loadtest/bc/prime.bc   # the 1000th prime, as in bc-bench.sh

# prime <location>: the answer, then the request pool's peak from the log.
prime() {
    answer=$(curl -s -H 'Content-Type: text/plain' \
        --data-binary "@$prime_bc" "$url$1?demo")
    MR_SENT=$((MR_SENT + 1))
    mr_wait_logged >/dev/null
    peak=$(grep -F "POST $1?demo " "$MR_ROOT/logs/access.log" | tail -1 |
        sed -n 's/.* reap-peak=\([0-9]*\).*/\1/p')
    echo "$answer ${peak:-0}"
}

kb() {
    awk -v b="$1" 'BEGIN { if (b >= 1048576) printf "%.1f MB", b / 1048576;
                           else printf "%.0f KB", b / 1024 }'
}

set -- $(prime /bc)
on_answer=$1 on=$2
set -- $(prime /bc-nofree)
off_answer=$1 off=$2

cat <<EOF

mod_bc is running at $url/bc (apache2 on the reap-backed APR, worker MPM).
Try it:
    curl --data-binary 'scale=50; 4*a(1)' '$url/bc?l=1'
    curl --data-binary @prog.bc '$url/bc'    # a file: the body is the program
    curl '$url/bc?e=2%5E100'
    curl '$url/reap-status'                  # memory of every child, JSON
Stop it with: modules/mod_bc/demo.sh stop $MR_BUILDDIR

The 1000th prime by trial division, through the server
(peak memory of the request's pool, mod_reap's reap-peak note):

                         answer   with ap_pfree   without   ratio
  this server (reaps)    $(printf '%-6s   %-13s   %-8s  %s' "$on_answer" "$(kb "$on")" "$(kb "$off")" \
      "$(awk -v a="$off" -v b="$on" 'BEGIN { if (b > 0) printf "%.0fx", a / b }')")
  2002 (Berger et al.)   7919     240 KB          7.4 MB    31x
EOF
[ "$on_answer" = 7919 ] && [ "$off_answer" = 7919 ]
