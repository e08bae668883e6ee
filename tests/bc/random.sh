#!/bin/sh
# random.sh - seeded random valid bc programs (gen.py) through reap-bc and
# GNU bc, compared as in corpus.sh.  BC_SEED picks the seed (fixed by
# default so runs repeat; printed, so a failure can be replayed; try
# BC_SEED=$(date +%s) to explore), BC_COUNT the number of programs.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

. "${srcdir:-.}/tests/bc/common.sh"
seed=${BC_SEED:-20021122}
count=${BC_COUNT:-300}
echo "bc random: seed $seed, $count programs"
python3 "$srcdir/tests/bc/gen.py" --seed "$seed" --count "$count" \
    --out "$TMPD/progs" || exit 99
pass=0 fail=0 n=0
for f in "$TMPD"/progs/*.bc; do
    opts=$(file_options "$f")
    # every other program goes on standard input
    via=file
    [ $((n % 2)) -eq 1 ] && via=stdin
    n=$((n + 1))
    # shellcheck disable=SC2086
    if BC_VIA=$via bc_compare "$f" $opts; then pass=$((pass + 1))
    else
        fail=$((fail + 1))
        mkdir -p bc-failures && cp "$f" bc-failures/
    fi
done
echo "bc random: $pass passed, $fail failed (failing programs in bc-failures/)"
[ "$fail" -eq 0 ]
