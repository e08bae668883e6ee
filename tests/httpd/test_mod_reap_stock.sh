#!/bin/sh
# test_mod_reap_stock.sh - mod_reap on Debian's stock libapr: the module
# loads, says once that the APR is not reap-backed, ap_pfree() is a no-op
# (the test module still runs and answers), ReapRequestLimit cannot bite,
# and the figures pages (reap-status JSON and HTML, /server-status and its
# ?auto form) answer with the request counts of every child.  With no
# apr_pool_walk and no reaps, the largest-pools list says it has no source
# ("pools_source": "none") and lists nothing.  A child busy with one long
# request shows its RSS as it is now, read by the child that answers.
#
# Run by `make check-httpd` from the top build directory (MR_BUILDDIR defaults to
# the current directory).

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
MR_APR_LIB=
. "$(dirname "$0")/httpd_lib.sh"

mr_start

mr_check "the children run on Debian's libapr-1" mr_libapr_under /usr/lib
mr_check "start-up warning logged once" \
    test "$(mr_count_log 'mod_reap: libreap .* is NOT reap-backed')" = 1
mr_check "the warning says ReapRequestLimit has no effect" \
    test "$(mr_count_log 'ReapRequestLimit has no effect')" = 1

# The test module allocates and frees; ap_pfree must be a harmless no-op.
mr_get "/test?n=100&size=1000&free=60"
mr_check "batch alloc/free request answered 200" test "$MR_STATUS" = 200
mr_check "the test module sees ap_pfree() as a no-op" \
    mr_body_has 'freed=61 .*pfree_works=0'
mr_get "/test?n=2000&size=4000&free=2000&mode=loop"
mr_check "loop alloc/free request answered 200" test "$MR_STATUS" = 200

# No reap, so no limit: the hog under ReapRequestLimit 1M gets through.
mr_get "/limited?total=8388608"
mr_check "ReapRequestLimit does not bite on stock APR" test "$MR_STATUS" = 200

mr_check "all requests logged" mr_wait_logged
logged=$MR_SENT
mr_get /reap-status
mr_check "reap-status answers 200" test "$MR_STATUS" = 200
mr_check "reap-status answers well-formed JSON" mr_json_valid
mr_check "reap-status JSON has no process figures without reaps" \
    mr_body_has '"process": null'
mr_check "reap-status JSON says not reap-backed" \
    mr_body_has '"reap_backed": false'
mr_check "reap-status JSON: no allocator lists to read on stock APR" \
    mr_body_has '"allocator_lists": null'
count=$(mr_json_total requests count)
mr_check "JSON counts every finished request of all children ($count = $logged)" \
    test "$count" = "$logged"
mr_check "JSON: no frees without reaps" \
    test "$(mr_json_total requests frees)" = 0
mr_check "JSON lists children" \
    mr_body_has '"pid": [0-9]'
mr_check "JSON: each child's RSS matches /proc on stock APR too ($(mr_rss_report 5242880))" \
    mr_rss_ok 5242880
mr_check "JSON: no source of pools on stock APR" \
    mr_body_has '"pools_source": "none", "pools_seen": 0'
mr_check "JSON: no pools listed on stock APR" \
    test "$(printf '%s\n' "$MR_BODY" | grep -c '"top_pools": \[\]')" -ge 1
mr_check "JSON: no walk on stock APR" \
    test "$(printf '%s\n' "$MR_BODY" | grep -c '"pools_source": "walk"\|"tag":')" = 0

mr_get /reap-status -X POST
mr_check "reap-status refuses POST with 405" test "$MR_STATUS" = 405
mr_get "/test?n=12x"
mr_check "the test module answers bad arguments with 400" test "$MR_STATUS" = 400

mr_get /reap-status -H "Accept: text/html"
mr_check "reap-status HTML for Accept: text/html" \
    mr_body_has '<table'

mr_check "all requests logged" mr_wait_logged
logged=$MR_SENT
mr_get "/server-status?auto"
mr_check "?auto answers 200" test "$MR_STATUS" = 200
mr_check "?auto: ReapBacked: 0" test "$(mr_auto ReapBacked)" = 0
mr_check "?auto: ReapRequestCount counts every request ($(mr_auto ReapRequestCount) = $logged)" \
    test "$(mr_auto ReapRequestCount)" = "$logged"
mr_get /server-status
mr_check "/server-status has the mod_reap section" \
    mr_body_has 'Reap memory (mod_reap)'

mr_check "all requests logged" mr_wait_logged
# Bad configuration gets a clear error from `apache2 -t`.
mr_config_test "ReapRequestLimit 12Q" && bad=0 || bad=1
mr_check "apache2 -t refuses ReapRequestLimit 12Q" test $bad = 1
mr_check "... saying it is not a size" mr_body_has "ReapRequestLimit: '12Q' is not a size"
mr_config_test "ReapRequestLimit 99999999999G" && bad=0 || bad=1
mr_check "apache2 -t refuses a size that overflows" test $bad = 1
mr_check "... saying it is too large" mr_body_has "too large"
mr_config_test "<VirtualHost 127.0.0.1:1>
ReapStatus Off
</VirtualHost>" && bad=0 || bad=1
mr_check "apache2 -t refuses ReapStatus inside <VirtualHost>" test $bad = 1
mr_config_test "ReapRequestLimit 512k" && bad=0 || bad=1
mr_check "apache2 -t accepts ReapRequestLimit 512k" test $bad = 0

mr_check "no reap-peak note on stock APR" \
    test "$(mr_peak_of '/test?n=100&size=1000&free=60')" = "-"
# ReapStatus Off, through a graceful restart (new shared memory, modules
# reloaded): no figures anywhere, ap_pfree still harmless.
mr_check "graceful restart with ReapStatus Off" mr_restart "ReapStatus Off"
mr_get /reap-status
mr_check "reap-status answers 404 with ReapStatus Off" test "$MR_STATUS" = 404
mr_get "/server-status?auto"
mr_check "?auto has no Reap lines with ReapStatus Off" \
    test "$(printf '%s\n' "$MR_BODY" | grep -c '^Reap')" = 0
mr_get "/test?n=100&size=1000&free=60"
mr_check "the test module still runs after the restart" test "$MR_STATUS" = 200
mr_check "the start-up warning was not repeated by the restart" \
    test "$(mr_count_log 'mod_reap: libreap .* is NOT reap-backed')" = 1
mr_check "no child crashed" \
    test "$(mr_count_log 'exit signal')" = 0
mr_stop_server
mr_check "the error log holds nothing above notice but the start-up warning and the bad argument" \
    mr_log_clean 'mod_reap: libreap .* is NOT reap-backed' "mod_reap_test: bad argument 'n'"

# A child busy with one long request takes no snapshot on stock APR (no
# request ends there, and there is no idle thread), yet /reap-status must
# show its RSS as it is now.  Two children of one thread each: while one
# holds 48 MiB in its only request, the other answers the status.
MR_SERVERS=2 MR_THREADS=1
mr_start
hog_out=$MR_ROOT/hog.out
curl -s -o "$hog_out" "http://127.0.0.1:$MR_PORT/hog?total=50331648&flush=64&hold=4000" &
hog_curl=$!
cleanup_push "kill $hog_curl 2>/dev/null"
hog_pid= i=0
while [ -z "$hog_pid" ] && [ $i -lt 50 ]; do # the child that holds the memory
    sleep 0.1
    i=$((i + 1))
    for p in $(mr_children); do
        mr_proc_mem "$p"
        [ "$MR_RSS" -gt 49152 ] && hog_pid=$p
    done
done
mr_check "the hog's child holds its 48 MiB (pid ${hog_pid:-none})" test -n "$hog_pid"
mr_get /reap-status
kill -0 $hog_curl 2>/dev/null && held=1 || held=0
reported=$(printf '%s\n' "$MR_BODY" | awk -v pid="$hog_pid" '
    /^    {"pid": / { split($0, f, /[ ,]+/); this = f[3] }
    /"rss": {"bytes": / && this == pid { match($0, /"rss": {"bytes": [0-9]+/); print substr($0, RSTART + 17, RLENGTH - 17); exit }')
mr_check "the other child answered the status while the hog's request ran" test $held = 1
mr_check "reap-status shows the busy child's RSS now, not at its last snapshot (${reported:-none} bytes)" \
    test "${reported:-0}" -gt 50331648
mr_check "... and every child's within a factor of two of /proc ($(mr_rss_report 0))" mr_rss_ok 0
wait $hog_curl
mr_check "the hog's request ended well" grep -q 'reap-test hog n=' "$hog_out"
mr_stop_server
mr_check "the second server's error log holds nothing above notice but the start-up warning" \
    mr_log_clean 'mod_reap: libreap .* is NOT reap-backed'
mr_finish
