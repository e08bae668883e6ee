#!/bin/sh
# test_mod_reap_misuse.sh - a module that misuses ap_pfree() under a
# daemonized apache2 (apache2 -k start) on the reap-backed APR: every misuse
# is one line in the error log, through httpd's own logging, that names what
# was done, the pointer, the pool (its tag, or an untagged pool's nearest
# tagged ancestor), the request and the module's file, and then:
# - ReapMisuse abort (the default): the child aborts after the line, and
#   the next request is served;
# - ReapMisuse leak: the line is at level error, the request is answered,
#   the child lives on;
# - no request current (the test module's child init): the line names the
#   pool and says nothing of a request.
# The test module (mod_reap_test.c, handler reap-test-misuse) logs the
# pointer it is about to misuse in a notice line, so the checks compare
# mod_reap's report with what was really passed, not with mod_reap's own
# view.
#
# Needs the reap-backed APR, as test_mod_reap_reap.sh (skipped, loudly, when
# it is missing).

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
MR_APR_LIB=${MR_APR_LIB:-}
. "$(dirname "$0")/httpd_lib.sh"
mr_need_reap_apr "mod_reap's misuse tests"

# The aborted children must not leave core files behind.
ulimit -c 0 2>/dev/null || true

mr_site_misuse() {
    mr_site_reap_test
    cat <<EOF
<Location /misuse>
    SetHandler reap-test-misuse
</Location>
EOF
}
MR_SITE=mr_site_misuse
mr_start

mr_check "the children run on the reap-backed libapr-1" \
    mr_libapr_under "$MR_APR_LIB"

# mr_wait_count <ERE> <n>: wait until the error log has at least <n> lines
# matching <ERE>.
mr_wait_count() {
    i=0
    while [ "$(grep -Ec -- "$1" "$MR_ROOT/logs/error.log")" -lt "$2" ]; do
        [ $i -lt 100 ] || return 1
        sleep 0.1
        i=$((i + 1))
    done
}

# mr_last <ERE>: the last error log line matching <ERE>.
mr_last() {
    grep -E -- "$1" "$MR_ROOT/logs/error.log" | tail -1
}

# mr_has <line> <fixed string>: the line holds the string.
mr_has() {
    case $1 in
    *"$2"*) return 0 ;;
    esac
    mr_say "# not in the line: $2"
    mr_say "#   $1"
    return 1
}

# mr_misuse_abort <kind> <what libreap says> <pool text>: under ReapMisuse
# abort, GET /misuse?kind=<kind> gets no answer, the log's report names
# everything, the child is gone and the next request is served.
mr_misuse_abort() {
    kind=$1 what=$2 pool_text=$3
    reports=$(mr_count_log 'mod_reap: ')
    deaths=$(mr_count_log 'exit signal Abort')
    mr_get "/misuse?kind=$kind"
    mr_check "$kind: the request gets no answer (status $MR_STATUS)" \
        test "$MR_STATUS" = 000
    mr_check "$kind: the parent sees the child abort" \
        mr_wait_count 'exit signal Abort' $((deaths + 1))
    mr_check "$kind: exactly one report" \
        test "$(mr_count_log 'mod_reap: ')" = $((reports + 1))
    line=$(mr_last "mod_reap: $what")
    ptr=$(mr_last 'mod_reap_test: .*freeing 0x' |
        sed -n 's/.*freeing \(0x[0-9a-f]*\).*/\1/p')
    mr_check "$kind: the report is one line of httpd's at level crit" \
        mr_has "$line" '[reap:crit]'
    mr_check "$kind: it names the pointer the module passed (${ptr:-none})" \
        mr_has "$line" "$what ${ptr:-none} in "
    mr_check "$kind: it names the pool" mr_has "$line" "$pool_text"
    mr_check "$kind: it names the request" \
        mr_has "$line" "during \"GET /misuse?kind=$kind\" (handler reap-test-misuse)"
    mr_check "$kind: it names the module's file" \
        mr_has "$line" "by $MR_MOD_TEST_REAL+0x"
    mr_check "$kind: it says the child aborts" \
        mr_has "$line" 'aborting the process (ReapMisuse abort)'
    mr_check "$kind: the report comes before the child's death" \
        test "$(grep -n -e "mod_reap: $what" -e 'exit signal Abort' \
            "$MR_ROOT/logs/error.log" | tail -2 | head -1 | grep -c 'mod_reap: ')" = 1
    mr_get "/test?n=10&size=100&free=5"
    mr_check "$kind: the next request is served" test "$MR_STATUS" = 200
}
MR_MOD_TEST_REAL=$(readlink -f "$MR_MOD_TEST")

mr_misuse_abort double 'double free of' 'in pool "request" (0x'
request_pool=$(mr_last 'mod_reap_test: request: freeing' |
    sed -n 's/.* of pool \(0x[0-9a-f]*\) twice.*/\1/p')
mr_check "double: the pool named is the request pool the module used" \
    mr_has "$(mr_last 'mod_reap: double free of')" "in pool \"request\" (${request_pool:-none})"
mr_misuse_abort double-sub 'double free of' 'in untagged pool 0x'
mr_check "double-sub: the untagged subpool is named under \"request\"" \
    mr_has "$(mr_last 'mod_reap: double free of')" 'under "request"'
mr_misuse_abort foreign 'free of a pointer this reap did not hand out:' \
    'in pool "request" (0x'
mr_misuse_abort interior 'free of a pointer this reap did not hand out:' \
    'in pool "request" (0x'

# ReapMisuse leak: logged at level error, answered, nobody dies.
mr_check "graceful restart with ReapMisuse leak" mr_restart "ReapMisuse leak"
deaths=$(mr_count_log 'exit signal')
children=$(mr_children)
for kind in double foreign; do
    reports=$(mr_count_log 'mod_reap: ')
    mr_get "/misuse?kind=$kind"
    mr_check "leak, $kind: answered 200" test "$MR_STATUS" = 200
    mr_check "leak, $kind: the module went on" mr_body_has 'still here'
    mr_check "leak, $kind: exactly one report" \
        test "$(mr_count_log 'mod_reap: ')" = $((reports + 1))
    line=$(mr_last 'mod_reap: ')
    mr_check "leak, $kind: the report is at level error" mr_has "$line" '[reap:error]'
    mr_check "leak, $kind: it says the object is left to its pool" \
        mr_has "$line" 'the object is left to its pool (ReapMisuse leak)'
    mr_check "leak, $kind: it names the request" \
        mr_has "$line" "during \"GET /misuse?kind=$kind\""
done
mr_get "/test?n=100&size=1000&free=100"
mr_check "leak: the next request is served" test "$MR_STATUS" = 200
mr_check "leak: no child died" test "$(mr_count_log 'exit signal')" = "$deaths"
mr_check "leak: the same children serve ($children= $(mr_children))" \
    test "$children" = "$(mr_children)"

# No request current: the test module's child init misuses a pool.
mr_check "graceful restart with a misuse at child init" \
    mr_restart "ReapMisuse leak
ReapTestChildInitMisuse On"
mr_check "the new child reports its misuse at child init" \
    mr_wait_count 'mod_reap: double free of .* untagged pool .* under "reap-test-keep"' 1
line=$(mr_last 'mod_reap: double free of .* under "reap-test-keep"')
mr_check "child init: the report names no request" \
    test "$(printf '%s\n' "$line" | grep -c 'during ')" = 0
mr_check "child init: it names the module's file" \
    mr_has "$line" "by $MR_MOD_TEST_REAL+0x"
mr_check "child init: the pointer is the one the module passed" \
    mr_has "$line" "double free of $(mr_last 'mod_reap_test: child init: freeing' |
        sed -n 's/.*freeing \(0x[0-9a-f]*\).*/\1/p') in "
mr_get "/test?n=10&size=100&free=5"
mr_check "child init: the children serve" test "$MR_STATUS" = 200

mr_check "ReapMisuse refuses other words" \
    eval '! mr_config_test "ReapMisuse sometimes"'
mr_check "... and says what it takes" mr_body_has 'neither abort nor leak'

mr_stop_server
mr_check "the error log holds nothing above notice but the misuse reports and deaths" \
    mr_log_clean '\[reap:(crit|error)\] .*mod_reap: (double free of|free of a pointer this reap did not hand out:) 0x' \
        'exit signal Abort'
mr_finish
