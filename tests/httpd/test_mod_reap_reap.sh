#!/bin/sh
# test_mod_reap_reap.sh - mod_reap on the reap-backed APR (apr-patch/): the
# module says once that the APR is reap-backed; the figures it shows (JSON of
# the reap-status handler, ?auto lines of mod_status) match what the test
# module allocated and freed; the reap-peak note shows that ap_pfree() lets a
# request reuse its memory; and ReapRequestLimit stops a request that
# allocates too much while the server and the next requests carry on.
# The largest-pools list walks every pool (apr_pool_walk): it shows the
# long-lived pools the test module makes at child init, which no httpd hook
# sees, by their tag; with ReapPoolWalk Off it falls back to the pools seen
# through hooks.
#
# Needs the patched libapr-1 in MR_APR_LIB (default: the one `make` installs
# under <build>/install/apr/lib).  When it is missing the test is SKIPPED
# with a loud message: build it with apr-patch/build-apr.sh.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
MR_APR_LIB=${MR_APR_LIB:-}
. "$(dirname "$0")/httpd_lib.sh"
mr_need_reap_apr "mod_reap's reap-backed tests"

mr_start

mr_check "the children run on the reap-backed libapr-1" \
    mr_libapr_under "$MR_APR_LIB"
mr_check "start-up line says reap-backed, once" \
    test "$(mr_count_log 'mod_reap: libreap .* is reap-backed')" = 1
mr_check "no not-reap-backed warning" \
    test "$(mr_count_log 'NOT reap-backed')" = 0

# mr_poll_json <field>, mr_poll_auto <key>: wait until every request so far
# is counted, ask for the figures, and set MR_VAL to the requested total.
# (In this shell, not in $(...), so MR_SENT and MR_BODY stay right.)
mr_poll_json() {
    mr_wait_logged
    mr_get /reap-status
    MR_VAL=$(mr_json_total requests "$1")
}
mr_poll_auto() {
    mr_wait_logged
    mr_get "/server-status?auto"
    MR_VAL=$(mr_auto "$1")
}

# Frees: two requests alike but for ap_pfree of 150 objects; each poll
# counts the request before it and the poll before that, so the difference
# of differences is exactly what the test module freed.
mr_poll_json frees; f0=$MR_VAL
mr_get "/test?n=200&size=1000&free=0"
mr_check "batch without frees answered 200" test "$MR_STATUS" = 200
mr_check "test module sees ap_pfree() working" mr_body_has 'pfree_works=1'
mr_poll_json frees; f1=$MR_VAL
mr_get "/test?n=200&size=1000&free=150"
mr_poll_json frees; f2=$MR_VAL
mr_check "JSON: request frees grew by exactly the 150 ap_pfree calls ($f0 $f1 $f2)" \
    test $(((f2 - f1) - (f1 - f0))) = 150

# Allocations: 200 against 500 objects.
mr_poll_json allocs; a0=$MR_VAL
mr_get "/test?n=200&size=1000&free=0"
mr_poll_json allocs; a1=$MR_VAL
mr_get "/test?n=500&size=1000&free=0"
mr_poll_json allocs; a2=$MR_VAL
mr_check "JSON: request allocations grew by exactly 300 more ($a0 $a1 $a2)" \
    test $(((a2 - a1) - (a1 - a0))) = 300

mr_check "reap-status answers well-formed JSON" mr_json_valid
mr_check "JSON says reap-backed" mr_body_has '"reap_backed": true'
reaps=$(mr_json_total process reaps)
footprint=$(mr_json_total process footprint)
mr_check "JSON: the children's pool trees hold reaps ($reaps) and memory ($footprint)" \
    test "${reaps:-0}" -gt 2 -a "${footprint:-0}" -gt 0
base_held=$(mr_json_total base held)
base_in_use=$(mr_json_total base in_use)
mr_check "JSON: the base allocator holds at least what it hands out ($base_held >= $base_in_use), and that covers the pools ($footprint)" \
    test "${base_held:-0}" -ge "${base_in_use:-0}" -a "${base_in_use:-0}" -ge "${footprint:-1}"
lists=$(mr_json_total allocator_lists bytes)
parked=$(mr_json_total allocator_lists parked)
mr_check "JSON: the allocators' lists ($lists, $parked parked) are base memory ($base_in_use)" \
    test -n "$lists" -a -n "$parked" -a "${parked:-1}" -le "${lists:-0}" -a "${lists:-1}" -le "${base_in_use:-0}"
mr_check "JSON: top pools by tag include pconf" mr_body_has '"tag": "pconf"'
# Each child keeps 5 MiB the test module wrote (reap-test-keep, below).
mr_check "JSON: each child's RSS matches /proc, and holds the 5 MiB it wrote ($(mr_rss_report 5242880))" \
    mr_rss_ok 5242880

# mr_top_footprints <tag>: the footprint of each top_pools entry tagged
# <tag> in $MR_BODY, one per child that lists it, on one line.
mr_top_footprints() {
    printf '%s\n' "$MR_BODY" |
        sed -n "s|.*{\"tag\": \"$1\", \"footprint\": \([0-9][0-9]*\),.*|\1|p" |
        tr '\n' ' '
}
# mr_two_at_least <min> <n>...: exactly two numbers (one per child), both
# at least <min>.
mr_two_at_least() {
    min=$1
    shift
    [ $# = 2 ] && [ "$1" -ge "$min" ] && [ "$2" -ge "$min" ]
}
# mr_count_in_body <text>: lines of $MR_BODY holding <text>.
mr_count_in_body() {
    printf '%s\n' "$MR_BODY" | grep -c -- "$1"
}

# The test module's long-lived pools, made at child init in each child:
# "reap-test-keep" with 3 MiB and an untagged subpool of it with 2 MiB.
mr_check "JSON: each child's top list comes from walking every pool" \
    test "$(mr_count_in_body '"pools_source": "walk"')" = 2
mr_check "JSON: the walks were not capped" \
    test "$(mr_count_in_body '"pools_capped": false')" = 2
seen=$(printf '%s\n' "$MR_BODY" | sed -n 's/.*"pools_seen": \([0-9]*\).*/\1/p' | tr '\n' ' ')
mr_check "JSON: each walk saw more pools than the hooks track ($seen)" \
    mr_two_at_least 6 $seen
keep=$(mr_top_footprints reap-test-keep)
mr_check "JSON: each child lists the tagged pool reap-test-keep at >= 3 MiB ($keep)" \
    mr_two_at_least 3145728 $keep
keep_sub=$(mr_top_footprints reap-test-keep/sub)
mr_check "JSON: its untagged subpool shows as reap-test-keep/sub at >= 2 MiB ($keep_sub)" \
    mr_two_at_least 2097152 $keep_sub
mr_check "JSON lists both children" mr_body_has '"children": 2,'
mr_check "the requests above were served by both children" \
    test "$(sed -n 's/.* pid=//p' "$MR_ROOT/logs/access.log" | sort -u | wc -l)" = 2

# The same through mod_status's ?auto lines.
mr_poll_auto ReapRequestFrees; g0=$MR_VAL
mr_get "/test?n=100&size=500&free=0"
mr_poll_auto ReapRequestFrees; g1=$MR_VAL
mr_get "/test?n=100&size=500&free=70"
mr_poll_auto ReapRequestFrees; g2=$MR_VAL
mr_check "?auto: ReapRequestFrees grew by exactly 70 ($g0 $g1 $g2)" \
    test $(((g2 - g1) - (g1 - g0))) = 70
mr_check "?auto: ReapBacked: 1" test "$(mr_auto ReapBacked)" = 1
mr_check "?auto: ReapFootprint above 0" test "$(mr_auto ReapFootprint)" -gt 0
mr_check "?auto: ReapAllocatorListBytes ($(mr_auto ReapAllocatorListBytes))" \
    test -n "$(mr_auto ReapAllocatorListBytes)" -a -n "$(mr_auto ReapAllocatorListParkedBytes)"
mr_check "?auto: ReapRssBytes ($(mr_auto ReapRssBytes)) above ReapRssAnonBytes ($(mr_auto ReapRssAnonBytes)), which holds both children's 5 MiB" \
    test "$(mr_auto ReapRssBytes)" -ge "$(mr_auto ReapRssAnonBytes)" -a "$(mr_auto ReapRssAnonBytes)" -ge 10485760

# Peaks: 2000 objects of 8000 bytes (16 MB in all), freed one by one or not.
mr_get "/test?n=2000&size=8000&free=2000&mode=loop"
mr_check "alloc/free loop answered 200" test "$MR_STATUS" = 200
mr_get "/test?n=2000&size=8000&free=0&mode=loop"
mr_check "alloc loop answered 200" test "$MR_STATUS" = 200
mr_wait_logged
with=$(mr_peak_of "/test?n=2000&size=8000&free=2000&mode=loop")
without=$(mr_peak_of "/test?n=2000&size=8000&free=0&mode=loop")
mr_check "reap-peak with ap_pfree stays under 1 MiB ($with)" \
    test "${with:-x}" -lt 1048576
mr_check "reap-peak without ap_pfree holds all 16 MB ($without)" \
    test "${without:-0}" -ge 16000000
mr_poll_json peak_max; peak_max=$MR_VAL
mr_check "JSON: largest request peak at least 16 MB ($peak_max)" \
    test "${peak_max:-0}" -ge 16000000

# ReapRequestLimit 1M on /limited.
children_before=$(pgrep -P "$(cat "$MR_ROOT/run/httpd.pid")" | sort | tr '\n' ' ')
mr_get "/limited?total=65536"
mr_check "a request under the limit succeeds" test "$MR_STATUS" = 200
mr_get "/limited?total=67108864"
mr_check "the request over ReapRequestLimit gets 500" test "$MR_STATUS" = 500
mr_check "its body names ReapRequestLimit" mr_body_has 'ReapRequestLimit'
mr_get "/test?n=10&size=100&free=5"
mr_check "the next request succeeds" test "$MR_STATUS" = 200
mr_get "/limited?total=65536"
mr_check "the next request under the limit succeeds" test "$MR_STATUS" = 200
mr_wait_logged
mr_check "one log line for the stopped request" \
    test "$(mr_count_log 'request stopped: its pool passed ReapRequestLimit')" = 1
mr_poll_json limited; limited=$MR_VAL
mr_check "JSON counts one limited request ($limited)" test "$limited" = 1
children_after=$(pgrep -P "$(cat "$MR_ROOT/run/httpd.pid")" | sort | tr '\n' ' ')
mr_check "the same children still serve ($children_before= $children_after)" \
    test "$children_before" = "$children_after"

mr_get /reap-status -H "Accept: text/html"
mr_check "reap-status HTML for Accept: text/html" mr_body_has '<table'
for accept in text/html application/json; do
    vary=$(curl -s -o /dev/null -D - -H "Accept: $accept" \
        "http://127.0.0.1:$MR_PORT/reap-status" | tr -d '\r' | sed -n 's/^[Vv]ary: //p')
    MR_SENT=$((MR_SENT + 1))
    mr_check "reap-status for Accept: $accept says Vary: Accept ($vary)" \
        test "$vary" = Accept
done
mr_get /server-status
mr_check "/server-status has the mod_reap section" \
    mr_body_has 'Reap memory (mod_reap)'
# A graceful restart reloads mod_reap (new address, new shared memory): the
# test module's cached ap_pfree entry point must follow, and the figures
# start again from zero.
mr_check "graceful restart" mr_restart ""
mr_get "/test?n=100&size=1000&free=100"
mr_check "ap_pfree works after the restart" mr_body_has 'pfree_works=1'
mr_poll_json frees
mr_check "JSON counts the 101 frees made since the restart ($MR_VAL)" \
    test "${MR_VAL:-0}" -ge 101 -a "${MR_VAL:-0}" -lt 200
mr_check "the start-up line was not repeated by the restart" \
    test "$(mr_count_log 'mod_reap: libreap .* is reap-backed')" = 1
mr_check "the start-up line says the largest pools come from the walk" \
    test "$(mr_count_log 'largest pools found by walking every pool')" = 1

# ReapPoolWalk Off: the top list falls back to the pools met through hooks.
mr_check "graceful restart with ReapPoolWalk Off" mr_restart "ReapPoolWalk Off"
mr_get "/test?n=100&size=1000&free=100"
mr_wait_logged
mr_get /reap-status
mr_check "ReapPoolWalk Off: JSON says the pools come from hooks" \
    test "$(mr_count_in_body '"pools_source": "hooks"')" -ge 1 -a \
         "$(mr_count_in_body '"pools_source": "walk"')" = 0
mr_check "ReapPoolWalk Off: pchild is still listed" mr_body_has '"tag": "pchild"'
mr_check "ReapPoolWalk Off: the pool no hook sees is not ($(mr_top_footprints reap-test-keep))" \
    test -z "$(mr_top_footprints reap-test-keep)"
mr_check "no child crashed" test "$(mr_count_log 'exit signal')" = 0
mr_stop_server
mr_check "the error log holds nothing above notice but the stopped request" \
    mr_log_clean 'request stopped: its pool passed ReapRequestLimit'
mr_finish
