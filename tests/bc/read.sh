#!/bin/sh
# read.sh - read(): numbers taken from standard input while the program
# comes from a file, compared with GNU bc.  (Only inputs that leave GNU bc
# with input to spare: at the end of its input GNU's read() never returns.)

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

. "${srcdir:-.}/tests/bc/common.sh"
pass=0 fail=0
printf 'x = read(); y = read(); x + y\nquit\n' >"$TMPD/read.bc"
printf 'ibase = 16; x = read(); y = read(); x; y\nquit\n' >"$TMPD/read16.bc"
for input in '21 1' '5+5 1' 'abc 2' '1
2' '-7.25 1' '+5 3' 'a.b.c 3' 'zz 1' '.5 .25' '% 4 9'; do
    for prog in "$TMPD/read.bc" "$TMPD/read16.bc"; do
        printf '%s\n9 9\n' "$input" >"$TMPD/in"
        timeout 10 "$GNU_BC" -q "$prog" <"$TMPD/in" >"$TMPD/g" 2>&1
        timeout 10 "$REAP_BC" -q "$prog" <"$TMPD/in" >"$TMPD/r" 2>&1
        if cmp -s "$TMPD/g" "$TMPD/r"; then pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL: read() of '$input' in $(basename "$prog")"
            diff "$TMPD/g" "$TMPD/r"
        fi
    done
done
echo "bc read: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
