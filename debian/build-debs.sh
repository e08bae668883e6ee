#!/bin/bash
# debian/build-debs.sh - build the reap project's Debian binary packages
# into <repo>/build/debs/ and run lintian on them.  Run it from the
# repository's top directory (./quickstart package calls it), as root or
# with sudo for the apt-get steps.
#
#   1. installs what the build needs when it is missing: the Build-Depends
#      of debian/control (apt-get build-dep on the copied tree) and lintian;
#   2. fetches Debian's apr source (`apt-get source apr`, through
#      apr-patch/build-apr.sh --fetch-only, which also checks it is the
#      source apr-patch/src/ was written against), and Debian's apache2
#      source likewise (httpd-patch/build-modules.sh --fetch-only);
#   3. copies the tree (the files git knows, committed or not; nothing of
#      build/) into a fresh work directory, puts the APR source into its
#      debian/apr-source/, and runs `dpkg-buildpackage -b -us -uc` there;
#   4. moves the .deb files (and the .buildinfo/.changes) into build/debs/,
#      replacing what an earlier run left there, and prints lintian's
#      findings and a count of each tag.
#
# Usage: debian/build-debs.sh [--work-dir DIR] [--keep] [--jobs N]
#   --work-dir DIR  where to copy and build (made empty first)
#                   [a new directory under ${TMPDIR:-/tmp}]
#   --keep          keep the work directory after a successful build
#                   (it is always kept after a failure, for its logs)
#   --jobs N        parallel jobs (DEB_BUILD_OPTIONS parallel=N) [2]
# DEB_BUILD_OPTIONS from the environment are passed on (nocheck is the
# default anyway: the project's tests run in its CI, not here).
# Exit status: 0 when the packages were built (lintian's findings do not
# change it); 1 otherwise.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$top/build/debs
work=
keep=no
jobs=2

die() { echo "build-debs.sh: $*" >&2; exit 1; }
say() { printf '\n== %s\n' "$*"; }

while [ $# -gt 0 ]; do
    case $1 in
        --work-dir) work=${2:?--work-dir needs a directory}; shift ;;
        --keep) keep=yes ;;
        --jobs) jobs=${2:?--jobs needs a number}; shift ;;
        -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) die "unknown option '$1' (try --help)" ;;
    esac
    shift
done

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

[ -f "$top/debian/control" ] && [ -x "$top/apr-patch/build-apr.sh" ] ||
    die "run it from a checkout of the reap project"
command -v git > /dev/null || die "git is needed (apt-get install git)"
git -C "$top" rev-parse --git-dir > /dev/null 2>&1 ||
    die "$top is not a git checkout: the copy takes the files git knows"

t0=$(date +%s)
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/reap-debs.XXXXXX")
else
    case $work in "$top"|"$top"/*) die "--work-dir must be outside the checkout" ;; esac
    rm -rf "$work"
    mkdir -p "$work"
fi
work=$(cd "$work" && pwd)
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
upstream=${version%-*}
tree=$work/reap-$upstream
trap 'echo "build-debs.sh: failed; the work directory is kept: $work" >&2' ERR

# --- 3a. a clean copy of the tree -------------------------------------------
say "copying the checkout into $tree"
mkdir -p "$tree"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -C "$tree" -xf -
# A source tree built in place (./configure in the checkout) or the
# project's build/ must not leak in: only files git knows were copied.
[ ! -e "$tree/build" ] || die "build/ was copied: it should be ignored by git"

# --- 1. build dependencies ----------------------------------------------------
say "build dependencies"
if ! (cd "$tree" && dpkg-checkbuilddeps > /dev/null 2>&1); then
    (cd "$tree" && dpkg-checkbuilddeps 2>&1 || true) | sed 's/^/  /'
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq "$tree" > "$work/build-dep.log" 2>&1 ||
        { tail -20 "$work/build-dep.log" >&2; die "apt-get build-dep failed; see $work/build-dep.log"; }
fi
if ! command -v lintian > /dev/null; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lintian > "$work/lintian-install.log" 2>&1 ||
        die "could not install lintian; see $work/lintian-install.log"
fi
echo "all installed"

# --- 2. Debian's apr source ---------------------------------------------------
say "Debian's apr source (apt-get source apr)"
"$top/apr-patch/build-apr.sh" --fetch-only --build-dir "$work/apr-fetch"
mkdir -p "$tree/debian/apr-source"
mv "$work/apr-fetch/apr-work/apr-1.7.2" "$tree/debian/apr-source/"
rm -rf "$work/apr-fetch"

# --- 2b. Debian's apache2 source, for the reap-aware modules -----------------
say "Debian's apache2 source (apt-get source apache2, httpd-patch/build-modules.sh)"
"$top/httpd-patch/build-modules.sh" --fetch-only --build-dir "$work/apache2-fetch"
mkdir -p "$tree/debian/apache2-source"
mv "$work/apache2-fetch/httpd-work"/apache2-[0-9]* "$tree/debian/apache2-source/"
rm -rf "$work/apache2-fetch"

# --- 3b. dpkg-buildpackage ----------------------------------------------------
say "dpkg-buildpackage -b -us -uc (log: $work/build.log)"
opts="${DEB_BUILD_OPTIONS:-}"
case " $opts " in *" parallel="*) ;; *) opts="$opts parallel=$jobs" ;; esac
case " $opts " in *" nocheck "*) ;; *) opts="$opts nocheck" ;; esac
if ! (cd "$tree" && DEB_BUILD_OPTIONS="${opts# }" dpkg-buildpackage -b -us -uc) \
        > "$work/build.log" 2>&1; then
    tail -40 "$work/build.log" >&2
    false
fi

# --- 4. collect, lintian ------------------------------------------------------
mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes "$out"/lintian.txt
rm -rf "$out/dbgsym"
mkdir -p "$out/dbgsym"
mv "$work"/*-dbgsym_*.deb "$out/dbgsym/" 2> /dev/null || rmdir "$out/dbgsym"
mv "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out"/
cp "$work/build.log" "$out/build.log"
say "packages in $out"
for d in "$out"/*.deb; do
    printf '%-48s %8s  %s\n' "$(basename "$d")" "$(du -k "$d" | cut -f1)K" \
        "$(dpkg-deb -f "$d" Depends)"
done

say "RPATH/RUNPATH of every ELF file in the packages (none expected)"
x=$work/rpath-check
bad=0
for d in "$out"/*.deb; do
    rm -rf "$x"; mkdir -p "$x"
    dpkg-deb -x "$d" "$x"
    while IFS= read -r -d '' f; do
        head -c4 "$f" | grep -q 'ELF' || continue
        r=$(readelf -d "$f" 2> /dev/null | grep -E '\((RPATH|RUNPATH)\)' || true)
        if [ -n "$r" ]; then
            echo "$(basename "$d"): ${f#"$x"}: $r"
            bad=1
        fi
    done < <(find "$x" -type f -print0)
done
rm -rf "$x"
[ $bad = 0 ] || die "a packaged file has an RPATH or RUNPATH (above)"
echo "none"

say "lintian"
lintian --info --display-info --pedantic --show-overrides --tag-display-limit 0 \
    "$out"/*.deb > "$out/lintian.txt" 2>&1 || true
grep -E '^[EWIPXO]: ' "$out/lintian.txt" | sort -u || true
echo "-- count by tag (E error, W warning, I info, P pedantic, O overridden in debian/*.lintian-overrides):"
grep -E '^[EWIPXO]: ' "$out/lintian.txt" | awk '{ print $1, $3 }' | sort | uniq -c | sort -rn || true
echo "(lintian's whole output: $out/lintian.txt)"

trap - ERR
if [ "$keep" = no ]; then rm -rf "$work"; else echo "work directory kept: $work"; fi
echo "build-debs.sh: done in $(( $(date +%s) - t0 )) s"
