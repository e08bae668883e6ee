# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# httpd_lib.sh - sourced by the tests and load tests that need a real
# server: starts Debian's apache2 on a temporary ServerRoot (loopback, a free
# port, worker or event MPM, mod_status), sends requests, reads its logs,
# and always stops it again: mr_start hands mr_stop to cleanup.sh's
# registry, whose one trap (EXIT, INT, TERM) also runs the cleanups of the
# sourcing script.
#
# The caller sets, before sourcing:
#   MR_BUILDDIR  the top build directory (the modules live under it, see
#                mod_reap/local.mk and modules/mod_bc/local.mk)
#   MR_APR_LIB   directory of a libapr-1.so.0 to run on, or "" for Debian's
#                (or call mr_need_reap_apr after sourcing)
# and may set, before mr_start:
#   MR_SITE      a function printing the site part of httpd.conf (modules
#                and locations) [mr_site_reap_test: mod_reap and its test
#                module]; MR_NEED, the files that part needs
#   MR_SERVERS, MR_THREADS   child processes and threads per child [2, 4]
#   MR_MPM       the MPM, worker or event [worker]
#   MR_PRELOAD   a library for LD_PRELOAD in the server [none]
#   MR_WAIT_TRIES  tenths of a second to wait for the server to answer [100]
#   MR_ROOT_DIR  the ServerRoot to use (made empty first) [a new temporary
#                directory]; MR_KEEP=1 keeps it after mr_stop
# and then calls mr_start, mr_get..., mr_stop.  Every check goes through
# mr_check, which counts failures; mr_finish exits 0 only when none failed.
# Before mr_finish a test calls mr_check with mr_log_clean, naming the lines
# above notice level its checks provoke: any other warning or error fails.
# Scripts never set traps of their own: they pass their cleanups to
# cleanup_push (tests/httpd/cleanup.sh, sourced here).

set -u

# This file's directory: bash says; from dash, the sourcing script's own
# directory or the source tree's tests/httpd (MR_LIBDIR overrides).
if [ -z "${MR_LIBDIR:-}" ]; then
    if [ -n "${BASH_SOURCE:-}" ]; then
        MR_LIBDIR=$(dirname "$BASH_SOURCE")
    elif [ -f "$(dirname "$0")/cleanup.sh" ]; then
        MR_LIBDIR=$(dirname "$0")
    else
        MR_LIBDIR=${srcdir:-.}/tests/httpd
    fi
fi
. "$MR_LIBDIR/cleanup.sh"

MR_APACHE=${MR_APACHE:-/usr/sbin/apache2}
MR_MODDIR=$(apxs -q LIBEXECDIR 2>/dev/null || echo /usr/lib/apache2/modules)
MR_MOD_REAP=$MR_BUILDDIR/mod_reap/apxs/.libs/mod_reap.so
MR_MOD_TEST=$MR_BUILDDIR/tests/httpd/apxs/.libs/mod_reap_test.so
MR_MOD_BC=$MR_BUILDDIR/modules/mod_bc/apxs/.libs/mod_bc.so
MR_LIBREAP_DIR=$MR_BUILDDIR/libreap/.libs
MR_SITE=${MR_SITE:-mr_site_reap_test}
MR_NEED=${MR_NEED:-"$MR_MOD_REAP $MR_MOD_TEST"}
MR_SERVERS=${MR_SERVERS:-2}
MR_THREADS=${MR_THREADS:-4}
MR_MPM=${MR_MPM:-worker}
MR_PRELOAD=${MR_PRELOAD:-}
MR_FAILED=0
MR_SENT=0
MR_ROOT=
MR_PORT=

mr_say() { printf '%s\n' "$*"; }

# mr_check <description> <command...>: run the command, record the result.
mr_check() {
    desc=$1
    shift
    if "$@"; then
        mr_say "ok   - $desc"
    else
        mr_say "FAIL - $desc"
        MR_FAILED=$((MR_FAILED + 1))
    fi
}

mr_fatal() {
    mr_say "FATAL: $*"
    if [ -n "$MR_ROOT" ] && [ -f "$MR_ROOT/logs/error.log" ]; then
        mr_say "--- error.log:"
        cat "$MR_ROOT/logs/error.log"
    fi
    exit 1
}

# The part of httpd.conf every server here shares.
mr_conf_core() {
    if [ "$(id -u)" = 0 ]; then
        printf 'User www-data\nGroup www-data\n'
    fi
    cat <<EOF
ServerRoot "$MR_ROOT"
ServerName 127.0.0.1
Listen 127.0.0.1:$MR_PORT
PidFile "$MR_ROOT/run/httpd.pid"
DefaultRuntimeDir "$MR_ROOT/run"
Mutex file:$MR_ROOT/run default
LoadModule mpm_${MR_MPM}_module $MR_MODDIR/mod_mpm_$MR_MPM.so
LoadModule authn_core_module $MR_MODDIR/mod_authn_core.so
LoadModule authz_core_module $MR_MODDIR/mod_authz_core.so
LoadModule mime_module $MR_MODDIR/mod_mime.so
LoadModule status_module $MR_MODDIR/mod_status.so
TypesConfig /etc/mime.types
StartServers $MR_SERVERS
ServerLimit $MR_SERVERS
ThreadsPerChild $MR_THREADS
ThreadLimit $MR_THREADS
MinSpareThreads 1
MaxSpareThreads $((MR_SERVERS * MR_THREADS))
MaxRequestWorkers $((MR_SERVERS * MR_THREADS))
MaxConnectionsPerChild 0
ErrorLog "$MR_ROOT/logs/error.log"
LogLevel warn
DocumentRoot "$MR_ROOT/htdocs"
ExtendedStatus On
<Location />
    Require all granted
</Location>
<Location /server-status>
    SetHandler server-status
</Location>
EOF
}

# The default site: mod_reap and the test module of tests/httpd.
mr_site_reap_test() {
    cat <<EOF
LoadModule reap_test_module $MR_MOD_TEST
LoadModule reap_module $MR_MOD_REAP
LogFormat "%m %U%q %>s peak=%{reap-peak}n pid=%P" reaptest
CustomLog "$MR_ROOT/logs/access.log" reaptest
ReapStatus On
<Location /reap-status>
    SetHandler reap-status
</Location>
<Location /test>
    SetHandler reap-test
</Location>
<Location /hog>
    SetHandler reap-test-hog
</Location>
<Location /limited>
    SetHandler reap-test-hog
    ReapRequestLimit 1M
</Location>
EOF
}

# The reap-aware modules (httpd-patch/), built into
# <build>/httpd-modules/lib (make httpd-modules).
MR_REAP_AWARE="dav_fs sed rewrite autoindex include proxy_html"

# mr_load_reap_aware <dir>: the LoadModule lines of the reap-aware modules
# from <dir> (ours, or Debian's own in $MR_MODDIR), after Debian's
# mod_alias and mod_dav, and mod_proxy, mod_proxy_http and mod_xml2enc
# (proxy_html's), which they need.
mr_load_reap_aware() {
    for mr_m in alias dav proxy proxy_http xml2enc; do
        echo "LoadModule ${mr_m}_module $MR_MODDIR/mod_$mr_m.so"
    done
    for mr_m in $MR_REAP_AWARE; do
        echo "LoadModule ${mr_m}_module $1/mod_$mr_m.so"
    done
}

# mr_reap_apr_lib: print the lib directory of the reap-backed APR:
# $MR_APR_LIB when set, else $REAP_APR_DIR/lib, where REAP_APR_DIR comes from
# the environment, else configure's --with-reap-apr (the build's
# tests/httpd/mod_reap_paths.sh, written by mod_reap/local.mk), else
# <build>/install/apr.
mr_reap_apr_lib() {
    if [ -n "${MR_APR_LIB:-}" ]; then
        printf '%s\n' "$MR_APR_LIB"
        return
    fi
    mr_dir=${REAP_APR_DIR:-}
    if [ -z "$mr_dir" ] && [ -f "$MR_BUILDDIR/tests/httpd/mod_reap_paths.sh" ]; then
        mr_dir=$(. "$MR_BUILDDIR/tests/httpd/mod_reap_paths.sh" && printf '%s' "$REAP_APR_DIR")
    fi
    printf '%s\n' "${mr_dir:-$MR_BUILDDIR/install/apr}/lib"
}

# mr_need_reap_apr <what>: run the servers on the reap-backed APR
# (mr_reap_apr_lib); when there is none, say loudly that <what> did not run
# and exit 77 (SKIP), and when the library there exports no apr_pfree,
# fail.
mr_need_reap_apr() {
    MR_APR_LIB=$(mr_reap_apr_lib)
    if [ ! -e "$MR_APR_LIB/libapr-1.so.0" ]; then
        echo "######################################################################"
        echo "# SKIPPED: no reap-backed APR at $MR_APR_LIB/libapr-1.so.0"
        echo "# $1 did NOT run.  Build it first:"
        echo "#   make check-httpd (it builds the reap-backed APR first)"
        echo "######################################################################"
        exit 77
    fi
    if ! nm -D "$MR_APR_LIB/libapr-1.so.0" | grep -q ' T apr_pfree$'; then
        echo "FATAL: $MR_APR_LIB/libapr-1.so.0 exports no apr_pfree: not reap-backed"
        exit 1
    fi
    MR_APR_LIB=$(cd "$MR_APR_LIB" && pwd -P)
}

mr_write_conf() {
    { mr_conf_core; "$MR_SITE"; } >"$MR_ROOT/httpd.conf"
}

mr_env() {
    ld=$MR_LIBREAP_DIR
    [ -n "$MR_APR_LIB" ] && ld=$MR_APR_LIB:$ld
    if [ -n "$MR_PRELOAD" ]; then
        env LD_LIBRARY_PATH="$ld" LD_PRELOAD="$MR_PRELOAD" "$@"
    else
        env LD_LIBRARY_PATH="$ld" "$@"
    fi
}

# Try a few ports: a random one may be taken.
mr_start() {
    [ -x "$MR_APACHE" ] || mr_fatal "$MR_APACHE not found (package apache2)"
    for f in $MR_NEED; do
        [ -f "$f" ] || mr_fatal "$f not built"
    done
    # A server of this script started before and stopped with
    # mr_stop_server leaves its temporary root: remove it now.
    if [ -n "$MR_ROOT" ] && [ -z "${MR_ROOT_DIR:-}" ] && [ "${MR_KEEP:-0}" = 0 ]; then
        rm -rf "$MR_ROOT"
    fi
    if [ -n "${MR_ROOT_DIR:-}" ]; then
        MR_ROOT=$MR_ROOT_DIR
        rm -rf "$MR_ROOT" && mkdir -p "$MR_ROOT" || mr_fatal "cannot make $MR_ROOT"
    else
        MR_ROOT=$(mktemp -d /tmp/mod_reap_test.XXXXXX)
    fi
    cleanup_push mr_stop
    chmod 755 "$MR_ROOT"
    mkdir -p "$MR_ROOT/run" "$MR_ROOT/logs" "$MR_ROOT/htdocs"
    echo hello >"$MR_ROOT/htdocs/index.html"
    chmod -R a+rX "$MR_ROOT"
    # Random first port, so servers of one script (or of scripts started
    # together) do not all try the same one.
    base=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    for try in 1 2 3 4 5 6 7 8; do
        MR_PORT=$((20000 + (base + try * 977) % 30000))
        mr_write_conf
        : >"$MR_ROOT/logs/error.log"
        if mr_env "$MR_APACHE" -d "$MR_ROOT" -f "$MR_ROOT/httpd.conf" \
            -k start >"$MR_ROOT/logs/start.out" 2>&1 && mr_wait_up; then
            mr_say "# apache2 up on 127.0.0.1:$MR_PORT, root $MR_ROOT"
            return 0
        fi
        grep -q "Address already in use" "$MR_ROOT/logs/error.log" \
            "$MR_ROOT/logs/start.out" || break
        mr_stop_server
    done
    cat "$MR_ROOT/logs/start.out"
    mr_fatal "apache2 did not start"
}

# mr_restart <lines>: graceful restart on the test configuration plus
# <lines>; returns once the new generation answers.
mr_restart() {
    gen=$(mr_count_log 'resuming normal operations')
    mr_write_conf
    printf '%s\n' "$1" >>"$MR_ROOT/httpd.conf"
    mr_env "$MR_APACHE" -d "$MR_ROOT" -f "$MR_ROOT/httpd.conf" -k graceful \
        >>"$MR_ROOT/logs/start.out" 2>&1 || return 1
    i=0
    while [ "$(mr_count_log 'resuming normal operations')" -le "$gen" ]; do
        [ $i -lt 200 ] || return 1
        sleep 0.05
        i=$((i + 1))
    done
    mr_wait_up
}

# The server answers.
mr_wait_up() {
    i=0
    while [ $i -lt "${MR_WAIT_TRIES:-100}" ]; do
        if [ -f "$MR_ROOT/run/httpd.pid" ] &&
            curl -s -o /dev/null "http://127.0.0.1:$MR_PORT/index.html" 2>/dev/null; then
            MR_SENT=$((MR_SENT + 1))
            return 0
        fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

mr_stop_server() {
    [ -n "$MR_ROOT" ] && [ -f "$MR_ROOT/run/httpd.pid" ] || return 0
    pid=$(cat "$MR_ROOT/run/httpd.pid")
    kill -TERM "$pid" 2>/dev/null || true
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    rm -f "$MR_ROOT/run/httpd.pid"
}

mr_stop() {
    mr_stop_server
    if [ -n "$MR_ROOT" ] && [ "${MR_KEEP:-0}" = 0 ]; then
        rm -rf "$MR_ROOT"
    fi
}

# mr_get <path> [curl options...]: body into $MR_BODY, status into $MR_STATUS.
mr_get() {
    path=$1
    shift
    MR_BODY=$(curl -s -w '\n%{http_code}' "$@" "http://127.0.0.1:$MR_PORT$path")
    MR_STATUS=${MR_BODY##*
}
    MR_BODY=${MR_BODY%
*}
    MR_SENT=$((MR_SENT + 1))
}

# Wait until every request sent so far is in the access log; mod_reap adds a
# request to its counters before mod_log_config writes its line.
mr_wait_logged() {
    i=0
    while [ $i -lt 200 ]; do
        n=$(wc -l <"$MR_ROOT/logs/access.log" 2>/dev/null || echo 0)
        [ "$n" -ge "$MR_SENT" ] && return 0
        sleep 0.05
        i=$((i + 1))
    done
    mr_say "# only $n of $MR_SENT requests logged"
    return 1
}

# mr_json_total <object> <field>: a figure of "totals" in $MR_BODY (the
# reap-status JSON), where <object> is process or requests.
mr_json_total() {
    printf '%s\n' "$MR_BODY" | grep '"totals"' |
        sed -n "s/.*\"$1\": {[^}]*\"$2\": \([0-9][0-9]*\).*/\1/p"
}

# mr_rss_report <min-anon>: true when every child in $MR_BODY (the
# reap-status JSON) has an "rss" with anon <= bytes and anon >= <min-anon>,
# its bytes within a factor of two of the VmRSS the test reads from
# /proc/<pid>/status now (the answering child read it a moment ago, and a
# quiet child moves little), and the totals' bytes are the children's sum.  Says
# what it found; mr_rss_ok is the same, silent.
mr_rss_ok() {
    mr_rss_report "$@" >/dev/null
}
mr_rss_report() {
    printf '%s\n' "$MR_BODY" | awk -v min="$1" '
        /"totals"/ { if (match($0, /"rss": {"bytes": [0-9]+/)) total = substr($0, RSTART + 17, RLENGTH - 17); next }
        /^    {"pid": / { split($0, f, /[ ,]+/); pid = f[3] }
        /"rss": / && pid != "" {
            if (!match($0, /"rss": {"bytes": [0-9]+, "anon": [0-9]+}/)) { print "no rss for " pid; bad = 1; next }
            split(substr($0, RSTART, RLENGTH), g, /[^0-9]+/)
            bytes = g[2]; anon = g[3]; sum += bytes; n++
            vm = 0
            while ((getline line < ("/proc/" pid "/status")) > 0)
                if (line ~ /^VmRSS:/) { split(line, h, /[ \t]+/); vm = h[2] * 1024 }
            close("/proc/" pid "/status")
            printf "child %s: rss %s anon %s, VmRSS %s; ", pid, bytes, anon, vm
            if (vm == 0 || bytes < vm / 2 || bytes > vm * 2 || anon > bytes || anon < min) bad = 1
            pid = ""
        }
        END { printf "totals %s", total; if (n < 1 || total != sum) bad = 1; exit bad }'
}

# mr_auto <key>: the value of "<key>: value" in $MR_BODY (?auto output).
mr_auto() {
    printf '%s\n' "$MR_BODY" | sed -n "s/^$1: //p"
}

# mr_peak_of <path-and-query>: the reap-peak note logged for that request.
mr_peak_of() {
    grep -F "GET $1 " "$MR_ROOT/logs/access.log" | tail -1 |
        sed -n 's/.* peak=\([^ ]*\) .*/\1/p'
}

# The server's child processes, sorted, on one line (empty when it is down).
mr_children() {
    [ -f "$MR_ROOT/run/httpd.pid" ] || return 0
    pgrep -P "$(cat "$MR_ROOT/run/httpd.pid")" | sort | tr '\n' ' '
}

# mr_proc_mem <pids...>: MR_RSS and MR_HWM, the processes' VmRSS and VmHWM
# summed (kB); a process that is gone counts 0.
mr_proc_mem() {
    MR_RSS=0 MR_HWM=0
    for mr_p in "$@"; do
        while read -r mr_k mr_v _; do
            case $mr_k in
            VmRSS:) MR_RSS=$((MR_RSS + mr_v)) ;;
            VmHWM:) MR_HWM=$((MR_HWM + mr_v)) ;;
            esac
        done <"/proc/$mr_p/status"
    done 2>/dev/null
}

# mr_proc_cpu <pids...>: prints "user system minflt" of the processes so
# far: CPU time in clock ticks and minor page faults (fields 14, 15 and 10
# of /proc/<pid>/stat, counted after the command).
mr_proc_cpu() {
    mr_u=0 mr_s=0 mr_f=0
    for mr_p in "$@"; do
        mr_line=$(cat "/proc/$mr_p/stat" 2>/dev/null) || continue
        mr_line=${mr_line##*) }
        # shellcheck disable=SC2086 # the fields, split on purpose
        set -- $mr_line
        mr_u=$((mr_u + ${12})) mr_s=$((mr_s + ${13})) mr_f=$((mr_f + ${8}))
    done
    echo "$mr_u $mr_s $mr_f"
}

# The libapr-1 a running child has mapped.
mr_child_libapr() {
    for pid in $(mr_children); do
        grep -o '/[^ ]*libapr-1\.so[^ ]*' "/proc/$pid/maps" | head -1
        return 0
    done
}

# mr_body_has <grep pattern>: $MR_BODY matches.
mr_body_has() {
    printf '%s\n' "$MR_BODY" | grep -q -- "$1"
}

# mr_libapr_under <dir>: the children's libapr-1 comes from under <dir>.
mr_libapr_under() {
    lib=$(mr_child_libapr)
    case $lib in
    "$1"/*) return 0 ;;
    esac
    mr_say "# children map libapr-1 from '$lib'"
    return 1
}

# mr_json_valid: $MR_BODY is one well-formed JSON value.  With python3 its
# parser decides; without it, a structural check (balanced brackets outside
# strings, no dangling commas) stands in.
mr_json_valid() {
    if command -v python3 >/dev/null 2>&1; then
        printf '%s' "$MR_BODY" | python3 -c 'import json, sys; json.load(sys.stdin)'
        return
    fi
    printf '%s' "$MR_BODY" | tr -d '\n' | awk '
        { n = length($0); depth = 0; instr = 0; ok = 1; last = ""
          for (i = 1; i <= n; i++) {
              c = substr($0, i, 1)
              if (instr) { if (c == "\\") i++; else if (c == "\"") instr = 0; continue }
              if (c == "\"") { instr = 1; last = c; continue }
              if (c == "{" || c == "[") depth++
              if (c == "}" || c == "]") { depth--; if (last == ",") ok = 0 }
              if (depth < 0) ok = 0
              if (c != " ") last = c
          }
          exit !(ok && depth == 0 && !instr) }'
}

# mr_config_test <lines>: `apache2 -t` on the test configuration plus
# <lines>; its output goes to $MR_BODY, its exit status is returned.
mr_config_test() {
    cp "$MR_ROOT/httpd.conf" "$MR_ROOT/test.conf"
    printf '%s\n' "$1" >>"$MR_ROOT/test.conf"
    MR_BODY=$(mr_env "$MR_APACHE" -t -d "$MR_ROOT" -f "$MR_ROOT/test.conf" 2>&1)
}

mr_count_log() {
    grep -c -- "$1" "$MR_ROOT/logs/error.log" || true
}

# mr_log_clean_file <error log> [<ERE>...]: the log holds nothing above
# notice level (only lines of level notice, info, debug or trace, in
# httpd's "[time] [module:level] ..." form) but lines matching one of the
# extended regular expressions; any other line, a child's stray stderr
# included, is printed and fails the check.
mr_log_clean_file() {
    mr_log=$1
    shift
    [ -f "$mr_log" ] || { mr_say "# no error log at $mr_log"; return 1; }
    mr_bad=$(grep -Ev '^\[[^]]*\] \[[a-z_0-9]*:(notice|info|debug|trace[1-8])\] ' "$mr_log")
    for mr_ok in "$@"; do
        mr_bad=$(printf '%s\n' "$mr_bad" | grep -Ev -- "$mr_ok")
    done
    [ -z "$mr_bad" ] && return 0
    mr_say "# $mr_log has $(printf '%s\n' "$mr_bad" | wc -l) unexpected line(s) above notice:"
    printf '%s\n' "$mr_bad" | head -20 | sed 's/^/#   /'
    return 1
}

# mr_log_clean [<ERE>...]: mr_log_clean_file on the server's error log.
mr_log_clean() {
    mr_log_clean_file "$MR_ROOT/logs/error.log" "$@"
}

mr_finish() {
    if [ "$MR_FAILED" -ne 0 ] && [ -f "$MR_ROOT/logs/error.log" ]; then
        mr_say "--- error.log:"
        cat "$MR_ROOT/logs/error.log"
        mr_say "--- access.log:"
        cat "$MR_ROOT/logs/access.log"
    fi
    mr_say "# $MR_FAILED check(s) failed"
    [ "$MR_FAILED" -eq 0 ]
    exit $?
}
