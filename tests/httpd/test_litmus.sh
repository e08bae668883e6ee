#!/bin/bash
# test_litmus.sh - the WebDAV protocol suite litmus (Debian package litmus)
# against our mod_dav_fs (httpd-patch/, built into
# <build>/httpd-modules/lib) and against Debian's, in Debian's apache2.
#
# Three servers, one after the other, each on a fresh collection:
#   debian  Debian's APR and Debian's mod_dav_fs (Debian as installed)
#   ours    the reap-backed APR, our mod_dav_fs, mod_reap
#   stock   Debian's APR, our mod_dav_fs (ap_pfree does nothing there)
# litmus runs all its suites (basic, copymove, props, locks, http) on
# each.  Checked: every test litmus ran has on ours and on stock the
# result it has on Debian's (pass, FAIL, WARNING, SKIPPED), test for test;
# Debian's own run passed its basic suite (so the comparison compared
# something); no child crashed.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
MR_APR_LIB=${MR_APR_LIB:-}
. "$(dirname "$0")/httpd_lib.sh"
mr_need_reap_apr "the litmus comparison"
REAP_APR=$MR_APR_LIB
OURS=$MR_BUILDDIR/httpd-modules/lib
[ -f "$OURS/mod_dav_fs.so" ] || mr_fatal "no $OURS/mod_dav_fs.so (make httpd-modules)"
LITMUS=${LITMUS:-/usr/bin/litmus}
if [ ! -x "$LITMUS" ]; then
    echo "######################################################################"
    echo "# SKIPPED: no $LITMUS (Debian package litmus; ./quickstart installs it)"
    echo "######################################################################"
    exit 77
fi
MR_SERVERS=1
MR_THREADS=4

T=$(mktemp -d /tmp/reap-litmus.XXXXXX)
cleanup_push "rm -rf '$T'"
chmod 755 "$T"

site() {
    [ "$SIDE" = ours ] && echo "LoadModule reap_module $MR_MOD_REAP"
    cat <<EOF
LoadModule alias_module $MR_MODDIR/mod_alias.so
LoadModule dav_module $MR_MODDIR/mod_dav.so
LoadModule dav_fs_module $MODS/mod_dav_fs.so
DavLockDB "$T/lock/davlock"
Alias /dav "$T/dav"
<Directory "$T/dav">
    Require all granted
    Dav On
</Directory>
EOF
}
MR_SITE=site
MR_NEED=$MR_MOD_REAP

# run_side <side> <modules dir> <APR lib or "">: litmus against a fresh
# server; its "name... result" lines into $T/<side>.results.
run_side() {
    SIDE=$1 MODS=$2 MR_APR_LIB=$3
    rm -rf "$T/dav" "$T/lock"
    mkdir -p "$T/dav" "$T/lock"
    chown www-data:www-data "$T/dav" "$T/lock" 2>/dev/null || chmod 777 "$T/dav" "$T/lock"
    mr_start
    # litmus's own exit status is 1 when a test fails, on every side alike
    # (litmus reads its list of suites from TESTS, which make check sets)
    (cd "$T" && HOME=$T TESTS="basic copymove props locks http" \
        "$LITMUS" "http://127.0.0.1:$MR_PORT/dav/" >"$T/$SIDE.out" 2>&1) || true
    # " 3. put_get............... pass": the test's name and its result
    # (litmus redraws each line after a carriage return)
    tr '\r' '\n' <"$T/$SIDE.out" |
        sed -n 's/^ *\([0-9]*\)\. \([a-z_0-9]*\)\.* \(pass\|FAIL\|WARNING\|SKIPPED\).*/\1 \2 \3/p' \
            >"$T/$SIDE.results"
    sed -n 's/^<- summary for `\([a-z]*\)'"'"': \(.*\)/# '"$SIDE"' \1: \2/p' "$T/$SIDE.out"
    [ -s "$T/$SIDE.results" ] || { mr_say "# litmus said:"; head -20 "$T/$SIDE.out" | sed 's/^/#   /'; }
    mr_check "$SIDE: no child crashed" eval "! grep -q 'exit signal' '$MR_ROOT/logs/error.log'"
    mr_stop
}

run_side debian "$MR_MODDIR" ""
run_side ours "$OURS" "$REAP_APR"
run_side stock "$OURS" ""

mr_check "litmus ran on Debian's module ($(wc -l <"$T/debian.results") tests)" \
    test "$(wc -l <"$T/debian.results")" -ge 50
mr_check "Debian's module passed litmus's basic suite" \
    grep -q "summary for .basic.: of [1-9][0-9]* tests run: [0-9]* passed, 0 failed" "$T/debian.out"
for s in ours stock; do
    mr_check "$s: every litmus test has Debian's result" cmp -s "$T/debian.results" "$T/$s.results"
    cmp -s "$T/debian.results" "$T/$s.results" || diff "$T/debian.results" "$T/$s.results" | head -10 | sed 's/^/#   /'
done
mr_finish
