#!/bin/sh
# tsan.sh - builds the base allocator's stress test (test_stress.c) with
# ThreadSanitizer and runs it; any data race report fails the test.
# Usable from `make check' (cwd = build dir, $srcdir set) or by hand.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -e
src=${srcdir:-$(dirname "$0")/../..}
cc=${TSAN_CC:-gcc}
out=$(mktemp -d "${TMPDIR:-/tmp}/reap-tsan.XXXXXX")
trap 'rm -rf "$out"' EXIT
if ! echo 'int main(void){return 0;}' | $cc -fsanitize=thread -x c - -o "$out/probe" 2>/dev/null ||
   ! "$out/probe" >/dev/null 2>&1; then
    echo "tsan.sh: $cc cannot build or run ThreadSanitizer programs here" >&2
    exit 77 # automake's SKIP: the toolchain, not the allocator, is missing
fi
$cc -std=gnu11 -O1 -g -fsanitize=thread -pthread -DSTRESS_SCALE=4 \
    -I"$src/libreap/src" -I"$src/libreap/include" \
    -o "$out/test_stress" "$src/tests/base/test_stress.c" \
    $(ls "$src"/libreap/src/base/*.c | grep -v '/malloc\.c$') "$src/libreap/src/util/env.c" \
    $(pkg-config --cflags --libs cmocka)
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" "$out/test_stress"
