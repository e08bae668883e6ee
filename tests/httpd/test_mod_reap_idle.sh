#!/bin/sh
# test_mod_reap_idle.sh - ReapIdleRelease on the reap-backed APR under a
# daemonized apache2: a request that allocates 48 MiB and lets its pool
# go leaves the child holding the memory (libreap keeps what was freed for
# reuse, and its decay clock runs only when threads allocate); once the
# child has ended no request for a whole ReapIdleRelease interval, its
# resident set falls by most of it.  With ReapIdleRelease Off the memory
# stays, which shows the fall comes from the release and not from time.
# The request pool's chunks went to its connection's APR allocator, whose
# free lists keep them for the next connection: /reap-status shows them
# there ("allocator_lists") until the release empties the lists.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
MR_APR_LIB=${MR_APR_LIB:-}
. "$(dirname "$0")/httpd_lib.sh"
mr_need_reap_apr "mod_reap's ReapIdleRelease tests"

MR_SERVERS=1
MIB=1048576
IDLE_RELEASE=

mr_site_idle() {
    mr_site_reap_test
    printf 'ReapIdleRelease %s\n' "$IDLE_RELEASE"
}
MR_SITE=mr_site_idle

# The resident set of the server's one child, in KiB (httpd_lib's mr_proc_mem).
child_rss() {
    # shellcheck disable=SC2046 # the child's pid, split on purpose
    mr_proc_mem $(mr_children)
    echo "$MR_RSS"
}

# hog_then_idle <ReapIdleRelease>: start a server, have one request
# allocate 48 MiB in 1000-byte objects, and set BUSY and IDLE to the child's
# RSS right after it and 3 s later, and LISTS to the bytes on the APR
# allocators' free lists then.
hog_then_idle() {
    IDLE_RELEASE=$1
    mr_start
    mr_get "/hog?total=$((48 * MIB))&size=1000"
    mr_check "ReapIdleRelease $1: the 48 MiB request is served" test "$MR_STATUS" = 200
    BUSY=$(child_rss)
    sleep 3
    IDLE=$(child_rss)
    mr_get /reap-status
    LISTS=$(mr_json_total allocator_lists bytes)
    mr_say "# ReapIdleRelease $1: child RSS $BUSY KiB after the request, $IDLE KiB 3 s later, ${LISTS:-?} bytes on the allocators' lists"
    mr_check "ReapIdleRelease $1: the error log is clean" mr_log_clean
    mr_stop
}

hog_then_idle 500ms
mr_check "an idle child gives back what it kept of the 48 MiB (at least 8 MiB)" \
    test $((IDLE + 8 * 1024)) -lt "$BUSY"
mr_check "the release emptied the allocators' lists (${LISTS:-?} bytes, under 1 MiB)" \
    test "${LISTS:-$MIB}" -lt "$MIB"

hog_then_idle Off
mr_check "with ReapIdleRelease Off the child keeps it" \
    test $((IDLE + 8 * 1024)) -ge "$BUSY"
mr_check "with ReapIdleRelease Off the allocators' lists keep it (${LISTS:-?} bytes, 1 MiB or more)" \
    test "${LISTS:-0}" -ge "$MIB"

mr_finish
