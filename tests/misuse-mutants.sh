#!/usr/bin/env bash
# misuse-mutants.sh - each of libreap's misuse checks, taken out one at a
# time, must make a test fail.
#
#   tests/misuse-mutants.sh [WORK_DIR]
#
# Copies the checkout's committed tree (git archive HEAD) into WORK_DIR
# (default: a temporary directory), configures and builds it once, then
# for each mutant below edits one line of a copy of libreap's sources,
# rebuilds, runs libreap's unit and integration tests (REAP_TESTS of
# tests/local.mk), and puts the line back.  A mutant is "caught" when a
# test fails, "MISSED" when they all pass; the script exits 1 if any is
# missed.  Each mutant is one pattern and its replacement: the pattern
# must match exactly one line, or the script stops, so a mutant cannot
# silently stop applying when the code moves.  Takes about a minute a
# mutant on two cores; not part of any test tier (docs/misuse.md).

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/reap-mutants.XXXXXX)}
mkdir -p "$work/src"
git -C "$top" archive HEAD | tar -x -C "$work/src"
cd "$work/src"
autoreconf -fi > "$work/autoreconf.log" 2>&1
mkdir -p build && cd build
../configure --quiet > "$work/configure.log" 2>&1
make -j"$(nproc)" > "$work/make.log" 2>&1
tests=$(make -s -f - print-tests <<'EOF' 2>/dev/null || true
include Makefile
print-tests:
	@echo $(REAP_TESTS)
EOF
)
[ -n "$tests" ] || { echo "misuse-mutants.sh: no REAP_TESTS in the Makefile" >&2; exit 2; }

missed=0
# mutant FILE WHAT PATTERN REPLACEMENT: FILE's one line holding PATTERN (a
# fixed string) gets REPLACEMENT instead, and a test must then fail.
mutant() {
    local path=../libreap/src/$1 what=$2 n
    n=$(grep -cF -- "$3" "$path" || true)
    [ "$n" = 1 ] || { echo "misuse-mutants.sh: '$3' is in $1 $n times, not once" >&2; exit 2; }
    cp "$path" "$work/orig.c"
    PATTERN=$3 REPLACEMENT=$4 python3 -c '
import os, sys
p = sys.argv[1]; s = open(p).read()
open(p, "w").write(s.replace(os.environ["PATTERN"], os.environ["REPLACEMENT"], 1))' "$path"
    if make -j"$(nproc)" > "$work/mutant.log" 2>&1 &&
        make -j"$(nproc)" check TESTS="$tests" >> "$work/mutant.log" 2>&1; then
        echo "MISSED  $what ($1)"
        missed=$((missed + 1))
    else
        echo "caught  $what ($1)"
    fi
    cp "$work/orig.c" "$path"
}

mutant alloc.c "a pointer of another reap" \
    'if (!c || c->reap != r || ((uintptr_t)p & r->grain_mask) != 0)' \
    'if (!c || ((uintptr_t)p & r->grain_mask) != 0)'
mutant alloc.c "a misaligned pointer" \
    'if (!c || c->reap != r || ((uintptr_t)p & r->grain_mask) != 0)' 'if (!c || c->reap != r)'
mutant alloc.c "a pointer inside a large object" \
    'return (const char *)p == c->arena ? P_SOLO : P_FOREIGN;' 'return P_SOLO;'
mutant alloc.c "a large object freed twice" \
    'return c->key == rp_solo_freed_key(c) && (const char *)p == c->arena ? P_FREED : P_FOREIGN;' \
    'return P_FOREIGN;'
mutant alloc.c "a block freed twice, then taken back by the frontier" \
    'return (const char *)p < r->high ? P_FREED : P_FOREIGN;' 'return P_FOREIGN;'
mutant alloc.c "a block freed twice (its freed bit)" \
    'if (w->freed & bit) /* a freed block' 'if (0) /* a freed block'
mutant alloc.c "a pointer where no block starts" \
    'return (w->start & bit) ? P_LIVE : P_FOREIGN;' 'return P_LIVE;'
mutant alloc.c "the fast free's freed-bit test" \
    'if (RP_UNLIKELY(!(w->start & ~w->freed & bit)))' 'if (RP_UNLIKELY(!(w->start & bit)))'
mutant alloc.c "the fast free's chunk test" 'if (rp_chunk_not_owned(c, r))' 'if (c == NULL)'
mutant internal.h "a chunk of another reap (the free's and the lists' owner test)" \
    '|| RP_UNLIKELY(c->reap != r);' ';'
mutant alloc.c "the fast free's alignment test" 'if (RP_UNLIKELY((uintptr_t)p & 7))' 'if (0)'
mutant region.h "a freed object written to (the lists' bits test)" \
    'return RP_LIKELY(w->start & w->freed & rp_bit(b)) ? w : NULL;' 'return w;'
mutant region.h "a freed object written to (the lists' chunk test)" \
    'if (rp_chunk_not_owned(c, r))' 'if (c == NULL)'
mutant leaheap.c "a freed object written to (reported)" \
    'rp_misuse(REAP_MISUSE_CORRUPTION, "a freed object was written to:", r, b);' '(void)0;'
mutant alloc.c "a NULL reap" 'if (RP_LIKELY(r != NULL))' 'if (1)'

make -j"$(nproc)" > /dev/null 2>&1
[ "$missed" = 0 ] || { echo "misuse-mutants.sh: $missed mutant(s) missed" >&2; exit 1; }
echo "misuse-mutants.sh: every mutant caught"
