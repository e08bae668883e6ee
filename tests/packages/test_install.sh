#!/bin/bash
# test_install.sh - the route without packages, from a fresh build
# directory: configure --prefix=P, make, make install DESTDIR=D.
#   - every file lands under D/P, and the list holds what the README
#     promises (libraries, headers, libreap.pc, the modules and their
#     .load/.conf files, reap-bc);
#   - no installed ELF file has a RUNPATH into the build directory or D:
#     only P/lib, or none;
#   - libreap.pc gives -L and a RUNPATH of P/lib (P is no system directory);
#   - make uninstall DESTDIR=D removes every file make install put there.
# It writes only under a temporary directory.  Run by make check-packages.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/httpd/cleanup.sh"

failed=0
say() { printf '%s\n' "$*"; }
check() {
    local desc=$1
    shift
    if "$@"; then say "ok   - $desc"; else say "FAIL - $desc"; failed=$((failed + 1)); fi
}

[ -x "$top/configure" ] || { say "FATAL: no $top/configure (autoreconf -fi)"; exit 1; }
tmp=$(mktemp -d /tmp/reap-install.XXXXXX)
cleanup_push "rm -rf '$tmp'"
prefix=/opt/reap-install-test
dest=$tmp/dest
build=$tmp/build
mkdir -p "$build"

# run <log> <command...>: the command's output into $tmp/<log>, shown when
# it fails.
run() {
    local log=$tmp/$1
    shift
    "$@" >"$log" 2>&1 && return 0
    tail -30 "$log" | sed 's/^/#   /'
    return 1
}

check "configure --prefix=$prefix" \
    run configure.log sh -c "cd '$build' && '$top/configure' --prefix='$prefix'"
check "make" run make.log make -C "$build" -j2
check "make install DESTDIR=..." run install.log make -C "$build" install DESTDIR="$dest"

(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort) >"$tmp/installed"
say "# installed: $(wc -l <"$tmp/installed") files"
check "everything went under DESTDIR$prefix" \
    eval "! grep -v '^$prefix/' '$tmp/installed'"
for f in lib/libreap.so.5 lib/libreap-malloc.so lib/pkgconfig/libreap.pc \
    include/reap.h include/mod_reap.h bin/reap-bc modules/mod_reap.so \
    modules/mod_bc.so share/reap/apache2/reap.load share/reap/apache2/reap.conf \
    share/reap/apache2/bc.load share/reap/apache2/bc.conf; do
    check "installed: $f" grep -qx "$prefix/$f" "$tmp/installed"
done

# runpaths_ok: every ELF's RUNPATH/RPATH is $prefix/lib or absent.
runpaths_ok() {
    local f rp bad=0
    while read -r f; do
        [ -f "$dest$f" ] && [ ! -L "$dest$f" ] || continue
        head -c 4 "$dest$f" | grep -q 'ELF' || continue
        rp=$(readelf -d "$dest$f" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
        case $rp in
        "" | "$prefix/lib") ;;
        *) say "#   $f: RUNPATH $rp"; bad=1 ;;
        esac
    done <"$tmp/installed"
    return $bad
}
check "no installed ELF has a RUNPATH but $prefix/lib" runpaths_ok
libs=$(PKG_CONFIG_SYSROOT_DIR= PKG_CONFIG_LIBDIR="$dest$prefix/lib/pkgconfig" \
    pkg-config --libs libreap)
check "libreap.pc: -L and a RUNPATH of $prefix/lib ($libs)" \
    eval "printf '%s\n' '$libs' | grep -q -- '-L$prefix/lib -lreap -Wl,-rpath,$prefix/lib'"

check "make uninstall DESTDIR=..." run uninstall.log make -C "$build" uninstall DESTDIR="$dest"
left=$(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\.||')
check "make uninstall removed every file it installed (left: ${left:-none})" test -z "$left"

say "# $failed check(s) failed"
[ $failed = 0 ]
