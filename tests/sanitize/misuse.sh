#!/bin/sh
# misuse.sh - runs every case of tests/sanitize/misuse and checks that the
# tool libreap was annotated for reports it: under ASan, a use-after-poison
# (or heap-use-after-free / heap-buffer-overflow) report naming the address
# the case printed, and a non-zero exit; under Valgrind memcheck, an
# "Invalid read" or "Invalid write" at that address and valgrind's error
# exit code.  `misuse clean' must run without any report.  Prints one line
# per case and fails if any case was missed.
#
# Usable from `make check' (cwd = build dir) or by hand:
#   tests/sanitize/misuse.sh [path/to/misuse]
# A build without annotations (misuse --tool says "none") is an error, not
# a skip: local.mk adds this test only to ASan and Valgrind builds.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

prog=${1:-./tests/sanitize/misuse}
tool=$("$prog" --tool) || { echo "misuse.sh: cannot run $prog" >&2; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/reap-misuse.XXXXXX")
trap 'rm -rf "$out"' EXIT

case $tool in
asan)
    # halt at the first report; leaks are not what these cases are about
    run() { ASAN_OPTIONS="halt_on_error=1:detect_leaks=0:abort_on_error=0:${ASAN_OPTIONS:-}" "$prog" "$@"; }
    pattern='AddressSanitizer: (use-after-poison|heap-use-after-free|heap-buffer-overflow)'
    ;;
valgrind)
    vg=${VALGRIND:-valgrind}
    command -v "$vg" >/dev/null 2>&1 || { echo "misuse.sh: valgrind not found" >&2; exit 1; }
    run() { "$vg" -q --error-exitcode=99 --leak-check=no "$prog" "$@"; }
    pattern='Invalid (read|write) of size'
    ;;
*)
    echo "misuse.sh: $prog has no annotations (tool '$tool'); configure with" \
         "--enable-sanitizers=address,undefined or --enable-valgrind" >&2
    exit 1
    ;;
esac

failed=0
caught=0
run clean >"$out/stdout" 2>"$out/stderr"
rc=$?
if [ $rc -ne 0 ] || ! grep -q '^clean$' "$out/stdout" || grep -Eq 'AddressSanitizer|Invalid (read|write)|Conditional jump' "$out/stderr"; then
    echo "FAIL clean: exit $rc, report:"; sed 's/^/    /' "$out/stderr" | head -40
    failed=$((failed + 1))
else
    echo "ok   clean (no report)"
fi

for c in $("$prog" --list); do
    run "$c" >"$out/stdout" 2>"$out/stderr"
    rc=$?
    addr=$(head -n 1 "$out/stdout" | sed 's/^0x//')
    if [ $rc -eq 0 ]; then
        why="exit status 0"
    elif ! grep -Eq "$pattern" "$out/stderr"; then
        why="no '$pattern' report"
    elif [ -z "$addr" ] || ! grep -iq "$addr" "$out/stderr"; then
        why="report does not name address 0x$addr"
    else
        echo "ok   $c ($(grep -Eo "$pattern" "$out/stderr" | head -n 1), exit $rc)"
        caught=$((caught + 1))
        continue
    fi
    echo "FAIL $c: $why; stderr:"; sed 's/^/    /' "$out/stderr" | head -30
    failed=$((failed + 1))
done
echo "misuse.sh ($tool): $caught cases caught, $failed failed"
[ $failed -eq 0 ]
