#!/bin/bash
# make-patches.sh - regenerate apr-patch/*.patch from an edited APR tree.
#
# Edit the files in the patched copy that build-apr.sh made
# (<build-dir>/apr-work/patched), then run this: each patch file is
# rewritten as `diff -u` of the files it already touches, pristine Debian
# source (<build-dir>/apr-work/apr-1.7.2) against the edited copy, with
# a/ and b/ prefixes and no timestamps.  To patch a new file, add an empty
# patch naming it first (a "+++ b/path" line), or edit a patch by hand.
# Then re-run build-apr.sh, which sees the changed patches and rebuilds.
#
# Usage: make-patches.sh [--build-dir DIR]     [<repo>/build]
# Exit status: 0 on success, 1 on failure (the reason on stderr).

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build_dir=$here/../build
if [ "${1:-}" = --build-dir ]; then
    build_dir=${2:?--build-dir needs a directory}
elif [ $# -gt 0 ]; then
    echo "make-patches.sh: usage: make-patches.sh [--build-dir DIR]" >&2
    exit 1
fi

pristine=$build_dir/apr-work/apr-1.7.2
edited=$build_dir/apr-work/patched
for d in "$pristine" "$edited"; do
    [ -d "$d" ] || { echo "make-patches.sh: no $d: run build-apr.sh first" >&2; exit 1; }
done

for p in "$here"/*.patch; do
    files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p")
    [ -n "$files" ] || { echo "make-patches.sh: $p names no file" >&2; exit 1; }
    out=$(mktemp)
    for f in $files; do
        a=$pristine/$f
        [ -e "$a" ] || a=/dev/null
        diff -u --label "a/$f" --label "b/$f" "$a" "$edited/$f" >> "$out" || [ $? = 1 ]
    done
    mv "$out" "$p"
    chmod 644 "$p"
    echo "make-patches.sh: wrote $(basename "$p") ($files)"
done
