#!/bin/bash
# loadtest/modules/survey.sh - which more of Debian's modules keep memory
# that grows with the work of one request (issue 49's survey of
# mod_proxy_html, mod_substitute, mod_include, mod_lua, mod_deflate and
# mod_log_config): Debian's apache2, Debian's modules and APR as installed,
# one child (worker MPM), one request at a time on a fresh server; the
# child's peak RSS growth (VmHWM after less before) at two work sizes.
# Memory that grows with the work while the module streams its output is
# held past its use: a candidate for frees.
#
#   substitute  Substitute "s/a/b/" over an N MB file of 80-byte lines
#   include     an .shtml page of N thousand <!--#echo var="DOCUMENT_URI" -->
#   deflate     SetOutputFilter DEFLATE, GET of an N MB file of random text
#   proxy_html  ProxyHTMLEnable over a page of N thousand links, proxied
#               from the same server (mod_proxy_http, mod_xml2enc)
#   lua         a mod_lua handler that r:puts N thousand lines of 100 bytes
#   log_config  a CustomLog of N copies of %{X-Big}i, a 4 KB header
# Output: RESULTS/survey-<stamp>.csv (workload,size,unit,hwm_growth_kb) and
# a table of the growth per unit of work on stdout.
#
# Usage: loadtest/modules/survey.sh [--workloads "substitute ..."]
#                                   [--build DIR] [--results DIR]

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
workloads="substitute include deflate proxy_html lua log_config"
own_option() { return 1; }   # survey.sh has only options.sh's
# shellcheck source=options.sh
. "$top/loadtest/modules/options.sh"
MR_BUILDDIR=$build
MR_APR_LIB=
. "$top/tests/httpd/httpd_lib.sh"
MR_SERVERS=1 MR_THREADS=4
declare -A sizes=([substitute]="10 50" [include]="10 50" [deflate]="10 50"
    [proxy_html]="10 50" [lua]="10 50" [log_config]="10 50")
declare -A units=([substitute]=MB [include]="k directives" [deflate]=MB
    [proxy_html]="k links" [lua]="k lines" [log_config]="fields")
stamp=$(date +%Y%m%d-%H%M%S)
mkdir -p "$results"
csv=$results/survey-$stamp.csv
echo "workload,size,unit,hwm_growth_kb" >"$csv"
T=$(mktemp -d /tmp/reap-survey.XXXXXX)
cleanup_push "rm -rf '$T'"
chmod 755 "$T"

# make_data <workload> <size>: the work of that size under $T/w.
make_data() {
    rm -rf "$T/w"
    mkdir -p "$T/w"
    python3 - "$T/w" "$1" "$2" <<'EOF'
import os, random, sys
w, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if kind == 'substitute':
    open(f'{w}/f.txt', 'w').write(('a' * 79 + '\n') * (n * 1024 * 1024 // 80))
elif kind == 'deflate':
    r = random.Random(1)
    words = [''.join(r.choice('abcdefghij') for _ in range(r.randint(2, 9))) for _ in range(5000)]
    with open(f'{w}/f.txt', 'w') as f:
        size = 0
        while size < n * 1024 * 1024:
            line = ' '.join(r.choice(words) for _ in range(12)) + '\n'
            f.write(line)
            size += len(line)
elif kind == 'include':
    open(f'{w}/f.shtml', 'w').write('<p><!--#echo var="DOCUMENT_URI" --></p>\n' * (n * 1000))
elif kind == 'proxy_html':
    with open(f'{w}/f.html', 'w') as f:
        f.write('<html><body>\n')
        for i in range(n * 1000):
            f.write(f'<a href="http://backend.invalid/w/page{i}.html">page {i}</a><br>\n')
        f.write('</body></html>\n')
elif kind == 'lua':
    open(f'{w}/h.lua', 'w').write(
        'function handle(r)\n'
        '    r.content_type = "text/plain"\n'
        f'    for i = 1, {n * 1000} do r:puts(string.rep("x", 95) .. string.format("%04d", i % 10000) .. "\\n") end\n'
        '    return apache2.OK\n'
        'end\n')
open(f'{w}/index.txt', 'w').write('x\n')
EOF
    chmod -R a+rX "$T/w"
}

site() {
    cat <<EOF
LoadModule alias_module $MR_MODDIR/mod_alias.so
LoadModule filter_module $MR_MODDIR/mod_filter.so
Alias /w "$T/w"
<Directory "$T/w">
    Require all granted
</Directory>
EOF
    case $W in
    substitute) printf 'LoadModule substitute_module %s/mod_substitute.so\n<Location /w>\nAddOutputFilterByType SUBSTITUTE text/plain\nSubstitute "s/a/b/"\n</Location>\n' "$MR_MODDIR" ;;
    include) printf 'LoadModule include_module %s/mod_include.so\n<Directory "%s/w">\nOptions +Includes\nAddOutputFilter INCLUDES .shtml\n</Directory>\n' "$MR_MODDIR" "$T" ;;
    deflate) printf 'LoadModule deflate_module %s/mod_deflate.so\n<Location /w>\nSetOutputFilter DEFLATE\n</Location>\n' "$MR_MODDIR" ;;
    proxy_html)
        for m in proxy proxy_http xml2enc proxy_html; do
            echo "LoadModule ${m}_module $MR_MODDIR/mod_$m.so"
        done
        cat <<EOF
LoadFile /usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/libxml2.so.2
ProxyPass /p/ http://127.0.0.1:$MR_PORT/w/
<Location /p/>
    ProxyHTMLEnable On
    ProxyHTMLLinks a href
    ProxyHTMLURLMap http://backend.invalid/w/ /p/
</Location>
EOF
        ;;
    lua) printf 'LoadModule lua_module %s/mod_lua.so\nLuaMapHandler ^/lua$ "%s/w/h.lua"\n' "$MR_MODDIR" "$T" ;;
    log_config)
        fmt=
        for i in $(seq 1 "$N"); do fmt="$fmt %{X-Big}i"; done
        printf 'LogFormat "%%h%s" big\nCustomLog "%s/big.log" big\n' "$fmt" "$T" ;;
    esac
}
MR_SITE=site
MR_NEED=

one() {
    mr_start >/dev/null
    child=$(mr_children)
    mr_proc_mem $child
    before=$MR_HWM
    U=http://127.0.0.1:$MR_PORT
    case $W in
    substitute) args=("$U/w/f.txt") ;;
    include) args=("$U/w/f.shtml") ;;
    deflate) args=(-H 'Accept-Encoding: gzip' "$U/w/f.txt") ;;
    proxy_html) args=("$U/p/f.html") ;;
    lua) args=("$U/lua") ;;
    log_config) args=(-H "X-Big: $(head -c 4096 /dev/zero | tr '\0' b)" "$U/w/index.txt") ;;
    esac
    code=$(curl -s -o "$T/body" -w '%{http_code}' "${args[@]}")
    mr_proc_mem $child
    [ "$code" = 200 ] || echo "FAIL: $W $N: status $code"
    echo "$W,$N,${units[$W]},$((MR_HWM - before))" >>"$csv"
    mr_stop
}

for W in $workloads; do
    for N in ${sizes[$W]}; do
        make_data "$W" "$N"
        one
    done
done

python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print('| workload | sizes | peak RSS growth KB | KB per unit of work |')
print('|---|---|---|---|')
for w in dict.fromkeys(r['workload'] for r in rows):
    rs = [r for r in rows if r['workload'] == w]
    (a, ka), (b, kb) = [(int(r['size']), int(r['hwm_growth_kb'])) for r in rs[:2]]
    print(f"| {w} | {a} / {b} {rs[0]['unit']} | {ka} / {kb} | {(kb - ka) / (b - a):.1f} |")
EOF
echo "CSV: $csv"
