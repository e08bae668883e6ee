#!/bin/sh
# corpus.sh - every program of tests/bc/corpus through reap-bc and GNU bc:
# standard output, exit status and (address-free) stderr must match byte for
# byte, given as a file and again on standard input.  BC_LINE_LENGTH is
# varied on a few files.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

. "${srcdir:-.}/tests/bc/common.sh"
pass=0 fail=0
for via in file stdin; do
    for f in "$srcdir"/tests/bc/corpus/*.bc; do
        # BC_CORPUS_SKIP: files a build cannot run (the TSan build, see
        # tests/sanitize/run-all.sh); said, never silent.
        case " ${BC_CORPUS_SKIP:-} " in
        *" ${f##*/} "*) echo "SKIPPED in this build: ${f##*/} ($via)"; continue ;;
        esac
        opts=$(file_options "$f")
        # shellcheck disable=SC2086
        if BC_VIA=$via bc_compare "$f" $opts; then pass=$((pass + 1))
        else echo "  (program on $via)"; fail=$((fail + 1)); fi
    done
done
for len in 0 3 30 100; do
    for f in "$srcdir"/tests/bc/corpus/numbers.bc "$srcdir"/tests/bc/corpus/bases.bc; do
        if BC_LINE_LENGTH=$len bc_compare "$f"; then pass=$((pass + 1))
        else echo "  (BC_LINE_LENGTH=$len)"; fail=$((fail + 1)); fi
    done
done
echo "bc corpus: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
