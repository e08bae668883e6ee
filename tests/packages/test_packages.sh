#!/bin/bash
# test_packages.sh - the operator's route, on this machine, with the Debian
# packages in DEBS_DIR (debian/build-debs.sh makes them):
#   1. apt-get install ./*.deb next to Debian's own apache2;
#   2. a2enmod reap bc, apache2ctl restart: Debian's apache2 with its own
#      configuration runs on the reap-backed libapr-1 (the children map it,
#      the error log's start-up line says so, /reap-status and
#      /server-status?auto say so), and serves mod_bc, answers checked
#      against GNU bc;
#   2b. the reap-aware modules (libapache2-mod-reap-modules) switched in for
#      Debian's with the README's one-liner: the children map ours from
#      /usr/lib/apache2/modules/reap/, a PROPFIND, a PUT through InputSed, a
#      listing and a rewrite answer, and the requests freed; switched back
#      with one command: the children map Debian's again, which give the
#      same answers; then Debian's proxy_html (with proxy, proxy_http and
#      xml2enc, those of them it enabled disabled after) and ours by the
#      README's switch for it: a page of links proxied from the same
#      server, its links mapped as the ProxyHTMLURLMaps say, the same page
#      from both; apache2 is unmodified (dpkg --verify apache2);
#   3. a module built with plain `apxs -c -i` from a source that includes
#      mod_reap.h (the project's test module) loads, and its ap_pfree calls
#      free: a loop that allocates and frees 16 MB peaks under 1 MiB; and a
#      program built with `cc x.c $(pkg-config --cflags --libs libreap)`
#      runs with no LD_LIBRARY_PATH;
#   4. apt-get purge: Debian's libapr1 is in place and unmodified
#      (dpkg --verify), the loader finds it again, apache2 starts on it,
#      and the same module .so loads and answers there, without mod_reap
#      (ap_pfree does nothing).
# It leaves the machine as it found it, also when a check fails or it is
# interrupted: the packages are purged, /etc/apache2 is restored from a copy
# taken first, the module apxs installed is removed, and apache2 is stopped
# unless it was running before (then it is restarted on the restored
# configuration).  Debian's apache2 listens on port 80 as configured; the
# test stops when something else holds that port.
#
# Needs root and the .debs; run by `make check-packages` (which builds
# them first) or by hand: tests/packages/test_packages.sh build/debs

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
DEBS_DIR=$(cd "${1:-${DEBS_DIR:-$top/build/debs}}" 2>/dev/null && pwd) ||
    { echo "FATAL: no directory of .debs (${1:-${DEBS_DIR:-$top/build/debs}})"; exit 1; }
MR_BUILDDIR=$top/build MR_APR_LIB=
. "$top/tests/httpd/cleanup.sh"

GNU_BC=/usr/bin/bc
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
REAP_APR_DIR=/usr/lib/$MULTIARCH/reap-apr
DEBIAN_APR=/usr/lib/$MULTIARCH/libapr-1.so.0
MODDIR=/usr/lib/apache2/modules
failed=0
say() { printf '%s\n' "$*"; }
fatal() { say "FATAL: $*"; exit 1; }
check() {
    local desc=$1
    shift
    if "$@"; then say "ok   - $desc"; else say "FAIL - $desc"; failed=$((failed + 1)); fi
}
# quiet <command...>: run it with its output in $tmp/quiet.log, shown only
# when it fails (apt-get and dpkg talk a lot).
quiet() {
    "$@" >"$tmp/quiet.log" 2>&1 && return 0
    sed 's/^/#   /' "$tmp/quiet.log" | tail -40
    return 1
}

[ "$(id -u)" = 0 ] || { say "SKIP: needs root (it installs packages)"; exit 77; }
debs=("$DEBS_DIR"/*.deb)
[ -e "${debs[0]}" ] || fatal "no .deb in $DEBS_DIR (run debian/build-debs.sh)"
command -v apache2ctl >/dev/null || fatal "no apache2ctl (Debian package apache2)"
pkgs=()
for d in "${debs[@]}"; do
    pkgs+=("$(dpkg-deb -f "$d" Package)")
done
say "# packages: ${pkgs[*]}"
for p in "${pkgs[@]}"; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
        fatal "$p is installed already: this test installs and purges it; remove it first"
    fi
done

# ---- the machine as found, and how to get back to it --------------------------

tmp=$(mktemp -d /tmp/reap-packages.XXXXXX)
tar -C /etc -cpf "$tmp/etc-apache2.tar" apache2 || fatal "cannot copy /etc/apache2"
# The system's apache2, by its pid file: other servers (tests on loopback
# ports) may run apache2 binaries too, and are none of this test's business.
PIDFILE=/var/run/apache2/apache2.pid
system_running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }
# stop_system: stop it, also when a configuration under test is broken
# (apache2ctl stop checks the configuration first), and wait for it.
stop_system() {
    local i=0
    apache2ctl stop >/dev/null 2>&1 ||
        { system_running && kill -TERM "$(cat "$PIDFILE")"; }
    while system_running && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    ! system_running
}
was_running=0
system_running && was_running=1
port80_owner=$(ss -Htlnp 'sport = :80' 2>/dev/null | head -1)
if [ $was_running = 0 ] && [ -n "$port80_owner" ]; then
    fatal "port 80 is held by something other than apache2: $port80_owner"
fi
errlog=/var/log/apache2/error.log
log_start=$(wc -l <"$errlog" 2>/dev/null || echo 0)

restore_machine() {
    say "# restoring the machine"
    stop_system
    local installed=()
    for p in "${pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed' && installed+=("$p")
    done
    [ ${#installed[@]} = 0 ] ||
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${installed[@]}" >/dev/null 2>&1
    rm -f "$MODDIR/mod_reap_test.so"
    rm -rf /etc/apache2 && tar -C /etc -xpf "$tmp/etc-apache2.tar"
    ldconfig
    [ $was_running = 1 ] && apache2ctl start >/dev/null 2>&1
    rm -rf "$tmp"
}
cleanup_push restore_machine

# ---- helpers --------------------------------------------------------------------

# The libapr-1 the running apache2's children map, resolved.
child_libapr() {
    local pid
    for pid in $(pgrep -P "$(cat /var/run/apache2/apache2.pid 2>/dev/null || echo 1)" apache2); do
        grep -o '/[^ ]*libapr-1\.so[^ ]*' "/proc/$pid/maps" | head -1 | xargs -r readlink -f
        return
    done
}
# wait_up: apache2 answers on port 80.
wait_up() {
    local i=0
    while [ $i -lt 100 ]; do
        curl -s -o /dev/null http://127.0.0.1/ && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
new_log() { tail -n +"$((log_start + 1))" "$errlog" 2>/dev/null; }
get() { BODY=$(curl -s "http://127.0.0.1$1"); }
has() { printf '%s\n' "$BODY" | grep -q -- "$1"; }
json_requests() {
    printf '%s\n' "$BODY" | grep '"totals"' |
        sed -n "s/.*\"requests\": {[^}]*\"$1\": \([0-9][0-9]*\).*/\1/p"
}

# ---- 1. install ----------------------------------------------------------------------

check "apt-get installs the packages" \
    quiet env DEBIAN_FRONTEND=noninteractive apt-get install -y "${debs[@]}"
check "Debian's apache2 is still installed" \
    eval "dpkg-query -W -f='\${Status}' apache2 | grep -q 'ok installed'"
check "the loader now finds the reap-backed libapr-1" \
    eval "ldconfig -p | grep -m1 'libapr-1.so.0 ' | grep -q '$REAP_APR_DIR/'"

# ---- 2. enable and run -----------------------------------------------------------

check "a2enmod reap bc" a2enmod -q reap bc
check "apache2ctl configtest" quiet apache2ctl -t
stop_system
check "apache2ctl start" quiet apache2ctl start
check "apache2 answers on port 80" wait_up
lib=$(child_libapr)
check "its children map the reap-backed libapr-1 ($lib)" \
    eval "case '$lib' in '$REAP_APR_DIR'/*) true ;; *) false ;; esac"
check "the error log says reap-backed" \
    eval "new_log | grep -q 'mod_reap: libreap .* is reap-backed'"
get /reap-status
check "/reap-status says reap_backed" has '"reap_backed": true'
get "/server-status?auto"
check "/server-status?auto says ReapBacked: 1" has '^ReapBacked: 1'
# bc_same <query> <bc option> <program>: mod_bc's answer is GNU bc's.
bc_same() {
    local want
    want=$(printf '%s\n' "$3" | "$GNU_BC" -q $2)
    BODY=$(curl -s -H 'Content-Type: text/plain' --data-binary "$3" "http://127.0.0.1/bc$1")
    [ -n "$want" ] && [ "$BODY" = "$want" ]
}
check "mod_bc: 2^300 as GNU bc prints it" bc_same "" "" '2^300'
check "mod_bc: a recursive function as GNU bc" bc_same "" "" \
    'define f(n) { if (n < 2) return n; return f(n-1) + f(n-2) }; f(20)'
check "mod_bc with the math library: pi to 50 places as GNU bc -l" \
    bc_same "?l=1" -l 'scale=50; 4*a(1)'

# ---- 2b. the reap-aware modules in place of Debian's -------------------------------

MODS="dav_fs sed rewrite autoindex include"
REAP_MODS="reap_dav_fs reap_sed reap_rewrite reap_autoindex reap_include"
# what is enabled before this section: the switch back to Debian's enables
# all of MODS (and dav), the proxy_html part proxy and its kin; those that
# were off are disabled again at its end
mods_before_2b=$(ls /etc/apache2/mods-enabled)
# child_maps <file>: a child of the running apache2 maps <file>.
child_maps() {
    local pid
    for pid in $(pgrep -P "$(cat /var/run/apache2/apache2.pid 2>/dev/null || echo 1)" apache2); do
        grep -q " $1\$" "/proc/$pid/maps" && return 0
    done
    return 1
}
restart() {
    stop_system && quiet apache2ctl start && wait_up
}
data=$tmp/modules-data
mkdir -p "$data/dav" "$data/put" "$data/rw" "$data/ssi"
for i in $(seq 1 500); do : >"$data/dav/file-$i.txt"; done
echo rewritten >"$data/rw/target.txt"
for i in $(seq 1 500); do
    echo "$i <!--#echo var=\"DOCUMENT_URI\" --> <!--#echo encoding=\"url\" var=\"QUERY_STRING\" -->"
done >"$data/ssi/page.shtml"
# an hour back: a file changed within the second has a weak ETag
touch -d '1 hour ago' "$data/dav" "$data/dav"/* "$data/rw"/*
chown -R www-data:www-data "$data"
chmod 755 "$tmp"
cat >/etc/apache2/conf-enabled/zz-reap-modules-test.conf <<CONF
Alias /reap-mods "$data"
<Directory "$data">
    Require local
    Options +Indexes
</Directory>
<Location /reap-mods/dav>
    Dav On
</Location>
<Directory "$data/ssi">
    Options +Includes
    AddOutputFilter INCLUDES .shtml
</Directory>
<Location /reap-mods/put>
    Dav On
    SetInputFilter Sed
    InputSed "s/a/b/g"
</Location>
<Directory "$data/rw">
    # per directory: Debian's site is a <VirtualHost>, which does not
    # inherit the server's rewrite rules
    RewriteEngine On
    RewriteBase /reap-mods/rw/
    RewriteCond %{REQUEST_URI} !^/nomatch/
    RewriteRule ^x$ target.txt [L]
</Directory>
CONF
python3 -c "import sys; sys.stdout.write(('a' * 79 + '\n') * 20000)" >"$tmp/put.txt"
tr a b <"$tmp/put.txt" >"$tmp/put.expected"
# answers <side>: the four workloads' answers into $tmp/<side>.*
answers() {
    curl -s -X PROPFIND -H 'Depth: 1' http://127.0.0.1/reap-mods/dav/ >"$tmp/$1.propfind.raw"
    "$top/tests/httpd/xmlns_sorted.py" "$tmp/$1.propfind.raw" >"$tmp/$1.propfind"
    rm -f "$data/put/in.txt"
    curl -s -o /dev/null -w '%{http_code}\n' -T "$tmp/put.txt" \
        http://127.0.0.1/reap-mods/put/in.txt >"$tmp/$1.put"
    cat "$data/put/in.txt" >>"$tmp/$1.put" 2>/dev/null
    curl -s http://127.0.0.1/reap-mods/dav/ >"$tmp/$1.list"
    curl -s http://127.0.0.1/reap-mods/rw/x >"$tmp/$1.rewrite"
    curl -s 'http://127.0.0.1/reap-mods/ssi/page.shtml?a%20b' >"$tmp/$1.ssi"
}
# the README's one-liner (a2dismod passes over modules not enabled)
check "switch: a2dismod -f $MODS && a2enmod $REAP_MODS" \
    quiet sh -c "a2dismod -q -f $MODS && a2enmod -q $REAP_MODS"
check "apache2ctl configtest with the reap-aware modules" quiet apache2ctl -t
check "apache2 restarts with them" restart
for m in $MODS; do
    check "its children map our mod_$m.so" child_maps "$MODDIR/reap/mod_$m.so"
done
get /reap-status
frees0=$(json_requests frees)
answers ours
sleep 0.5
get /reap-status
frees1=$(json_requests frees)
check "PROPFIND lists the 500 files" \
    test "$(grep -o '<D:href>/reap-mods/dav/file-' "$tmp/ours.propfind" | wc -l)" = 500
check "the PUT through InputSed stored what sed makes of it" \
    eval "head -1 '$tmp/ours.put' | grep -qx 201 && tail -n +2 '$tmp/ours.put' | cmp -s - '$tmp/put.expected'"
check "the listing names the files" grep -q 'file-500.txt' "$tmp/ours.list"
check "the rewrite reaches its target ($(head -c 60 "$tmp/ours.rewrite" | tr -d '\n'))" \
    grep -qx rewritten "$tmp/ours.rewrite"
check "the SSI page echoes its URI and query" grep -q '^500 /reap-mods/ssi/page.shtml a%2520b$' "$tmp/ours.ssi"
check "the requests freed (mod_reap's counters: ${frees0:-?}, then ${frees1:-?})" \
    test "${frees1:-0}" -gt $((${frees0:-0} + 100))
check "back to Debian's modules with one command" \
    quiet sh -c "a2dismod -q $REAP_MODS && a2enmod -q $MODS"
check "apache2 restarts with Debian's" restart
for m in $MODS; do
    check "its children map Debian's mod_$m.so" child_maps "$MODDIR/mod_$m.so"
done
answers debian
for w in propfind put list rewrite ssi; do
    check "Debian's $w answer is ours" cmp -s "$tmp/debian.$w" "$tmp/ours.$w"
done

# The sixth, reap_proxy_html, with the README's switch for it.  Debian's
# proxy_html needs proxy and xml2enc (its .load's Depends: a2enmod enables
# them with it) and, to proxy over HTTP, proxy_http.  The page is proxied
# from the same server; its links name the backend, and two maps rewrite
# them (a prefix and a regex); links to elsewhere stay as they are.  The
# modules it enables are disabled at the section's end with the others
# (when it stops early, restore_machine puts back all of /etc/apache2).
HTML_LINKS=400 HTML_IMGS=100 HTML_OTHERS=50
mkdir -p "$data/html"
{
    echo '<html><head><title>links</title></head><body>'
    for i in $(seq 1 $HTML_LINKS); do
        echo "<p><a href=\"http://backend.invalid/html/page-$i.html\">page $i</a></p>"
    done
    for i in $(seq 1 $HTML_IMGS); do echo "<img src=\"/img/pic-$i.png\" alt=\"$i\">"; done
    for i in $(seq 1 $HTML_OTHERS); do echo "<a href=\"http://elsewhere.invalid/$i\">$i</a>"; done
    echo '</body></html>'
} >"$data/html/links.html"
touch -d '1 hour ago' "$data/html" "$data/html/links.html"
chown -R www-data:www-data "$data/html"
cat >/etc/apache2/conf-enabled/zz-reap-proxy-html-test.conf <<CONF
<IfModule proxy_html_module>
<Location /reap-proxy/>
    Require local
    ProxyPass http://127.0.0.1/reap-mods/html/
    ProxyHTMLEnable On
    ProxyHTMLURLMap http://backend.invalid/html/ /reap-proxy/
    ProxyHTMLURLMap ^/img/(pic-[0-9]+)\\.png\$ /reap-proxy/img/\$1.png R
</Location>
</IfModule>
CONF
proxied() { curl -s http://127.0.0.1/reap-proxy/links.html >"$tmp/$1.proxy_html"; }
# occurs <n> <file> <regex>: <regex> occurs <n> times in <file>.
occurs() { test "$(grep -o -- "$3" "$2" | wc -l)" = "$1"; }
check "a2enmod proxy_html proxy_http" \
    quiet a2enmod -q proxy_html proxy_http
check "apache2 restarts with Debian's proxy_html" restart
check "its children map Debian's mod_proxy_html.so" child_maps "$MODDIR/mod_proxy_html.so"
proxied debian
check "switch: a2dismod proxy_html && a2enmod reap_proxy_html" \
    quiet sh -c "a2dismod -q proxy_html && a2enmod -q reap_proxy_html"
check "apache2 restarts with reap_proxy_html" restart
check "its children map our mod_proxy_html.so" child_maps "$MODDIR/reap/mod_proxy_html.so"
proxied ours
page=$tmp/ours.proxy_html
check "the proxied page's $HTML_LINKS links are mapped to /reap-proxy/" \
    occurs $HTML_LINKS "$page" 'href="/reap-proxy/page-[0-9]*\.html"'
check "its $HTML_IMGS images are mapped by the regex" \
    occurs $HTML_IMGS "$page" 'src="/reap-proxy/img/pic-[0-9]*\.png"'
check "its $HTML_OTHERS links elsewhere are left as they were" \
    occurs $HTML_OTHERS "$page" 'href="http://elsewhere\.invalid/[0-9]*"'
check "none names the backend any more" occurs 0 "$page" 'backend\.invalid'
check "Debian's proxied page is ours" cmp -s "$tmp/debian.proxy_html" "$tmp/ours.proxy_html"
check "back: a2dismod reap_proxy_html && a2enmod proxy_html" \
    quiet sh -c "a2dismod -q reap_proxy_html && a2enmod -q proxy_html"
rm -f /etc/apache2/conf-enabled/zz-reap-proxy-html-test.conf
# what the section enabled that was off, disabled (-f: dependents too)
added=$(comm -13 <(echo "$mods_before_2b" | sed -n 's/\.load$//p') \
    <(ls /etc/apache2/mods-enabled | sed -n 's/\.load$//p') | tr '\n' ' ')
[ -z "${added// /}" ] ||
    check "a2dismod what this section enabled: $added" quiet a2dismod -q -f $added
check "mods-enabled is as before this section" \
    test "$(ls /etc/apache2/mods-enabled)" = "$mods_before_2b"
rm -f /etc/apache2/conf-enabled/zz-reap-modules-test.conf
check "apache2 restarts as it was before this section" restart
check "nothing of apache2 was changed (dpkg --verify apache2 apache2-bin)" \
    eval 'test -z "$(dpkg --verify apache2 apache2-bin)"'

# ---- 3. a module built with plain apxs -----------------------------------------------

cp "$top/tests/httpd/mod_reap_test.c" "$tmp/"
check "apxs -c -i of a module using mod_reap.h, with no extra flags" \
    eval "(cd '$tmp' && apxs -c -i mod_reap_test.c) >'$tmp/apxs.log' 2>&1 || { cat '$tmp/apxs.log'; false; }"
cat >/etc/apache2/conf-enabled/zz-reap-package-test.conf <<EOF
LoadModule reap_test_module $MODDIR/mod_reap_test.so
<Location /reap-package-test>
    SetHandler reap-test
    Require local
</Location>
EOF
check "apache2ctl graceful with the module" quiet apache2ctl graceful
sleep 1
wait_up
get "/reap-package-test?n=10&size=100&free=10"
check "the module says ap_pfree works" has 'pfree_works=1'
get "/reap-package-test?n=2000&size=8000&free=2000&mode=loop"
sleep 0.5
get /reap-status
with=$(json_requests peak_max)
check "16 MB allocated and freed in a loop: the largest request peak stays under 1 MiB ($with)" \
    test "${with:-99999999}" -lt 1048576
get "/reap-package-test?n=2000&size=8000&free=0&mode=loop"
sleep 0.5
get /reap-status
without=$(json_requests peak_max)
check "... and without the frees it holds all 16 MB ($without)" \
    test "${without:-0}" -ge 16000000
cp "$MODDIR/mod_reap_test.so" "$tmp/mod_reap_test.so"
rm -f /etc/apache2/conf-enabled/zz-reap-package-test.conf "$MODDIR/mod_reap_test.so"

cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <reap.h>

int main(void)
{
    reap_t *r = reap_create(NULL);
    char *a = reap_malloc(r, 100), *b;

    strcpy(a, "reap");
    reap_free(r, a);
    b = reap_malloc(r, 100);        /* the freed block again */
    printf("%s %s\n", reap_version(), b == a ? "reused" : "not reused");
    reap_destroy(r);
    return 0;
}
EOF
check "cc with pkg-config --cflags --libs libreap builds a program" \
    eval "cc -o '$tmp/prog' '$tmp/prog.c' \$(pkg-config --cflags --libs libreap)"
out=$(env -u LD_LIBRARY_PATH "$tmp/prog" 2>&1)
check "it runs with no LD_LIBRARY_PATH, on the installed libreap ($out)" \
    eval "printf '%s\n' '$out' | grep -q ' reused$'"

# ---- 4. back to stock ---------------------------------------------------------------

stop_system
check "apt-get purge removes the packages" \
    quiet env DEBIAN_FRONTEND=noninteractive apt-get purge -y "${pkgs[@]}"
check "Debian's libapr1 is unmodified (dpkg --verify libapr1)" \
    eval "test -z \"\$(dpkg --verify libapr1)\""
check "the loader finds Debian's libapr-1 again" \
    eval "ldconfig -p | grep -m1 'libapr-1.so.0 ' | grep -q '=> /usr/lib/$MULTIARCH/libapr-1.so.0\|=> /lib/$MULTIARCH/libapr-1.so.0'"
check "nothing of the packages is left in /etc/apache2" \
    eval "! ls /etc/apache2/mods-enabled/reap.* /etc/apache2/mods-available/reap.* /etc/apache2/mods-enabled/bc.* >/dev/null 2>&1"
check "apache2ctl start on Debian's APR" quiet apache2ctl start
check "apache2 answers" wait_up
lib=$(child_libapr)
check "its children map Debian's libapr-1 ($lib)" \
    test "$lib" = "$(readlink -f "$DEBIAN_APR")"
cp "$tmp/mod_reap_test.so" "$MODDIR/mod_reap_test.so"
cat >/etc/apache2/conf-enabled/zz-reap-package-test.conf <<EOF
LoadModule reap_test_module $MODDIR/mod_reap_test.so
<Location /reap-package-test>
    SetHandler reap-test
    Require local
</Location>
EOF
check "the apxs-built module loads on Debian's APR without mod_reap" \
    quiet apache2ctl graceful
sleep 1
wait_up
get "/reap-package-test?n=100&size=1000&free=100"
check "... and answers, ap_pfree doing nothing ($BODY)" has 'freed=101 .*pfree_works=0'
rm -f /etc/apache2/conf-enabled/zz-reap-package-test.conf "$MODDIR/mod_reap_test.so"
check "no child crashed" eval "! new_log | grep -q 'exit signal'"

say "# $failed check(s) failed"
[ $failed = 0 ]
