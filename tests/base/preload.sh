#!/bin/sh
# preload.sh - real programs under LD_PRELOAD=libreap-malloc.so must give
# the same output as without it: python3, gcc compiling a C file, sort on a
# few MB, bc, git init/commit/log, preload_probe (every malloc entry
# point, threads, fork) and cxx_probe (every form of C++'s operator new
# and delete, std::bad_alloc and the new-handler).  Run by `make check'
# from the build directory.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
lib=${REAP_MALLOC_LIB:-$PWD/libreap/.libs/libreap-malloc.so}
probe=${REAP_PROBE:-$PWD/tests/base/preload_probe}
if [ ! -f "$lib" ]; then
    echo "preload.sh: $lib not built" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/reap-preload.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0

# same NAME CMD...: runs CMD with and without the library, compares stdout
# and the exit status.
same() {
    name=$1; shift
    "$@" >"$work/plain.out" 2>"$work/plain.err"; plain=$?
    LD_PRELOAD=$lib "$@" >"$work/reap.out" 2>"$work/reap.err"; reap=$?
    if [ "$plain" != "$reap" ] || ! cmp -s "$work/plain.out" "$work/reap.out"; then
        echo "FAIL $name: status $plain vs $reap"; head -5 "$work/reap.err"; fail=1
    else
        echo "ok   $name ($(wc -c <"$work/reap.out") bytes of output)"
    fi
}

# a C++ library the C probe opens with RTLD_LOCAL (preload_probe.c)
REAP_CXX_PLUGIN=${REAP_CXX_PLUGIN:-$PWD/tests/base/cxx_plugin.so}
export REAP_CXX_PLUGIN
REAP_PROBE_EXPECT=reap LD_PRELOAD=$lib "$probe" || { echo "FAIL probe under LD_PRELOAD"; fail=1; }
same probe "$probe"
cxx=${REAP_CXX_PROBE:-$PWD/tests/base/cxx_probe}
REAP_PROBE_EXPECT=reap LD_PRELOAD=$lib "$cxx" || { echo "FAIL cxx probe under LD_PRELOAD"; fail=1; }
same cxx-probe "$cxx"

same python3 python3 -c '
import json, collections
d = {str(i): [i] * (i % 50) for i in range(30000)}
s = json.dumps(d, sort_keys=True)
c = collections.Counter(s)
print(len(s), sorted(c.items())[:10])'

cat >"$work/prog.c" <<'C'
#include <stdio.h>
struct p { int x, y; };
static int sq(int v) { return v * v; }
int main(void) { struct p a = {3, 4}; printf("%d\n", sq(a.x) + sq(a.y)); return 0; }
C
same "gcc -O2" sh -c "gcc -O2 -Wall -o '$work/prog' '$work/prog.c' && '$work/prog'"

i=0
while [ $i -lt 40000 ]; do echo "line $(( (i * 7919) % 40009 )) $i"; i=$((i + 1)); done >"$work/in.txt"
cat "$work/in.txt" "$work/in.txt" "$work/in.txt" "$work/in.txt" >"$work/big.txt"
same "sort ($(wc -c <"$work/big.txt") bytes)" sort "$work/big.txt"
same "sort -n -u" sort -k2,2n -u "$work/big.txt"

cat >"$work/prog.bc" <<'BC'
scale=300
4*a(1)
2^2000 % 1000007
define f(n) { if (n < 2) return n; return f(n-1) + f(n-2); }
f(20)
quit
BC
same bc bc -l "$work/prog.bc"

same git sh -c "
    cd '$work' && rm -rf repo && mkdir repo && cd repo &&
    git init -q . && git config user.email t@e && git config user.name t &&
    for i in 1 2 3; do seq \$i 1000 > f\$i; git add f\$i; GIT_COMMITTER_DATE='2020-01-01T00:00:00Z' git commit -q --date=2020-01-01T00:00:00Z -m c\$i; done &&
    git log --format='%H %s' && git gc -q && git fsck 2>&1 | wc -l"
exit $fail
