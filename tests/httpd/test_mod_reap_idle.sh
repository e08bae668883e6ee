#!/bin/sh
# test_mod_reap_idle.sh - ReapIdleRelease, mod_reap's switch onto libreap's
# release thread, under a daemonized apache2 on the reap-backed APR: a
# request that allocates 48 MiB and lets its pool go leaves its chunks on
# its connection's APR allocator's free lists ("allocator_lists" in
# /reap-status).  Once the child's allocator has been quiet for the
# interval, libreap's release thread trims (its "release_trims" counter in
# the base figures), the trim's hook empties the lists of the parked
# allocators, and the thread's give-backs are counted ("release_returned").
# With ReapIdleRelease Off the thread never trims, and the lists stay.
# Counters are asserted, not RSS: test_reap_apr_release.sh does the same
# without mod_reap.

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

# hog_then_idle <ReapIdleRelease>: start a server, have one request
# allocate 48 MiB in 1000-byte objects, wait 3 s, and set LISTS, TRIMS and
# RETURNED from /reap-status then.
hog_then_idle() {
    IDLE_RELEASE=$1
    mr_start
    mr_get "/hog?total=$((48 * MIB))&size=1000"
    mr_check "ReapIdleRelease $1: the 48 MiB request is served" test "$MR_STATUS" = 200
    sleep 3
    mr_get /reap-status
    LISTS=$(mr_json_total allocator_lists bytes)
    TRIMS=$(mr_json_total base release_trims)
    RETURNED=$(mr_json_total base release_returned)
    mr_say "# ReapIdleRelease $1: ${LISTS:-?} bytes on the allocators' lists, ${TRIMS:-?} trims and ${RETURNED:-?} bytes returned by the release thread"
    mr_check "ReapIdleRelease $1: the error log is clean" mr_log_clean
    mr_stop
}

hog_then_idle 500ms
mr_check "the release thread trimmed the quiet child (${TRIMS:-?} trims)" \
    test "${TRIMS:-0}" -ge 1
mr_check "the release thread gave memory back (${RETURNED:-?} bytes, at least 8 MiB)" \
    test "${RETURNED:-0}" -ge $((8 * MIB))
mr_check "the trim emptied the allocators' lists (${LISTS:-?} bytes, under 1 MiB)" \
    test "${LISTS:-$MIB}" -lt "$MIB"

hog_then_idle Off
mr_check "with ReapIdleRelease Off the release thread never trims (${TRIMS:-?})" \
    test "${TRIMS:-1}" -eq 0
mr_check "with ReapIdleRelease Off the allocators' lists keep it (${LISTS:-?} bytes, 1 MiB or more)" \
    test "${LISTS:-0}" -ge "$MIB"

mr_finish
