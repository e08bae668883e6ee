#!/bin/sh
# test_reap_apr_release.sh - apache2 on the reap-backed APR *without*
# mod_reap gives a burst's memory back while idle, by libreap alone: a
# request of the test module (which needs no mod_reap) allocates 48 MiB
# from its pool and lets it go; the child's threads then all wait.
# libreap's release thread, started by itself, must trim the quiet child
# (REAP_IDLE_MS=300) and give memory back.  What is asserted are the
# library's own counters, which libreap.so writes at exit into
# REAP_STATS_FILE (one file a process, %p the pid): in the child that
# served the request, release_trims >= 1 and release_returned >= 8 MiB.
# A second server with REAP_RELEASE=off shows the counters stay 0, so they
# count the thread's work and nothing else.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
MR_APR_LIB=${MR_APR_LIB:-}
. "$(dirname "$0")/httpd_lib.sh"
mr_need_reap_apr "the release test of the reap-backed APR without mod_reap"

MR_SERVERS=1
MIB=1048576
STATS=$(mktemp -d /tmp/reap_release_stats.XXXXXX)
chmod 777 "$STATS" # the children run as www-data
cleanup_push "rm -rf '$STATS'"

# No mod_reap: the test module alone (ap_pfree is an optional function).
mr_site_plain() {
    cat <<EOF
LoadModule reap_test_module $MR_MOD_TEST
<Location /hog>
    SetHandler reap-test-hog
</Location>
EOF
}
MR_SITE=mr_site_plain

# stat_of <file> <field>: a figure of libreap's text statistics.
stat_of() {
    awk -v f="$2" '$1 == f { print $2 }' "$1"
}

# idle_until_returned <pid>: waits, up to 30 s, until the child's resident
# set is 8 MiB below what it was just after the burst (the thread's decay
# comes after quiet, not before this first look; VmHWM will not do, a
# child's starts with its parent's), then 2 s more, nearly seven idle
# periods, for the whole trim that follows the decay.  A loaded machine
# gets the time it needs; the counters, read after the stop, decide.
idle_until_returned() {
    mr_proc_mem "$1"
    after=$MR_RSS
    i=0
    while [ "$after" -gt 0 ] && [ $i -lt 150 ]; do
        mr_proc_mem "$1"
        [ "$MR_RSS" -gt 0 ] && [ "$MR_RSS" -le $((after - 8 * 1024)) ] && break
        sleep 0.2
        i=$((i + 1))
    done
    sleep 2
}

# burst_then_idle <REAP_RELEASE>: one 48 MiB request, idle (as above
# with the thread on; 3 s, ten idle periods, with it off),
# stop; sets TRIMS and RETURNED from the statistics of the child that
# served it.
burst_then_idle() {
    rm -f "$STATS"/*
    export REAP_STATS_FILE="$STATS/stats-%p" REAP_IDLE_MS=300 REAP_RELEASE="$1"
    mr_start
    mr_check "REAP_RELEASE=$1: no mod_reap in the server" \
        test "$(grep -c reap_module "$MR_ROOT/httpd.conf")" = 0
    mr_get "/hog?total=$((48 * MIB))&size=1000"
    mr_check "REAP_RELEASE=$1: the 48 MiB request is served" test "$MR_STATUS" = 200
    child=$(mr_children | tr -d ' ')
    if [ "$1" = on ]; then
        idle_until_returned "$child"
    else
        sleep 3
    fi
    mr_check "REAP_RELEASE=$1: the error log is clean" mr_log_clean
    mr_stop
    unset REAP_STATS_FILE REAP_IDLE_MS REAP_RELEASE
    TRIMS= RETURNED=
    if [ -f "$STATS/stats-$child" ]; then
        TRIMS=$(stat_of "$STATS/stats-$child" release_trims)
        RETURNED=$(stat_of "$STATS/stats-$child" release_returned)
    fi
    mr_say "# REAP_RELEASE=$1: child $child: ${TRIMS:-?} trims, ${RETURNED:-?} bytes returned by the release thread"
}

burst_then_idle on
mr_check "the child wrote libreap's statistics at exit" test -n "$TRIMS"
mr_check "the release thread trimmed the quiet child (${TRIMS:-?} trims)" test "${TRIMS:-0}" -ge 1
mr_check "the release thread gave the burst back (${RETURNED:-?} bytes, at least 8 MiB)" \
    test "${RETURNED:-0}" -ge $((8 * MIB))

burst_then_idle off
mr_check "with REAP_RELEASE=off the counters stay 0 (${TRIMS:-?}, ${RETURNED:-?})" \
    test "${TRIMS:-1}" = 0 -a "${RETURNED:-1}" = 0

mr_finish
