#!/bin/bash
# httpd-smoke.sh - Debian's apache2 on the reap-backed APR.
#
# Starts /usr/sbin/apache2 (worker MPM) with LD_LIBRARY_PATH pointing at the
# patched libapr-1.so.0 that apr-patch/build-apr.sh installed, on a temporary
# ServerRoot listening on 127.0.0.1 only, and checks that:
#   - the server really mapped the patched libapr-1 (and libreap);
#   - it serves static files byte for byte (a small text file, 256 KiB of
#     random bytes) and a directory listing naming every file;
#   - it stops cleanly on `apache2 -k stop`;
#   - its error log holds nothing but notices.
# The server is always stopped on exit (trap), whatever failed.
#
# Environment: REAP_APR_DIR, the patched APR's prefix [./install/apr, which
# is right when run by `make check` from the project's build directory];
# APACHE2 [/usr/sbin/apache2]; APACHE_MODULES [/usr/lib/apache2/modules].
# Exit status: 0 pass, 1 fail (the reason and the error log on stderr).

set -uo pipefail

apr_dir=${REAP_APR_DIR:-$PWD/install/apr}
apache2=${APACHE2:-/usr/sbin/apache2}
modules=${APACHE_MODULES:-/usr/lib/apache2/modules}
tmp=
pid=

fail() {
    echo "httpd-smoke: FAIL: $*" >&2
    if [ -n "$tmp" ] && [ -s "$tmp/error.log" ]; then
        echo "--- error log ---" >&2
        cat "$tmp/error.log" >&2
    fi
    exit 1
}

say() { echo "httpd-smoke: $*"; }

run_apache() {
    LD_LIBRARY_PATH="$apr_dir/lib" "$apache2" -d "$tmp" -f "$tmp/httpd.conf" "$@"
}

server_pid() {
    [ -s "$tmp/httpd.pid" ] && cat "$tmp/httpd.pid"
}

# Stop the server if it is still up: -k stop, then TERM, then KILL.
cleanup() {
    local p
    p=${pid:-$( [ -n "$tmp" ] && server_pid 2> /dev/null )}
    if [ -n "$p" ] && kill -0 "$p" 2> /dev/null; then
        run_apache -k stop > /dev/null 2>&1 || kill -TERM "$p" 2> /dev/null
        for _ in $(seq 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2> /dev/null
    fi
    [ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# --- preconditions -----------------------------------------------------------
[ -x "$apache2" ] || fail "no $apache2 (install Debian's apache2)"
[ -f "$modules/mod_mpm_worker.so" ] || fail "no $modules/mod_mpm_worker.so"
command -v curl > /dev/null || fail "no curl"
[ -e "$apr_dir/lib/libapr-1.so.0" ] ||
    fail "no $apr_dir/lib/libapr-1.so.0: run apr-patch/build-apr.sh (or set REAP_APR_DIR)"
apr_lib=$(readlink -f "$apr_dir/lib/libapr-1.so.0")

# --- a ServerRoot with content -----------------------------------------------
tmp=$(mktemp -d /tmp/reap-httpd-smoke.XXXXXX) || fail "mktemp"
chmod 755 "$tmp"
mkdir -p "$tmp/htdocs/listing/sub"
printf 'hello from apache2 on reaps\n' > "$tmp/htdocs/hello.txt"
head -c 262144 /dev/urandom > "$tmp/htdocs/random.bin"
for f in alpha.txt beta.html gamma.bin; do
    echo "$f" > "$tmp/htdocs/listing/$f"
done
chmod -R a+rX "$tmp/htdocs"

free_port() {
    local port
    for _ in $(seq 50); do
        port=$(( 20000 + RANDOM % 40000 ))
        if ! (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then
            echo "$port"
            return 0
        fi
    done
    return 1
}
port=$(free_port) || fail "no free port found"

user_lines=
if [ "$(id -u)" = 0 ]; then
    user_lines="User www-data
Group www-data"
fi

cat > "$tmp/httpd.conf" <<EOF
ServerRoot "$tmp"
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile "$tmp/httpd.pid"
ErrorLog "$tmp/error.log"
LogLevel warn
DefaultRuntimeDir "$tmp"
$user_lines

LoadModule mpm_worker_module $modules/mod_mpm_worker.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule dir_module $modules/mod_dir.so
LoadModule autoindex_module $modules/mod_autoindex.so
LoadModule mime_module $modules/mod_mime.so

# Sizes that agree with each other, so the MPM has nothing to warn about.
StartServers 1
ServerLimit 2
ThreadsPerChild 8
MaxRequestWorkers 16
MinSpareThreads 1
MaxSpareThreads 16
MaxMemFree 256

TypesConfig /etc/mime.types
DocumentRoot "$tmp/htdocs"
<Directory />
    Require all denied
</Directory>
<Directory "$tmp/htdocs">
    Options +Indexes
    Require all granted
</Directory>
DirectoryIndex index.html
EOF

# --- start ---------------------------------------------------------------------
run_apache -t > "$tmp/configtest.log" 2>&1 ||
    fail "config test failed: $(cat "$tmp/configtest.log")"
run_apache -k start > "$tmp/start.log" 2>&1 ||
    fail "apache2 -k start failed: $(cat "$tmp/start.log")"
for _ in $(seq 100); do
    pid=$(server_pid) && kill -0 "$pid" 2> /dev/null &&
        curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    pid=
    sleep 0.1
done
[ -n "$pid" ] || fail "server did not come up on 127.0.0.1:$port"
say "apache2 (pid $pid) on 127.0.0.1:$port"

# --- it runs on the patched APR ---------------------------------------------
check_maps() {
    local p=$1
    grep -q " $apr_lib\$" "/proc/$p/maps" ||
        fail "process $p did not map $apr_lib: $(grep libapr "/proc/$p/maps" | head -1)"
    grep -q 'libreap\.so' "/proc/$p/maps" || fail "process $p did not map libreap.so"
}
check_maps "$pid"
children=$(pgrep -P "$pid" || true)
[ -n "$children" ] || fail "no child processes of $pid"
for c in $children; do check_maps "$c"; done
say "parent and $(echo "$children" | wc -w) child(ren) map $apr_lib and libreap"

# --- static files and a listing -------------------------------------------------
get() {   # get PATH OUTFILE -> prints the HTTP status
    curl -s -o "$2" -w '%{http_code}' "http://127.0.0.1:$port$1"
}

for f in hello.txt random.bin listing/alpha.txt; do
    code=$(get "/$f" "$tmp/got") || fail "curl /$f failed"
    [ "$code" = 200 ] || fail "GET /$f: status $code"
    cmp -s "$tmp/got" "$tmp/htdocs/$f" || fail "GET /$f: body differs from the file"
done
ctype=$(curl -s -o /dev/null -w '%{content_type}' "http://127.0.0.1:$port/hello.txt")
case $ctype in text/plain*) ;; *) fail "hello.txt served as '$ctype'" ;; esac

# Many requests, so request pools are created, used and cleared many times.
for i in $(seq 200); do
    echo "url = \"http://127.0.0.1:$port/random.bin\""
    echo "output = \"$tmp/many.$((i % 4))\""
done > "$tmp/curl.cfg"
curl -s -K "$tmp/curl.cfg" || fail "200 requests for random.bin failed"
for i in 0 1 2 3; do
    cmp -s "$tmp/many.$i" "$tmp/htdocs/random.bin" || fail "a repeated GET returned a different body"
done

code=$(get /listing/ "$tmp/listing.html") || fail "curl /listing/ failed"
[ "$code" = 200 ] || fail "GET /listing/: status $code"
grep -q 'Index of /listing' "$tmp/listing.html" || fail "GET /listing/ is not an index page"
for f in alpha.txt beta.html gamma.bin sub/; do
    grep -q "href=\"$f\"" "$tmp/listing.html" || fail "listing does not name $f"
done
code=$(get /no-such-file "$tmp/got") || fail "curl /no-such-file failed"
[ "$code" = 404 ] || fail "GET /no-such-file: status $code, not 404"
say "static files, 200 repeated requests, a listing and a 404 served correctly"

# --- stop --------------------------------------------------------------------------
run_apache -k stop > "$tmp/stop.log" 2>&1 || fail "apache2 -k stop failed: $(cat "$tmp/stop.log")"
for _ in $(seq 100); do
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
done
kill -0 "$pid" 2> /dev/null && fail "server $pid still running 10 s after -k stop"
for c in $children; do
    kill -0 "$c" 2> /dev/null && fail "child $c still running after stop"
done
stopped=$pid
pid=

# --- the error log: notices only ---------------------------------------------------
[ -s "$tmp/error.log" ] || fail "empty error log: the server logged not even its start"
grep -q 'resuming normal operations' "$tmp/error.log" || fail "no start notice in the error log"
grep -q 'caught SIGTERM, shutting down' "$tmp/error.log" || fail "no shutdown notice in the error log"
bad=$(grep -v '^\[[^]]*\] \[[a-z_0-9]*:notice\] ' "$tmp/error.log")
[ -z "$bad" ] || fail "error log has more than notices: $bad"
say "server $stopped stopped cleanly; error log holds $(wc -l < "$tmp/error.log") notice(s) only"
say "PASS"
