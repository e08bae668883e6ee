#!/bin/bash
# tests/httpd-tests/run.sh - Apache's own test suite (httpd-tests, the
# "perl framework") against Debian's apache2 in two configurations, A and
# B, compared subtest by subtest.
#
# The suite is not packaged and none of it is copied into this
# repository: give a checkout of github:apache/httpd-tests (any directory
# holding its Makefile.PL and t/).  The script
#   1. installs the Debian packages the framework and its tests need, when
#      one is missing (apt-get, root): the list of Debian's own autopkgtest
#      of apache2 (debian/tests/control: libwww-perl, libnet-ssleay-perl,
#      libanyevent-perl, libdatetime-perl, libhtml-parser-perl,
#      libcrypt-ssleay-perl, libhttp-dav-perl, libprotocol-http2-perl,
#      libfcgi-perl), plus libapache2-mod-perl2 for Apache::Test itself,
#      which the git checkout does not carry (Debian ships it in
#      mod_perl's package), and libio-socket-ssl-perl,
#      liblwp-protocol-https-perl; installing mod_perl enables it in
#      /etc/apache2 and may restart the system's apache2, so the install
#      runs with a policy-rc.d that forbids restarts and disables mod_perl
#      again when it was not enabled before: the machine's apache2 is left
#      as it was;
#   2. for each MPM and each configuration, copies the checkout into a work
#      directory owned by `nobody` (the framework will not run httpd as
#      root) and builds the httpd.conf the framework inherits from, the
#      way Debian's autopkgtest does: Debian's apache2.conf with its
#      Includes commented out, the MPM's .load, every other .load of
#      /etc/apache2/mods-available (but perl, and this project's reap and
#      bc), the test-only filter modules, mime.conf;
#   3. runs `perl Makefile.PL -apxs /usr/bin/apxs2 -httpd_conf ...` and
#      `t/TEST -port select [files]` as nobody, verbose, with the
#      configuration's LD_LIBRARY_PATH;
#   4. reads every subtest's result from the TAP output (ok, not ok, skip,
#      todo, or a whole file skipped or dead) and prints, per MPM, the
#      subtests whose result differs between A and B, and the counts.
#
# A configuration is a comma-separated list of
#   apr=stock|reap|DIR   Debian's libapr-1 [stock]; the reap-backed APR of
#                        the build (BUILD/install/apr/lib); or a directory
#                        holding a libapr-1.so.0 (through LD_LIBRARY_PATH)
#   mods=DIR             every mod_NAME.so in DIR is loaded instead of
#                        Debian's mod_NAME.so [none]
#   mod_reap             load the build's mod_reap.so (ap_pfree frees on the
#                        reap-backed APR; its start-up line, which says which
#                        APR runs, is checked against apr=) [not loaded]
# or a name for one:
#   stock       apr=stock,mod_reap          Debian's APR and modules, and mod_reap
#   reap        apr=reap,mod_reap           the reap-backed APR, Debian's modules
# (the named ones load mod_reap on both sides, so that the APR is the one
# thing that differs and the log proves which one ran; apr=stock alone is
# Debian exactly as installed)
#   reap-mods   apr=reap,mods=BUILD/httpd-modules/lib,mod_reap
#                                           ... with this project's reap-aware
#                                           modules (httpd-patch/) and mod_reap
#   stock-mods  apr=stock,mods=BUILD/httpd-modules/lib,mod_reap
#                                           those modules on Debian's APR
#
# Usage: tests/httpd-tests/run.sh --suite DIR [options] [t/FILE.t ...]
#   --suite DIR     the httpd-tests checkout (read only; copied)
#   --a SPEC        configuration A                    [stock]
#   --b SPEC        configuration B                    [reap]
#   --mpm NAME      worker, event or prefork; repeat for several [worker]
#   --build DIR     the project's build directory      [<repo>/build]
#   --out DIR       where the work copies, logs and results go (made empty)
#                   [a new /tmp/httpd-tests.XXXXXX]
#   --no-deps       do not look for missing packages (step 1)
#   --port N        the framework's first port [select: the first free one
#                   from 8529]; give runs started side by side ports far
#                   apart (e.g. 9600 and 11600): each takes a range of them
#   t/FILE.t ...    the test files to run [the whole suite]
# Output: per MPM, "identical" or the differing subtests; the counts of
# each side; OUT/results.csv (mpm,config,file,subtest,result) and
# OUT/<mpm>-<A|B>/test.log.  Exit status 0 when every subtest's result is
# the same on both sides, 1 when some differ, 2 on a usage or set-up
# error.  The suite's own failures are not this script's: a subtest that
# fails on both sides is "identical".
#
# Examples:
#   git clone <httpd-tests> /tmp/httpd-tests        # (github:apache/httpd-tests)
#   tests/httpd-tests/run.sh --suite /tmp/httpd-tests                 # stock vs reap APR, worker
#   tests/httpd-tests/run.sh --suite /tmp/httpd-tests --mpm worker --mpm event --mpm prefork
#   tests/httpd-tests/run.sh --suite /tmp/httpd-tests --a stock --b reap-mods \
#       t/modules/dav.t t/modules/rewrite.t t/modules/autoindex.t t/modules/autoindex2.t t/modules/sed.t

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$top/tests/httpd-tests
suite= out= build=$top/build deps=yes port=select
spec_a=stock spec_b=reap
mpms=()
files=()

die() { echo "httpd-tests/run.sh: $*" >&2; exit 2; }
say() { printf '%s\n' "$*"; }

while [ $# -gt 0 ]; do
    case $1 in
    --suite) suite=${2:?--suite needs a directory}; shift ;;
    --a) spec_a=${2:?--a needs a configuration}; shift ;;
    --b) spec_b=${2:?--b needs a configuration}; shift ;;
    --mpm) mpms+=("${2:?--mpm needs worker, event or prefork}"); shift ;;
    --build) build=${2:?--build needs a directory}; shift ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --no-deps) deps=no ;;
    --port) port=${2:?--port needs a number}; shift
        case $port in *[!0-9]*) die "--port takes a number" ;; esac ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) files+=("$1") ;;
    esac
    shift
done
[ -n "$suite" ] || die "--suite DIR is required (a checkout of httpd-tests)"
suite=$(cd "$suite" 2>/dev/null && pwd) || die "no directory $suite"
[ -f "$suite/Makefile.PL" ] && [ -d "$suite/t" ] || die "$suite holds no httpd-tests (Makefile.PL, t/)"
[ ${#mpms[@]} -gt 0 ] || mpms=(worker)
for m in "${mpms[@]}"; do
    case $m in worker | event | prefork) ;; *) die "unknown MPM '$m'" ;; esac
done
[ "$(id -u)" = 0 ] || die "run it as root: it installs packages and runs the suite as nobody"
build=$(cd "$build" 2>/dev/null && pwd) || build=$top/build

# --- 1. the packages the framework needs ---------------------------------------
PERL_PACKAGES=(libapache2-mod-perl2 libwww-perl libnet-ssleay-perl libanyevent-perl
    libdatetime-perl libhtml-parser-perl libcrypt-ssleay-perl libhttp-dav-perl
    libprotocol-http2-perl libfcgi-perl libio-socket-ssl-perl liblwp-protocol-https-perl
    apache2-dev)

install_deps() {
    local missing=() p perl_was=no policy=/usr/sbin/policy-rc.d
    for p in "${PERL_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    say "# installing ${missing[*]}"
    [ -e /etc/apache2/mods-enabled/perl.load ] && perl_was=yes
    local own_policy=no
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=yes
    fi
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >"$out/apt-get.log" 2>&1 || {
        [ $own_policy = no ] || rm -f "$policy"
        tail -20 "$out/apt-get.log" >&2
        die "apt-get install failed (log: $out/apt-get.log)"
    }
    [ $own_policy = no ] || rm -f "$policy"
    if [ $perl_was = no ] && [ -e /etc/apache2/mods-enabled/perl.load ]; then
        a2dismod -q perl >/dev/null
    fi
}

# --- configurations -------------------------------------------------------------
# parse_spec <spec>: sets APR_LIB (empty: Debian's), MODS_DIR, LOAD_REAP.
parse_spec() {
    local s=$1 item
    case $s in
    stock) s=apr=stock,mod_reap ;;
    reap) s=apr=reap,mod_reap ;;
    reap-mods) s=apr=reap,mods=$build/httpd-modules/lib,mod_reap ;;
    stock-mods) s=apr=stock,mods=$build/httpd-modules/lib,mod_reap ;;
    esac
    APR_LIB= MODS_DIR= LOAD_REAP=no
    local IFS=,
    for item in $s; do
        case $item in
        apr=stock) APR_LIB= ;;
        apr=reap) APR_LIB=$build/install/apr/lib ;;
        apr=*) APR_LIB=${item#apr=} ;;
        mods=none) MODS_DIR= ;;
        mods=*) MODS_DIR=${item#mods=} ;;
        mod_reap) LOAD_REAP=yes ;;
        *) die "unknown part '$item' of configuration '$1'" ;;
        esac
    done
    if [ -n "$APR_LIB" ]; then
        [ -e "$APR_LIB/libapr-1.so.0" ] || die "no libapr-1.so.0 in $APR_LIB (make -C build apr-build)"
    fi
    if [ -n "$MODS_DIR" ]; then
        ls "$MODS_DIR"/mod_*.so >/dev/null 2>&1 || die "no mod_*.so in $MODS_DIR (make -C build httpd-modules)"
    fi
    if [ $LOAD_REAP = yes ]; then
        [ -f "$build/mod_reap/apxs/.libs/mod_reap.so" ] || die "no mod_reap.so in $build (make -C build)"
    fi
    return 0
}

# write_conf <mpm> <file>: the httpd.conf the framework inherits, as Debian's
# autopkgtest writes it, with the configuration's modules.
write_conf() {
    local mpm=$1 conf=$2 load name so
    cp /etc/apache2/apache2.conf "$conf"
    cat "/etc/apache2/mods-available/mpm_$mpm.load" >>"$conf"
    for load in /etc/apache2/mods-available/*.load; do
        case ${load##*/} in mpm_* | perl.load | reap.load | bc.load) continue ;; esac
        cat "$load" >>"$conf"
    done
    for name in bucketeer case_filter case_filter_in; do
        echo "LoadModule ${name}_module /usr/lib/apache2/modules/mod_$name.so" >>"$conf"
    done
    cat /etc/apache2/mods-available/mime.conf >>"$conf"
    echo "ServerName localhost" >>"$conf"
    sed -i 's,^Include,#Include,' "$conf"
    if [ -n "$MODS_DIR" ]; then
        for so in "$MODS_DIR"/mod_*.so; do
            name=${so##*/}
            grep -q "/$name\$" "$conf" || die "$name replaces no module Debian loads"
            sed -i "s,^\(LoadModule [a-z_0-9]*\) .*/$name\$,\1 $so," "$conf"
        done
    fi
    if [ $LOAD_REAP = yes ]; then
        echo "LoadModule reap_module $build/mod_reap/apxs/.libs/mod_reap.so" >>"$conf"
    fi
}

# run_side <mpm> <A|B> <spec>: the suite once; its TAP into results.csv.
run_side() {
    local mpm=$1 side=$2 spec=$3 dir=$out/$1-$2 ld t0
    parse_spec "$spec"
    rm -rf "$dir"
    mkdir -p "$dir"
    rsync -a --exclude=.git "$suite/" "$dir/suite/"
    write_conf "$mpm" "$dir/suite/apache2.conf.debian"
    chown -R nobody:nogroup "$dir"
    ld=
    if [ -n "$APR_LIB" ] || [ $LOAD_REAP = yes ]; then
        ld=${APR_LIB:+$APR_LIB:}$build/libreap/.libs
    fi
    say "# $mpm, $side = $spec: apr=${APR_LIB:-Debian} modules=${MODS_DIR:-Debian} mod_reap=$LOAD_REAP"
    t0=$(date +%s)
    # envvars as Debian's autopkgtest reads it (the inherited apache2.conf
    # names its variables); it unsets HOME, which the framework wants.
    runuser -u nobody -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C \
        HARNESS_VERBOSE=1 LD=$ld PORT=$port DIR="$dir/suite" bash -c '
        . /etc/apache2/envvars
        export HOME=$DIR
        [ -z "$LD" ] || export LD_LIBRARY_PATH=$LD
        cd "$DIR" || exit 2
        perl Makefile.PL -apxs /usr/bin/apxs2 -httpd_conf "$DIR/apache2.conf.debian" || exit 2
        exec t/TEST -port "$PORT" "$@"' run "${files[@]}" >"$dir/test.log" 2>&1 || true
    say "#   $(($(date +%s) - t0)) s; $(grep -E '^(Files=|Result:)' "$dir/test.log" | tr '\n' ' ')"
    grep -q '^Files=' "$dir/test.log" || {
        tail -20 "$dir/test.log" | sed 's/^/#   /'
        die "the suite did not run ($dir/test.log)"
    }
    check_apr "$dir/suite/t/logs/error_log"
    python3 "$here/tap.py" "$mpm" "$side" "$dir/test.log" >>"$out/results.csv"
}

# check_apr <error_log>: with mod_reap loaded, its start-up line names the
# APR the server ran on; it must be the configuration's.
check_apr() {
    [ $LOAD_REAP = yes ] || return 0
    local want='is reap-backed' other='is NOT reap-backed'
    [ -n "$APR_LIB" ] || { want='is NOT reap-backed'; other='is reap-backed'; }
    grep -q "mod_reap: .*$want" "$1" && ! grep -q "mod_reap: .*$other" "$1" ||
        die "$1: mod_reap does not say the server's APR $want"
    say "#   mod_reap: APR $want"
}

if [ -z "$out" ]; then
    out=$(mktemp -d /tmp/httpd-tests.XXXXXX)
else
    mkdir -p "$out" && rm -rf "${out:?}"/*
fi
out=$(cd "$out" && pwd)
chmod 755 "$out"
[ $deps = no ] || install_deps
for s in "$spec_a" "$spec_b"; do parse_spec "$s"; done
say "# httpd-tests from $suite ($(git -C "$suite" log -1 --format=%h 2>/dev/null || echo 'not git')); $(apache2 -v | sed -n 's/^Server version: //p'); results in $out"
echo "mpm,config,file,subtest,result" >"$out/results.csv"
status=0
for mpm in "${mpms[@]}"; do
    run_side "$mpm" A "$spec_a"
    run_side "$mpm" B "$spec_b"
done
python3 "$here/tap.py" --compare "$out/results.csv" "$spec_a" "$spec_b" || status=1
exit $status
