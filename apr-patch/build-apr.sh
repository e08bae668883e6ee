#!/bin/bash
# build-apr.sh - fetch Debian 12's APR 1.7.2, drop the project's reap-backed
# pool files (apr-patch/src/) into it, build and install it.
#
# The patched library keeps the SONAME libapr-1.so.0, so Debian's apache2
# and libaprutil1 run on it through LD_LIBRARY_PATH=<prefix>/lib with no
# rebuild.  It links libreap (which must be installed first: `make install`
# in the project's build directory) with an rpath, so nothing else is needed
# at run time.
#
# Steps, each skipped when its result is already there, so a re-run is quick:
#   1. make sure apt knows bookworm's sources (adds a deb-src entry mirroring
#      /etc/apt/sources.list.d/debian.sources when missing, then apt-get
#      update; needs root the first time);
#   2. `apt-get source apr` into the work directory (Debian's own patches are
#      applied by the unpacking);
#   3. check that each file apr-patch/src/ replaces is the pristine file
#      recorded in apr-patch/PRISTINE.sha256 (a mismatch stops the build:
#      nothing is merged with fuzz), copy the tree once and run ./buildconf
#      as debian/rules does (Debian patches configure.in), then copy every
#      file of apr-patch/src/ that differs from the tree's into it, so
#      make rebuilds only what changed;
#   4. configure out of tree with Debian's options and hardening flags,
#      make, make install;
#   5. with --check, run APR's own `make check` and fail unless it ends with
#      "All tests passed.";
#   6. with --check-aprutil, also build Debian's apr-util 1.6.3 source
#      against the patched APR (not installed) and run its `make check` the
#      same way: its bucket allocator uses apr_allocator_* directly.
#
# With --diff FILE it only fetches the source, checks the hashes and writes
# the unified diff, pristine against apr-patch/src/, to FILE (-p1, a/ and b/
# prefixes, a DEP-3 header: usable as a Debian quilt patch).  No diff is the
# source of truth; apr-patch/src/ is.
#
# Usage: build-apr.sh [--check] [--check-aprutil] [--build-dir DIR]
#                     [--prefix DIR] [--reap-prefix DIR] [--jobs N]
#                     [--libdir DIR] [--destdir DIR] [--no-rpath]
#                     [--reap-libdir DIR] [--reap-includedir DIR]
#                     [--apr-source DIR]
#        build-apr.sh --diff FILE [--build-dir DIR] [--apr-source DIR]
#        build-apr.sh --fetch-only [--build-dir DIR]
#   --build-dir   the project's build directory        [<repo>/build]
#   --prefix      where the patched APR installs      [<build-dir>/install/apr]
#   --reap-prefix where libreap is installed          [<build-dir>/install]
#   --jobs        make -j                             [2]
# Options for packaging (debian/rules); the defaults keep the behaviour above:
#   --libdir          APR's configure --libdir         [<prefix>/lib]
#   --destdir DIR     make install DESTDIR=DIR (a staging root: nothing is
#                     written to <prefix> itself)      [none]
#   --no-rpath        link libapr-1.so without an rpath to libreap's
#                     directory (libreap is in a directory the loader
#                     searches anyway)                 [rpath to --reap-libdir]
#   --reap-libdir     the directory of libreap.so      [<reap-prefix>/lib]
#   --reap-includedir the directory of reap.h          [<reap-prefix>/include]
#   --apr-source DIR  an already unpacked Debian APR source (as `apt-get
#                     source apr` leaves it) to use instead of fetching one
#                                                      [<build-dir>/apr-work/apr-1.7.2]
#   --fetch-only      only fetch the source into <build-dir>/apr-work/ (or
#                     check --apr-source) and check the pristine hashes;
#                     needs no libreap; prints the source directory
# Exit status: 0 on success; 1 on any failure, with the reason on stderr.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -euo pipefail

APR_VERSION=1.7.2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
build_dir=$repo/build
prefix=
reap_prefix=
jobs=2
check=no
check_aprutil=no
diff_out=
libdir=
destdir=
rpath=yes
reap_libdir=
reap_incdir=
apr_source=
fetch_only=no

die() { echo "build-apr.sh: $*" >&2; exit 1; }
say() { echo "build-apr.sh: $*"; }
# shellcheck source=../tools/srcpatch.sh
. "$repo/tools/srcpatch.sh"   # srcpatch_*: the manifest, the hashes, the diff

while [ $# -gt 0 ]; do
    case $1 in
        --check) check=yes ;;
        --check-aprutil) check_aprutil=yes ;;
        --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
        --prefix) prefix=${2:?--prefix needs a directory}; shift ;;
        --reap-prefix) reap_prefix=${2:?--reap-prefix needs a directory}; shift ;;
        --jobs) jobs=${2:?--jobs needs a number}; shift ;;
        --diff) diff_out=${2:?--diff needs a file name}; shift ;;
        --libdir) libdir=${2:?--libdir needs a directory}; shift ;;
        --destdir) destdir=${2:?--destdir needs a directory}; shift ;;
        --no-rpath) rpath=no ;;
        --reap-libdir) reap_libdir=${2:?--reap-libdir needs a directory}; shift ;;
        --reap-includedir) reap_incdir=${2:?--reap-includedir needs a directory}; shift ;;
        --apr-source) apr_source=${2:?--apr-source needs a directory}; shift ;;
        --fetch-only) fetch_only=yes ;;
        -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) die "unknown option '$1' (try --help)" ;;
    esac
    shift
done

mkdir -p "$build_dir"
build_dir=$(cd "$build_dir" && pwd)
prefix=${prefix:-$build_dir/install/apr}
reap_prefix=${reap_prefix:-$build_dir/install}
reap_libdir=${reap_libdir:-$reap_prefix/lib}
reap_incdir=${reap_incdir:-$reap_prefix/include}
work=$build_dir/apr-work
src=$work/apr-$APR_VERSION          # as unpacked by apt-get source
if [ -n "$apr_source" ]; then
    [ -d "$apr_source" ] || die "--apr-source $apr_source: no such directory"
    src=$(cd "$apr_source" && pwd)
fi
tree=$work/patched                  # src + apr-patch/src/
obj=$work/obj                       # out-of-tree build
if [ -n "$destdir" ]; then
    # A staging install: <prefix> is where the files will live, not a
    # directory of this machine to create or write.
    case $prefix in /*) ;; *) die "--prefix must be absolute with --destdir" ;; esac
    mkdir -p "$work" "$destdir"
    destdir=$(cd "$destdir" && pwd)
else
    mkdir -p "$work" "$prefix"
    prefix=$(cd "$prefix" && pwd)
fi
libdir=${libdir:-$prefix/lib}
[ -z "$destdir" ] || [ "$check_aprutil" = no ] ||
    die "--check-aprutil needs the APR installed in --prefix: not with --destdir"

ours=$here/src                      # the project's files, at their APR paths
manifest=$here/PRISTINE.sha256

needs_reap=yes
[ -z "$diff_out" ] && [ "$fetch_only" = no ] || needs_reap=no
[ "$needs_reap" = no ] || [ -f "$reap_incdir/reap.h" ] ||
    die "no $reap_incdir/reap.h: run 'make install' in the build directory first"
[ "$needs_reap" = no ] || ls "$reap_libdir"/libreap.so* > /dev/null 2>&1 ||
    die "no libreap.so in $reap_libdir: run 'make install' in the build directory first"

# --- 1. deb-src entry -------------------------------------------------------
have_apr_source() {
    local versions
    versions=$(apt-cache showsrc apr 2> /dev/null || true)
    grep -q "^Version: $APR_VERSION-" <<< "$versions"
}

ensure_deb_src() {
    have_apr_source && return 0
    srcpatch_deb_src
    say "apt-get update"
    as_root apt-get update -qq || die "apt-get update failed"
    have_apr_source || die "apt still knows no source package apr $APR_VERSION"
}

# --- 2. fetch -----------------------------------------------------------------
fetch_source() {
    [ -f "$src/memory/unix/apr_pools.c" ] && return 0
    [ -z "$apr_source" ] ||
        die "--apr-source $apr_source has no memory/unix/apr_pools.c: not an APR source"
    ensure_deb_src
    say "apt-get source apr (into $work)"
    (cd "$work" && apt-get source -qq apr > apt-get-source.log 2>&1) ||
        die "apt-get source apr failed; see $work/apt-get-source.log"
    [ -f "$src/memory/unix/apr_pools.c" ] ||
        die "apt-get source did not unpack apr-$APR_VERSION into $work"
}

# --- 3. drop the project's files in ---------------------------------------
check_manifest() {
    [ -n "$(srcpatch_paths)" ] || die "$manifest lists no file"
    srcpatch_check_manifest
}

check_pristine() {   # the unpacked source is the one src/ was written against
    srcpatch_check_pristine ||
        die "the APR source in $src is not the one apr-patch/src/ was written against.
  Compare the failing file with its upstream history, merge the change into
  apr-patch/src/ by hand, and record the new pristine sha256 in $manifest."
}

tree_stamp() {
    { echo "$APR_VERSION"; cat "$manifest"; } | sha256sum | cut -d' ' -f1
}

prepare_tree() {   # the pristine tree, configured for autoconf, once
    local stamp
    stamp=$(tree_stamp)
    if [ -f "$tree/.reap-tree" ] && [ "$(cat "$tree/.reap-tree")" = "$stamp" ]; then
        return 0
    fi
    say "copying the source to $tree"
    rm -rf "$tree" "$obj"
    cp -a "$src" "$tree"
    say "buildconf"
    (cd "$tree" && LC_ALL=C ./buildconf > "$work/buildconf.log" 2>&1) ||
        die "buildconf failed; see $work/buildconf.log"
    echo "$stamp" > "$tree/.reap-tree"
}

drop_in() {   # copy what changed; a fresh mtime makes make rebuild it
    local f
    for f in $(srcpatch_paths); do
        if ! cmp -s "$ours/$f" "$tree/$f"; then
            say "  apr-patch/src/$f -> $f"
            cp "$ours/$f" "$tree/$f"
        fi
    done
}

write_diff() {   # pristine -> ours, one unified diff, usable as a quilt patch
    srcpatch_write_diff "$diff_out" "APR pools backed by reaps (libreap), with apr_pfree()"
}

# --- 4. configure, build, install -------------------------------------------
buildflags() {   # dpkg-buildflags maps the current directory: use the tree's
    (cd "$tree" && dpkg-buildflags --get "$1")
}

configure_args() {
    # Debian's configure options (debian/rules) that matter here, minus its
    # file layout; its hardening flags from dpkg-buildflags.  A call to a
    # function reap.h does not declare (an older header installed) must not
    # compile into a call returning int: implicit declarations are errors.
    local ldflags="$(buildflags LDFLAGS) -L$reap_libdir"
    [ "$rpath" = no ] || ldflags="$ldflags -Wl,-rpath,$reap_libdir"
    printf '%s\n' "--prefix=$prefix"
    [ "$libdir" = "$prefix/lib" ] || printf '%s\n' "--libdir=$libdir"
    printf '%s\n' \
        --enable-nonportable-atomics \
        --enable-allocator-uses-mmap \
        ac_cv_prog_AWK=mawk \
        "CFLAGS=$(buildflags CFLAGS) -Werror=implicit-function-declaration" \
        "CPPFLAGS=$(buildflags CPPFLAGS) -I$reap_incdir" \
        "LDFLAGS=$ldflags" \
        "LIBS=-lreap"
}

# The soname APR's programs (its tests among them) record: when libreap's
# changes, nothing already linked loads the new one, so start afresh.
reap_soname() {
    [ "$needs_reap" = no ] && return 0
    objdump -p "$reap_libdir/libreap.so" 2> /dev/null | awk '$1 == "SONAME" { print $2 }'
}

configure_tree() {
    local stamp
    stamp=$( { configure_args; cat "$tree/.reap-tree"; reap_soname; } | sha256sum | cut -d' ' -f1)
    if [ -f "$obj/config.status" ] && [ "$(cat "$obj/.reap-configured" 2> /dev/null)" = "$stamp" ]; then
        return 0
    fi
    say "configure (log: $work/configure.log)"
    rm -rf "$obj"
    mkdir -p "$obj"
    local -a args
    mapfile -t args < <(configure_args)
    (cd "$obj" && CONFIG_SHELL=/bin/bash /bin/bash "$tree/configure" "${args[@]}" \
        > "$work/configure.log" 2>&1) ||
        die "configure failed; see $work/configure.log"
    echo "$stamp" > "$obj/.reap-configured"
}

build_tree() {
    # APR's makefiles do not track reap.h; rebuild the pools when it changes.
    local hstamp
    hstamp=$(sha256sum < "$reap_incdir/reap.h" | cut -d' ' -f1)
    if [ "$(cat "$obj/.reap-header" 2> /dev/null)" != "$hstamp" ]; then
        rm -f "$obj"/memory/unix/apr_pools.lo "$obj"/memory/unix/apr_pools.o
        rm -f "$obj"/memory/unix/.libs/apr_pools.o
    fi
    say "make (log: $work/make.log)"
    make -C "$obj" -j"$jobs" > "$work/make.log" 2>&1 ||
        die "make failed; see $work/make.log"
    echo "$hstamp" > "$obj/.reap-header"
    make -C "$obj" install ${destdir:+DESTDIR="$destdir"} > "$work/install.log" 2>&1 ||
        die "make install failed; see $work/install.log"
    [ -e "$destdir$libdir/libapr-1.so.0" ] || die "no $destdir$libdir/libapr-1.so.0 after install"
    say "installed $destdir$libdir/libapr-1.so.0"
}

# --- 5. APR's own tests -------------------------------------------------------
check_tree() {
    say "make check: APR's own test suite (log: $work/check.log)"
    # testall exits 0 even when suites fail: the verdict is its last line.
    # Serially: APR's test/Makefile links some programs from two targets,
    # and under -j two jobs write the same library at once.
    make -C "$obj" check > "$work/check.log" 2>&1 ||
        { tail -20 "$work/check.log" >&2; die "APR's make check failed; see $work/check.log"; }
    if ! grep -q '^All tests passed\.' "$work/check.log"; then
        grep -E 'FAILED|Failed Tests' -A3 "$work/check.log" | head -40 >&2 || true
        die "APR's make check did not pass every suite; see $work/check.log"
    fi
    grep -E '^All tests passed\.' "$work/check.log"
}

# --- 6. apr-util's tests on the patched APR -----------------------------------
aprutil_dir() {
    local d
    for d in "$work"/apr-util-1.6.*/; do
        [ -f "$d/configure" ] && { echo "${d%/}"; return 0; }
    done
    return 0
}

check_aprutil_tree() {
    local au
    au=$(aprutil_dir)
    if [ -z "$au" ]; then
        ensure_deb_src
        say "apt-get source apr-util (into $work)"
        (cd "$work" && apt-get source -qq apr-util > apt-get-source-aprutil.log 2>&1) ||
            die "apt-get source apr-util failed; see $work/apt-get-source-aprutil.log"
        au=$(aprutil_dir)
        [ -n "$au" ] || die "apt-get source did not unpack apr-util into $work"
    fi
    if [ "$(cat "$au/.reap-apr" 2> /dev/null)" != "$prefix" ]; then
        say "configure apr-util against $prefix (log: $work/aprutil-configure.log)"
        (cd "$au" && ./configure --with-apr="$prefix" --prefix="$work/aprutil-unused" \
            > "$work/aprutil-configure.log" 2>&1) ||
            die "apr-util configure failed; see $work/aprutil-configure.log"
        echo "$prefix" > "$au/.reap-apr"
    fi
    say "make check in apr-util (log: $work/aprutil-check.log)"
    { make -C "$au" -j"$jobs" && make -C "$au" check; } > "$work/aprutil-check.log" 2>&1 ||
        die "apr-util's make check failed; see $work/aprutil-check.log"
    grep -q '^All tests passed\.' "$work/aprutil-check.log" ||
        die "apr-util's make check did not pass every suite; see $work/aprutil-check.log"
    echo "apr-util: $(grep -E '^All tests passed\.' "$work/aprutil-check.log")"
}

check_manifest
fetch_source
check_pristine
if [ "$fetch_only" = yes ]; then
    say "APR source ready: $src"
    exit 0
fi
if [ -n "$diff_out" ]; then
    write_diff
    exit 0
fi
prepare_tree
drop_in
configure_tree
build_tree
[ "$check" = no ] || check_tree
[ "$check_aprutil" = no ] || check_aprutil_tree
