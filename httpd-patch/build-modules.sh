#!/bin/bash
# build-modules.sh - build reap-aware copies of Debian's httpd modules
# mod_dav_fs, mod_sed, mod_rewrite, mod_autoindex, mod_include and
# mod_proxy_html: Debian's apache2
# source with the project's changed files (httpd-patch/src/) dropped in,
# each module built with Debian's apxs into <out>/lib/mod_NAME.so.
#
# As apr-patch/build-apr.sh does for APR:
#   1. `apt-get source apache2=$APACHE2_SOURCE` into <build>/httpd-work
#      (adding a deb-src entry mirroring /etc/apt/sources.list.d/debian.sources
#      when apt knows none; root the first time);
#   2. check that every file httpd-patch/src/ replaces is the pristine file
#      recorded in httpd-patch/PRISTINE.sha256: a mismatch stops the build
#      with the file's name (merge by hand, record the new hash);
#   3. per module, copy its directory's sources, drop our files over them,
#      and `apxs -c` them with -I<mod_reap> (ap_pfree: mod_reap.h); mod_sed
#      exports only sed_module, as Debian links it.  Nothing links libreap:
#      the same .so runs on Debian's APR, where ap_pfree does nothing.
#
# With --diff FILE it writes the unified diff, pristine against
# httpd-patch/src/ (-p1, a/ b/, a DEP-3 header), and builds nothing.  No
# diff is stored: httpd-patch/src/ is the source of truth.
# With --compare-debian it builds the PRISTINE modules too and compares
# their machine code with the modules Debian installed (compare-code.py):
# the installed apache2 may be newer than the source apt can fetch, and
# this shows which modules' code differs (httpd-patch/README.md).
#
# Usage: build-modules.sh [--build-dir DIR] [--out DIR] [--source DIR]
#                         [--diff FILE] [--fetch-only] [--compare-debian]
#   --build-dir  the project's build directory              [<repo>/build]
#   --out        where lib/mod_*.so go                      [<build>/httpd-modules]
#   --source     an unpacked apache2 source to use instead of fetching one

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -euo pipefail

# The Debian source the files of src/ were written against.  apt-get
# source of the installed apache2 (2.4.71-1~deb12u1 on bookworm-security
# today) fails with 404: Debian's archive serves no source for it.
APACHE2_SOURCE=2.4.68-1~deb12u1
APACHE2_UPSTREAM=2.4.68

# The modules: name, then the sources, at their paths in the apache2 tree.
MODULES="
dav_fs    modules/dav/fs/mod_dav_fs.c modules/dav/fs/dbm.c modules/dav/fs/lock.c modules/dav/fs/repos.c
sed       modules/filters/mod_sed.c modules/filters/sed0.c modules/filters/sed1.c modules/filters/regexp.c
rewrite   modules/mappers/mod_rewrite.c
autoindex modules/generators/mod_autoindex.c
include   modules/filters/mod_include.c
proxy_html modules/filters/mod_proxy_html.c
"

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ours=$top/httpd-patch/src
manifest=$top/httpd-patch/PRISTINE.sha256
build=$top/build out= source= diff_out= fetch_only=no compare=no

say() { echo "build-modules.sh: $*"; }
die() { echo "build-modules.sh: $*" >&2; exit 1; }
# shellcheck source=../tools/srcpatch.sh
. "$top/tools/srcpatch.sh"   # srcpatch_*: the manifest, the hashes, the diff

while [ $# -gt 0 ]; do
    case $1 in
    --build-dir) build=${2:?}; shift ;;
    --out) out=${2:?}; shift ;;
    --source) source=${2:?}; shift ;;
    --diff) diff_out=${2:?}; shift ;;
    --fetch-only) fetch_only=yes ;;
    --compare-debian) compare=yes ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (try --help)" ;;
    esac
    shift
done
mkdir -p "$build"
build=$(cd "$build" && pwd)
out=${out:-$build/httpd-modules}
work=$build/httpd-work
src=${source:-$work/apache2-$APACHE2_UPSTREAM}
command -v apxs >/dev/null || die "no apxs (Debian package apache2-dev)"

# --- 1. fetch ---------------------------------------------------------------
have_source() { apt-cache showsrc apache2 2>/dev/null | grep -x "Version: $APACHE2_SOURCE" >/dev/null; }

ensure_deb_src() {
    have_source && return 0
    srcpatch_deb_src
    as_root apt-get update -qq || die "apt-get update failed"
    have_source || die "apt knows no source package apache2 $APACHE2_SOURCE"
}

fetch_source() {
    [ -f "$src/modules/dav/fs/repos.c" ] && return 0
    [ -z "$source" ] || die "--source $source holds no apache2 source"
    ensure_deb_src
    mkdir -p "$work"
    say "apt-get source apache2=$APACHE2_SOURCE (into $work)"
    (cd "$work" && apt-get source -qq "apache2=$APACHE2_SOURCE" >apt-get-source.log 2>&1) ||
        die "apt-get source apache2 failed; see $work/apt-get-source.log"
    [ -f "$src/modules/dav/fs/repos.c" ] || die "apt-get source unpacked no $src"
}

# --- 2. the pristine files ----------------------------------------------------
check_pristine() {
    srcpatch_check_pristine ||
        die "the apache2 source in $src is not the one httpd-patch/src/ was written against:
  merge the upstream change into httpd-patch/src/ by hand and record the new hash in $manifest"
}

write_diff() {
    srcpatch_write_diff "$diff_out" \
        "reap-aware mod_dav_fs, mod_sed, mod_rewrite, mod_autoindex, mod_include, mod_proxy_html (ap_pfree)"
}

# --- 3. build -----------------------------------------------------------------
# build_module <dir> <overlay: yes|no> <name> <sources...>: mod_<name>.so in <dir>.
build_module() {
    local dir=$1 overlay=$2 name=$3 f files=() flags=()
    shift 3
    rm -rf "$dir"
    mkdir -p "$dir"
    for f in "$@"; do
        cp "$src/$(dirname "$f")"/*.[ch] "$dir/"
        files+=("$(basename "$f")")
    done
    if [ "$overlay" = yes ]; then
        for f in $(srcpatch_paths); do
            case " $* " in *" $(dirname "$f")/"*) cp "$ours/$f" "$dir/" ;; esac
        done
    fi
    if [ "$name" = rewrite ]; then   # generated by httpd's build from server/
        cc -I/usr/include/apr-1.0 "$src/server/gen_test_char.c" -o "$dir/gen_test_char" -lapr-1 &&
            "$dir/gen_test_char" >"$dir/test_char.h" || die "gen_test_char failed"
    fi
    if [ "$name" = sed ]; then       # Debian hides libsed's internals
        printf '{ global: sed_module; local: *; };\n' >"$dir/exports.map"
        flags+=("-Wl,--version-script=$dir/exports.map")
    fi
    if [ "$name" = proxy_html ]; then   # libxml2's HTML parser, linked as Debian links it
        flags+=("-I/usr/include/libxml2" "-lxml2")
    fi
    (cd "$dir" && apxs -c -I"$top/mod_reap" "${flags[@]}" -o "mod_$name.la" "${files[@]}") \
        >"$dir/build.log" 2>&1 || { tail -20 "$dir/build.log" >&2; die "mod_$name failed; see $dir/build.log"; }
    [ -f "$dir/.libs/mod_$name.so" ] || die "no $dir/.libs/mod_$name.so"
}

for_modules() {   # for_modules <function>: <function> <name> <sources...> per module
    local line
    while read -r line; do
        [ -n "$line" ] || continue
        # shellcheck disable=SC2086 # the fields, split on purpose
        "$1" $line
    done <<<"$MODULES"
}

build_ours() {
    local name=$1
    shift
    build_module "$work/build/$name" yes "$name" "$@"
    install -m 644 "$work/build/$name/.libs/mod_$name.so" "$out/lib/mod_$name.so"
    say "  $out/lib/mod_$name.so"
}

compare_pristine() {
    local name=$1
    shift
    build_module "$work/pristine/$name" no "$name" "$@"
    printf '%-10s ' "mod_$name"
    python3 "$top/httpd-patch/compare-code.py" "/usr/lib/apache2/modules/mod_$name.so" \
        "$work/pristine/$name/.libs/mod_$name.so" || true
}

srcpatch_check_manifest
fetch_source
check_pristine
[ "$fetch_only" = no ] || { say "apache2 source ready: $src"; exit 0; }
if [ -n "$diff_out" ]; then
    write_diff
    exit 0
fi
mkdir -p "$out/lib"
say "building from apache2 $APACHE2_SOURCE with httpd-patch/src/ (Debian's apxs)"
for_modules build_ours
if [ "$compare" = yes ]; then
    say "the pristine $APACHE2_SOURCE modules against the installed $(dpkg-query -W -f='${Version}' apache2-bin):"
    for_modules compare_pristine
fi
