#!/bin/sh
# test_mod_reap_limit.sh - ReapRequestLimit in the configurations mod_reap
# handles beyond the plain one (test_mod_reap_reap.sh has that), on the
# reap-backed APR under a daemonized apache2:
# - the limit passed after the response has begun: the client must see a
#   broken response, neither the terminating chunk nor the full
#   Content-Length (curl exits 18), not a truncated 200 it would take for
#   complete;
# - after an internal redirect: into a limited location, and out of one
#   (the outer handler's limit holds for the request it redirected to);
# - with an ErrorDocument 500: the administrator's page is the answer;
# - in a subrequest of a limited request;
# - a server-wide limit, and a per-location ReapRequestLimit 0 lifting it.
# Each stopped request is one log line and one count in the JSON, the
# children live on, and the next request on a new connection is served.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
MR_APR_LIB=${MR_APR_LIB:-}
. "$(dirname "$0")/httpd_lib.sh"
mr_need_reap_apr "mod_reap's ReapRequestLimit tests"

BIG=67108864    # 64 MiB: far over every limit below (1 MiB)

mr_site_limit() {
    mr_site_reap_test
    cat <<EOF
<Location /redirect>
    SetHandler reap-test-redirect
</Location>
<Location /redirect-limited>
    SetHandler reap-test-redirect
    ReapRequestLimit 1M
</Location>
<Location /subreq-limited>
    SetHandler reap-test-subreq
    ReapRequestLimit 1M
</Location>
<Location /limited-errdoc>
    SetHandler reap-test-hog
    ReapRequestLimit 1M
    ErrorDocument 500 /oops.txt
</Location>
<Location /unlimited>
    SetHandler reap-test-hog
    ReapRequestLimit 0
</Location>
EOF
}
MR_SITE=mr_site_limit
mr_start
echo "the administrator's own error page" >"$MR_ROOT/htdocs/oops.txt"
children=$(mr_children)

# mr_fetch <path>: GET it with curl; status into MR_STATUS, curl's exit
# code into MR_CURL, headers into MR_HEADERS, body into MR_BODY.
mr_fetch() {
    MR_CURL=0
    MR_STATUS=$(curl -s -o "$MR_ROOT/body" -D "$MR_ROOT/headers" \
        -w '%{http_code}' "http://127.0.0.1:$MR_PORT$1") || MR_CURL=$?
    MR_HEADERS=$(cat "$MR_ROOT/headers")
    MR_BODY=$(cat "$MR_ROOT/body")
    MR_SENT=$((MR_SENT + 1))
}

mr_stopped=0
# mr_stopped_check <what>: one more "request stopped" line in the log.
mr_stopped_check() {
    mr_stopped=$((mr_stopped + 1))
    mr_wait_logged
    mr_check "$1: one log line for it ($(mr_count_log 'request stopped'))" \
        test "$(mr_count_log 'request stopped: its pool passed ReapRequestLimit')" = $mr_stopped
}

# The plain case, as a reference for the rest.
mr_fetch "/limited?total=$BIG"
mr_check "before the response: 500" test "$MR_STATUS" = 500
mr_check "before the response: the body names ReapRequestLimit" \
    mr_body_has 'ReapRequestLimit allows (1048576 bytes)'
mr_stopped_check "before the response"

# After the body has begun, chunked and with a Content-Length.
mr_fetch "/limited?total=$BIG&flush=20000"
mr_check "mid-response, chunked: the status line said 200" test "$MR_STATUS" = 200
mr_check "mid-response, chunked: the response was chunked" \
    eval 'printf "%s\n" "$MR_HEADERS" | grep -qi "^Transfer-Encoding: chunked"'
mr_check "mid-response, chunked: curl sees it cut short (exit $MR_CURL, 18 expected)" \
    test "$MR_CURL" = 18
mr_check "mid-response, chunked: what was flushed arrived" \
    mr_body_has 'reap-test hog begins'
mr_stopped_check "mid-response, chunked"
mr_fetch "/limited?total=$BIG&flush=20000&length=1000000"
mr_check "mid-response, Content-Length: the status line said 200" test "$MR_STATUS" = 200
mr_check "mid-response, Content-Length: it promised 1000000 bytes" \
    eval 'printf "%s\n" "$MR_HEADERS" | grep -qi "^Content-Length: 1000000"'
mr_check "mid-response, Content-Length: curl sees it cut short (exit $MR_CURL)" \
    test "$MR_CURL" = 18
got=$(wc -c <"$MR_ROOT/body")
mr_check "mid-response, Content-Length: fewer bytes than promised ($got)" \
    test "$got" -lt 1000000
mr_stopped_check "mid-response, Content-Length"

# Internal redirects, into and out of a limited location.
mr_fetch "/redirect?to=/limited?total=$BIG"
mr_check "redirected into a limit: 500" test "$MR_STATUS" = 500
mr_check "redirected into a limit: the body names ReapRequestLimit" \
    mr_body_has 'ReapRequestLimit'
mr_stopped_check "redirected into a limit"
mr_fetch "/redirect-limited?to=/hog?total=$BIG"
mr_check "redirected out of a limit: the outer limit holds, 500" \
    test "$MR_STATUS" = 500
mr_check "redirected out of a limit: the body names ReapRequestLimit" \
    mr_body_has 'ReapRequestLimit'
mr_stopped_check "redirected out of a limit"
mr_fetch "/redirect-limited?to=/hog?total=$BIG&flush=100"
mr_check "redirected out of a limit, mid-response: cut short (status $MR_STATUS, curl $MR_CURL)" \
    test "$MR_STATUS" = 200 -a "$MR_CURL" = 18
mr_stopped_check "redirected out of a limit, mid-response"
mr_fetch "/redirect-limited?to=/hog?total=65536"
mr_check "redirected out of a limit, under it: 200" test "$MR_STATUS" = 200

# ErrorDocument 500.
mr_fetch "/limited-errdoc?total=$BIG"
mr_check "ErrorDocument: 500" test "$MR_STATUS" = 500
mr_check "ErrorDocument: the administrator's page is the body" \
    test "$MR_BODY" = "the administrator's own error page"
mr_stopped_check "ErrorDocument"

# A subrequest of a limited request.
mr_fetch "/subreq-limited?to=/hog?total=$BIG"
mr_check "subrequest: 500" test "$MR_STATUS" = 500
mr_stopped_check "subrequest"
mr_fetch "/subreq-limited?to=/hog?total=65536"
mr_check "subrequest under the limit: 200 with its output" \
    test "$MR_STATUS" = 200 -a -n "$(printf '%s' "$MR_BODY" | grep 'reap-test hog')"

mr_fetch "/test?n=10&size=100&free=5"
mr_check "the next request is served" test "$MR_STATUS" = 200
mr_wait_logged
mr_get /reap-status
mr_check "JSON counts each stopped request once ($(mr_json_total requests limited))" \
    test "$(mr_json_total requests limited)" = $mr_stopped
mr_check "the same children serve ($children= $(mr_children))" \
    test "$children" = "$(mr_children)"

# A server-wide limit, lifted per location with ReapRequestLimit 0.
mr_check "graceful restart with ReapRequestLimit 1M server-wide" \
    mr_restart "ReapRequestLimit 1M"
mr_fetch "/hog?total=$BIG"
mr_check "server-wide: a location without its own limit gets it, 500" \
    test "$MR_STATUS" = 500
mr_stopped_check "server-wide"
mr_fetch "/unlimited?total=8388608"
mr_check "server-wide: ReapRequestLimit 0 in a location lifts it, 200" \
    test "$MR_STATUS" = 200
mr_check "server-wide: ... and the hog ran to the end" \
    mr_body_has 'total=8388608'

mr_check "no child crashed" test "$(mr_count_log 'exit signal')" = 0
mr_stop_server
mr_check "the error log holds nothing above notice but the stopped requests" \
    mr_log_clean 'request stopped: its pool passed ReapRequestLimit'
mr_finish
