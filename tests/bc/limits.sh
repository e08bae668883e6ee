#!/bin/sh
# limits.sh - error and limit cases through reap-bc: each hostile program is
# stopped by its own limit, with its own exit status and message, and never
# crashes; a syntax error names its line exactly as GNU bc does.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

. "${srcdir:-.}/tests/bc/common.sh"
pass=0 fail=0

# expect "STATUS..." PATTERN PROGRAM [OPTIONS...]: one of the statuses, and
# stderr matching the pattern.  Huge powers and scales may meet the memory
# or the time limit first, depending on the machine: either stops them.
expect() {
    want=$1 pat=$2 prog=$3; shift 3
    printf '%s\n' "$prog" >"$TMPD/p.bc"
    "$REAP_BC" "$@" "$TMPD/p.bc" </dev/null >"$TMPD/o" 2>"$TMPD/e"
    got=$?
    if echo " $want " | grep -q " $got " && grep -q "$pat" "$TMPD/e"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: '$prog' $*: exit $got (want $want), stderr:"
        head -3 "$TMPD/e"
    fi
}

expect "14 15" "out of memory\|time limit" '10^(10^9)' --memory-limit=64M --time-limit=5
expect 15 "time limit" '10^(10^9)' --time-limit=1
expect "14 15" "time limit\|out of memory" 'scale=10^9; 1/3' --time-limit=1 --memory-limit=1G
expect 14 "out of memory" 'scale=10^9; 1/3' --memory-limit=16M --time-limit=20
# Printing in a small or huge obase costs a pass over the number per
# digit: the time limit must hold there too (found by fuzz/fuzz_bc).
expect 15 "time limit" 'obase=9
2^(2^20)' --time-limit=1 --memory-limit=32M
expect 15 "time limit" 'obase=1000000
scale=1000000
1/3' --time-limit=1 --memory-limit=32M --max-output=64K
expect 15 "time limit" 'while(1){}' --time-limit=1
expect 15 "time limit" 'for(;;) x += 1' --time-limit=1
expect 17 "recursion too deep" 'define f(x) { return f(x+1) }
f(1)' --max-depth=1000
expect 16 "output limit" 'while(1) print "x"' --max-output=1000
expect 18 "program too large" '1+1' --max-program=2
expect 0 "Divide by zero" '1/0'
expect 0 "Square root of a negative number" 'sqrt(-1)'
expect 0 "Function f not defined" 'f(1)'

# the same limits on a program read line by line from standard input
yes 1 | head -c 2000000 >"$TMPD/big.bc"
"$REAP_BC" --max-program=1M <"$TMPD/big.bc" >/dev/null 2>"$TMPD/e"
st=$?
if [ "$st" -eq 18 ] && grep -q "program too large" "$TMPD/e"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL: 2 MB on stdin with --max-program=1M: exit $st"
fi
printf 'define f(x) { return f(x+1) }\nf(1)\n' |
    "$REAP_BC" --max-depth=500 >/dev/null 2>"$TMPD/e"
st=$?
if [ "$st" -eq 17 ] && grep -q "recursion too deep" "$TMPD/e"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL: recursion on stdin: exit $st"
fi

# syntax errors name the line, byte for byte as GNU bc
for prog in '1
2+
3' 'x = (1
y)' '1; 2+; 3
)' 'define f() {
return (1
}'; do
    printf '%s\n' "$prog" >"$TMPD/s.bc"
    if bc_compare "$TMPD/s.bc"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done

# random bytes: any status but a crash (128 and above is a signal)
python3 -c '
import random, sys
r = random.Random(7)
for i in range(20):
    with open(sys.argv[1] + "/junk%d.bc" % i, "wb") as f:
        f.write(bytes(r.choice(b"0123456789+-*/%^=<>!&|(){}[];,.\"\\#\n abcdefxyzA") if i % 2 else r.randrange(256) for _ in range(2000)))
' "$TMPD"
for f in "$TMPD"/junk*.bc; do
    "$REAP_BC" --time-limit=2 --memory-limit=64M --max-depth=500 "$f" \
        </dev/null >/dev/null 2>&1
    st=$?
    if [ "$st" -lt 128 ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); echo "FAIL: $f ended with status $st"; fi
    # and on standard input, read line by line
    "$REAP_BC" --time-limit=2 --memory-limit=64M --max-depth=500 \
        <"$f" >/dev/null 2>&1
    st=$?
    if [ "$st" -lt 128 ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); echo "FAIL: $f ended with status $st"; fi
done

echo "bc limits: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
