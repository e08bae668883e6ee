#!/bin/sh
# record-malloc.sh - REAP_TRACE under libreap-malloc.so: python3, which
# forks a child (and on Debian runs a few helpers), writes a file per
# process, a fork child's flagged (header byte 9, the flags varint); every
# file replays, and the parent's, the largest, has a glibc footprint.  Left
# out of the sanitizer builds, as tests/base/preload.sh is: a sanitized
# libreap-malloc.so cannot be preloaded into a program without the
# sanitizer's runtime.  Run by `make check' from the build directory.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
tool=$PWD/tools/reap-trace/reap-trace
lib=$PWD/libreap/.libs/libreap-malloc.so
work=$(mktemp -d "${TMPDIR:-/tmp}/reap-trace-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

mkdir "$work/fork"
REAP_TRACE=$work/fork/f LD_PRELOAD=$lib python3 -c '
import os
pid = os.fork()
if pid == 0:
    x = [str(i) for i in range(1000)]
    os._exit(0)
os.waitpid(pid, 0)' || bad "python3 fork under the tracer exited $?"
children=0
for f in "$work"/fork/f.*; do
    [ "$(od -An -tu1 -j9 -N1 "$f" | tr -d ' ')" = 1 ] && children=$((children + 1))
    "$tool" replay --csv "$f" >/dev/null 2>"$work/err" || bad "replay of $f: $(cat "$work/err")"
done
[ "$children" -ge 1 ] || bad "no fork child's trace among $(ls "$work/fork" | wc -l) files"
py=$(ls -S "$work"/fork/f.* | head -1)
glibc=$("$tool" replay --csv "$py" 2>/dev/null | awk -F, '$1 == "glibc" {print $2}')
[ "${glibc:-0}" -gt 0 ] || bad "python3's trace $py: glibc footprint ${glibc:-none}"
echo "ok   fork: $children child trace(s) of $(ls "$work/fork" | wc -l) files, all replayed"

exit $fail
