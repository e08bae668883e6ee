#!/bin/sh
# httpd-smoke.sh - Debian's apache2 on the reap-backed APR, with no module
# of this project loaded: APR alone.
#
# Starts /usr/sbin/apache2 (worker MPM, tests/httpd/httpd_lib.sh) with the
# patched libapr-1.so.0 that apr-patch/build-apr.sh installed, and checks
# that:
#   - the server really mapped the patched libapr-1 (and libreap);
#   - it serves static files byte for byte (a small text file, 256 KiB of
#     random bytes, 200 times over) and a directory listing naming every
#     file, and answers 404 for what is missing;
#   - it stops cleanly on `apache2 -k stop`;
#   - its error log holds nothing but notices.
#
# Environment: REAP_APR_DIR, the patched APR's prefix [./install/apr, which
# is right when run by `make check-httpd` from the project's build directory].

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
srcdir=${srcdir:-.}
MR_APR_LIB=${REAP_APR_DIR:-$PWD/install/apr}/lib
. "$srcdir/tests/httpd/httpd_lib.sh"

[ -e "$MR_APR_LIB/libapr-1.so.0" ] ||
    mr_fatal "no $MR_APR_LIB/libapr-1.so.0: run apr-patch/build-apr.sh (or set REAP_APR_DIR)"
apr_lib=$(readlink -f "$MR_APR_LIB/libapr-1.so.0")

MR_NEED=
MR_SITE=smoke_site
MR_SERVERS=1
MR_THREADS=8
smoke_site() {
    cat <<EOF
LoadModule dir_module $MR_MODDIR/mod_dir.so
LoadModule autoindex_module $MR_MODDIR/mod_autoindex.so
LogLevel notice
MaxMemFree 256
<Directory "$MR_ROOT/htdocs">
    Options +Indexes
</Directory>
DirectoryIndex index.html
EOF
}
mr_start
htdocs=$MR_ROOT/htdocs
mkdir -p "$htdocs/listing/sub"
printf 'hello from apache2 on reaps\n' >"$htdocs/hello.txt"
head -c 262144 /dev/urandom >"$htdocs/random.bin"
for f in alpha.txt beta.html gamma.bin; do
    echo "$f" >"$htdocs/listing/$f"
done
chmod -R a+rX "$htdocs"
pid=$(cat "$MR_ROOT/run/httpd.pid")
children=$(pgrep -P "$pid")

# The parent and every child map the patched libapr-1 and libreap.
check_maps() {
    for p in $pid $children; do
        grep -q " $apr_lib\$" "/proc/$p/maps" ||
            { mr_say "# process $p did not map $apr_lib"; return 1; }
        grep -q 'libreap\.so' "/proc/$p/maps" ||
            { mr_say "# process $p did not map libreap.so"; return 1; }
    done
    [ -n "$children" ]
}

# same_file <path>: GET <path> gives 200 and the file's bytes.
same_file() {
    code=$(curl -s -o "$MR_ROOT/got" -w '%{http_code}' "http://127.0.0.1:$MR_PORT/$1")
    [ "$code" = 200 ] && cmp -s "$MR_ROOT/got" "$htdocs/$1" && return 0
    mr_say "# GET /$1: status $code or a different body"
    return 1
}

static_files() {
    for f in hello.txt random.bin listing/alpha.txt; do
        same_file "$f" || return 1
    done
    ctype=$(curl -s -o /dev/null -w '%{content_type}' "http://127.0.0.1:$MR_PORT/hello.txt")
    case $ctype in text/plain*) ;; *) mr_say "# hello.txt served as '$ctype'"; return 1 ;; esac
}

# Many requests, so request pools are created, used and cleared many times.
repeated() {
    for i in $(seq 200); do
        echo "url = \"http://127.0.0.1:$MR_PORT/random.bin\""
        echo "output = \"$MR_ROOT/many.$((i % 4))\""
    done >"$MR_ROOT/curl.cfg"
    curl -s -K "$MR_ROOT/curl.cfg" || return 1
    for i in 0 1 2 3; do
        cmp -s "$MR_ROOT/many.$i" "$htdocs/random.bin" ||
            { mr_say "# a repeated GET returned a different body"; return 1; }
    done
}

listing() {
    mr_get /listing/
    [ "$MR_STATUS" = 200 ] && mr_body_has 'Index of /listing' || return 1
    for f in alpha.txt beta.html gamma.bin sub/; do
        mr_body_has "href=\"$f\"" || { mr_say "# listing does not name $f"; return 1; }
    done
    mr_get /no-such-file
    [ "$MR_STATUS" = 404 ]
}

# apache2 -k stop ends the parent and every child within 10 s.
clean_stop() {
    mr_env "$MR_APACHE" -d "$MR_ROOT" -f "$MR_ROOT/httpd.conf" -k stop ||
        return 1
    i=0
    while [ $i -lt 100 ]; do
        alive=
        for p in $pid $children; do
            kill -0 "$p" 2>/dev/null && alive="$alive $p"
        done
        [ -z "$alive" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    mr_say "# still running 10 s after -k stop:$alive"
    return 1
}

notices_only() {
    log=$MR_ROOT/logs/error.log
    grep -q 'resuming normal operations' "$log" &&
        grep -q 'caught SIGTERM, shutting down' "$log" || return 1
    mr_log_clean
}

mr_check "parent and children map the patched libapr-1 and libreap" check_maps
mr_check "static files are served byte for byte" static_files
mr_check "200 repeated requests return the same bytes" repeated
mr_check "a directory listing names every file; a 404 for what is missing" listing
mr_check "apache2 -k stop ends every process" clean_stop
mr_check "the error log holds notices only" notices_only
mr_finish
