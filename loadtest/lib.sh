# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# shellcheck shell=bash
# lib.sh - sourced (by bash) by the httpd load tests' drivers,
# loadtest/wrk/run.sh and loadtest/h2/run.sh: what they share besides
# tests/httpd/httpd_lib.sh.  Messages, the build directory, --pin's needs,
# the machine's description, the gnuplot page, the comparison with the
# run before, and the list of failed checks ($FAILS, a file, so that the
# per-run subshells can add to it).

say() { printf '%s\n' "$*"; }
loud() {
    say "######################################################################"
    for l in "$@"; do say "# $l"; done
    say "######################################################################"
}

# lt_build_dir <given> <source top>: print the build directory: the one
# given, else the current directory when it holds mod_reap.so, else
# <source top>/build.  False when it is no directory.
lt_build_dir() {
    local b=$1
    if [ -z "$b" ]; then
        if [ -f ./mod_reap/apxs/.libs/mod_reap.so ]; then b=$PWD; else b=$2/build; fi
    fi
    (cd "$b" 2>/dev/null && pwd) || { echo "run.sh: no build directory $b" >&2; return 1; }
}

# lt_pin_check: --pin puts the server on CPU 0 and the client on CPU 1:
# exit 2 without taskset or with fewer than 2 CPUs.
lt_pin_check() {
    command -v taskset >/dev/null || { echo "run.sh: --pin needs taskset (package util-linux)" >&2; exit 2; }
    [ "$(nproc)" -ge 2 ] || { echo "run.sh: --pin needs 2 CPUs, this machine has $(nproc)" >&2; exit 2; }
}

# lt_machine <client version>: the Markdown summary's "Machine:" line.
lt_machine() {
    echo "Machine: $(nproc) CPU(s), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
        "$(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo);" \
        "$(. /etc/os-release && echo "$PRETTY_NAME"); kernel $(uname -r);" \
        "$("$MR_APACHE" -v | sed -n 's/^Server version: //p'); $1."
}

# lt_gnuplot_page <png> <panels>: gnuplot's opening lines for a PNG of
# that many panels, two a row.
lt_gnuplot_page() {
    local cols=$(($2 < 2 ? $2 : 2)) rows=$((($2 + 1) / 2))
    echo "set terminal png size $((640 * cols)),$((420 * rows)) font ',9' noenhanced"
    echo "set output '$1'"
    echo "set datafile separator ','"
    echo "set multiplot layout $rows,$cols"
}

# lt_compare <summary csv> <md> [--same TEXT]: the run's reap / stock
# ratios beside the run before's (loadtest/compare.py), appended to <md>
# and kept in $COMPARE for the report; a failure of the script is a
# failed check.
lt_compare() {
    local summary=$1 md=$2
    shift 2
    COMPARE=$(python3 "$(dirname "${BASH_SOURCE[0]}")/compare.py" "$summary" "$@") ||
        fail "loadtest/compare.py failed"
    [ -z "$COMPARE" ] || printf '%s\n' "$COMPARE" >>"$md"
}

# fail <message>: record a failed check (also from the per-run subshells).
fail() {
    say "FAIL: $*"
    printf '%s\n' "$*" >>"$FAILS"
}

# lt_exit_if_failed: list the failed checks and exit 1, when there are any.
lt_exit_if_failed() {
    local n
    n=$(wc -l <"$FAILS")
    [ "$n" -gt 0 ] || return 0
    say "$n check(s) FAILED:"
    sed 's/^/  /' "$FAILS"
    exit 1
}
