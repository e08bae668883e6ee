#!/bin/bash
# test_reap_modules.sh - the reap-aware mod_dav_fs, mod_sed, mod_rewrite,
# mod_autoindex, mod_include and mod_proxy_html (httpd-patch/, built into
# <build>/httpd-modules/lib) in
# Debian's apache2, against Debian's own modules.
#
# Three servers, one after the other, on the same data directory:
#   debian  the reap-backed APR, Debian's modules, mod_reap (the baseline:
#           its answers, and its request peaks read by mod_reap)
#   ours    the reap-backed APR, our modules, mod_reap
#   stock   Debian's APR, our modules (ap_pfree does nothing there)
# Workloads: a PROPFIND (Depth 1) of a generated collection, a PUT through
# InputSed, a long line through OutputSed (one substitution: s///g on a
# 1 MB line is quadratic in mod_sed and takes minutes), a script of
# several sed commands over short, long and binary lines through
# OutputSed, a FancyIndexing listing, 300 RewriteConds on a long URI, an
# .shtml page of SSI_BLOCKS blocks of directives of every kind mod_include
# frees in or passes through (echo with each encoding and decoding, set,
# if/elif/else, include virtual, flastmod, fsize, config errmsg, timefmt
# and sizefmt, printenv, an unknown encoding's error), and a large page of
# echo, if/else and fsize directives (no include virtual: Debian's keeps
# each included subrequest's pool to the end of the request, on purpose,
# and so does ours), and an HTML page of PH_LINKS links proxied from the
# same server (/ph/ to /data/backend/) through ProxyHTMLURLMap: a regex
# map on a href and img src, a plain map, an event attribute
# (ProxyHTMLEvents), text with entities and a comment.
# Checked:
# - every answer of ours and stock is byte for byte debian's (and the PUT
#   stored, and the sed outputs are, what tr computes from the input);
# - on ours, each workload's request made frees (mod_reap's request
#   counters) and its pool's peak (the reap-peak note) is below debian's,
#   for the long line below twice the line; for the proxied page under
#   PH_LINKS * 8 B (Debian's keeps ~34 B in r->pool for each link its
#   regex map rewrote: 687,744 B at 20,000 links);
# - hostile cases get debian's status: PROPFIND Depth: infinity where
#   DavDepthInfinity is off (403), and of a deep tree where it is on, under
#   ReapRequestLimit, whose request stays under the limit on ours (207);
#   a PUT over LimitRequestBody (413); a request line over
#   LimitRequestLine, a huge query (414);
# - no child crashed, the error logs are clean.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
MR_APR_LIB=${MR_APR_LIB:-}
. "$(dirname "$0")/httpd_lib.sh"
mr_need_reap_apr "the reap-aware modules' tests"
REAP_APR=$MR_APR_LIB
OURS=$MR_BUILDDIR/httpd-modules/lib
for m in $MR_REAP_AWARE; do
    [ -f "$OURS/mod_$m.so" ] || mr_fatal "no $OURS/mod_$m.so (make httpd-modules)"
done
MR_SERVERS=1
MR_THREADS=4

FILES=3000          # the PROPFIND's and the listing's collection
PUT_MB=4            # the PUT through InputSed
LINE_KB=256         # the line through OutputSed
CONDS=300           # RewriteConds
URI_KB=4            # the rewritten URI's length
SSI_BLOCKS=200      # the .shtml page's blocks (24 directives each)
ECHO_LINES=10000    # the large .shtml page's lines (8 directives each)
PH_LINKS=20000      # the proxied HTML page's links
LIMIT=4M            # ReapRequestLimit of the deep PROPFIND

T=$(mktemp -d /tmp/reap-modules.XXXXXX)
cleanup_push "rm -rf '$T'"
DATA=$T/data
mkdir -p "$DATA"/{dav,put,long,mix,list,rw,deep,limited,ssi,backend} "$T/lock"
chmod 777 "$T/lock"
python3 - "$DATA" "$FILES" "$LINE_KB" "$SSI_BLOCKS" "$ECHO_LINES" "$PH_LINKS" <<'EOF'
import os, sys
data, files, line_kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ssi_blocks, echo_lines = int(sys.argv[4]), int(sys.argv[5])
# the page mod_proxy_html rewrites: every link under backend.invalid/w/
# (the regex map), one under plain.invalid (the plain map), one elsewhere
with open(f'{data}/backend/page.html', 'w') as f:
    f.write('<html><head><title>a &amp; b</title></head><body>\n'
            '<!-- a comment --><p>text &lt;7&gt; "q"</p>\n'
            '<img src="http://backend.invalid/w/i.png" alt="x">'
            '<a href="http://plain.invalid/x/y.html" onclick="go(\'http://backend.invalid/w/e\')">plain</a>'
            '<a href="http://other.invalid/w/z.html">other</a><br>\n')
    for i in range(int(sys.argv[6])):
        f.write(f'<a href="http://backend.invalid/w/page{i}.html">page {i}</a><br>\n')
    f.write('</body></html>\n')
with open(f'{data}/ssi/echo.shtml', 'w') as f:
    f.write('<!--#set var="v" value="a&amp;b &lt;c&gt; %41 +d" -->')
    for i in range(echo_lines):
        f.write(f'{i} <!--#echo var="v" --> <!--#echo encoding="url" var="DOCUMENT_URI" -->'
                ' <!--#echo decoding="entity" encoding="none" var="v" -->'
                ' <!--#echo var="nosuch" -->'
                '<!--#if expr="v(\'v\') =~ /^b/" -->b<!--#else -->a<!--#endif -->'
                ' <!--#fsize file="part.txt" -->\n')
# the .shtml page; printenv once (REMOTE_PORT and the dates differ between
# servers: the comparison blanks them)
with open(f'{data}/ssi/part.txt', 'w') as f:
    f.write('included part\n')
with open(f'{data}/ssi/part.shtml', 'w') as f:
    f.write('nested <!--#echo var="DOCUMENT_NAME" --> <!--#echo var="n" -->\n')
page = ['<!--#config errmsg="[an error]" timefmt="%Y-%m-%d %H:%M:%S %a" -->\n',
        # lazy variables, computed by the lookup under the echo's name
        '<!--#echo var="LAST_MODIFIED" --> <!--#echo var="USER_NAME" -->\n',
        '<pre><!--#printenv --></pre>\n']
for i in range(ssi_blocks):
    page.append(
        f'<p>{i}: <!--#set var="n" value="{i}" --><!--#echo var="LAST_MODIFIED" -->'
        f'<!--#set var="v" value="a&amp;b &lt;{i}&gt; ${{n}}/%41 +c" -->'
        '<!--#echo var="v" --> <!--#echo encoding="none" var="v" -->'
        ' <!--#echo encoding="url" var="v" --> <!--#echo encoding="urlencoded" var="v" -->'
        ' <!--#echo encoding="base64" var="v" --> <!--#echo decoding="entity" var="v" -->'
        ' <!--#echo decoding="url" encoding="none" var="v" -->'
        ' <!--#echo decoding="urlencoded,entity" encoding="entity,url" var="v" -->'
        ' <!--#echo decoding="base64" encoding="none" var="b" -->'
        ' <!--#echo var="DOCUMENT_URI" --> <!--#echo var="nosuch" -->'
        ' <!--#echo encoding="rot13" var="v" -->'
        f'<!--#if expr="v(\'n\') -lt 3" -->small<!--#elif expr="v(\'n\') =~ /5$/" -->five'
        '<!--#else -->other<!--#endif -->'
        ' <!--#include virtual="part.txt" --><!--#include virtual="part.shtml" -->'
        ' <!--#flastmod file="part.txt" --> <!--#fsize file="part.txt" -->'
        f'<!--#config sizefmt="{"bytes" if i % 2 else "abbrev"}" --></p>\n')
with open(f'{data}/ssi/page.shtml', 'w') as f:
    f.write('<!--#set var="b" value="aGVsbG8gd29ybGQ=" -->' + ''.join(page))
for d in ('dav', 'list'):
    for i in range(files):
        open(f'{data}/{d}/file-{i:06d}.txt', 'w').close()
with open(f'{data}/long/line.txt', 'w') as f:
    f.write('x' * (line_kb * 1024 - 7) + 'abcdef\n')
# lines for a script of several commands (workload "mix"): short and long
# ones (past mod_sed's 8000-byte output buffer and its 16 KB read pieces),
# many matches on a long line, NUL bytes, the hold space, `l`, and a last
# line with no newline
import random
rnd = random.Random(49)
lines = [b'hello ab cd cd cd world', b'ab\0ab cd cd', b'1 keep ab', b'2 get',
         b'3 swap ab', b'4 list\t\x7f\x01 ab', b'']
for n in (7999, 8000, 8001, 16383, 16384, 16385, 65536, 131072, 300000):
    lines.append(b'x' * (n - 11) + b'ab cd cd wo')
lines.append(b''.join(rnd.choice([b'ab', b'x' * rnd.randrange(1, 400), b'cd', b' world'])
                      for _ in range(1500)))
lines.append(b'x' * 200000)
lines += [b'%d ab cd cd world' % i for i in range(2000)]
with open(f'{data}/mix/mix.txt', 'wb') as f:
    f.write(b'\n'.join(lines) + b'\nab tail')
with open(f'{data}/rw/target.txt', 'w') as f:
    f.write('rewritten\n')
# a tree 40 deep, 20 files a level
p = f'{data}/deep'
for depth in range(40):
    for i in range(20):
        open(f'{p}/f{i}', 'w').close()
    p = f'{p}/d{depth}'
    os.mkdir(p)
# mtimes an hour back: the ETag of a file changed within the second is
# weak (W/), which would make the servers' answers differ by the clock
import time
then = time.time() - 3600
for root, dirs, names in os.walk(data):
    for n in names + dirs:
        os.utime(os.path.join(root, n), (then, then))
EOF
python3 -c "import sys; sys.stdout.write(('a' * 79 + '\n') * ($PUT_MB * 1024 * 1024 // 80))" >"$T/put.txt"
tr a b <"$T/put.txt" >"$T/put.expected"
sed s/abcdef/ABCDEF/ <"$DATA/long/line.txt" >"$T/long.expected"
chown -R www-data:www-data "$DATA" 2>/dev/null || chmod -R a+rwX "$DATA"
chmod 755 "$T"

MODS=
mr_site_modules() {
    echo "LoadModule reap_module $MR_MOD_REAP"
    mr_load_reap_aware "$MODS"
    cat <<EOF
LogFormat "%m %U %>s peak=%{reap-peak}n pid=%P" reaptest
CustomLog "$MR_ROOT/logs/access.log" reaptest
<Location /reap-status>
    SetHandler reap-status
</Location>
DavLockDB "$T/lock/davlock"
Alias /data "$DATA"
<Directory "$DATA">
    Require all granted
    Options +Indexes
</Directory>
<Location /data/dav>
    Dav On
</Location>
<Location /data/put>
    Dav On
    SetInputFilter Sed
    InputSed "s/a/b/g"
    LimitRequestBody $(( (PUT_MB + 1) * 1024 * 1024 ))
</Location>
<Location /data/limited>
    Dav On
    LimitRequestBody 1048576
</Location>
<Location /data/long>
    SetOutputFilter Sed
    OutputSed "s/abcdef/ABCDEF/"
</Location>
<Location /data/mix>
    SetOutputFilter Sed
    OutputSed "s/\\(a\\)\\(b\\)/\\2\\1&/g"
    OutputSed "s/cd//2"
    OutputSed "s/wor\\(ld\\)/\\1/"
    OutputSed "y/hw/HW/"
    OutputSed "/^1 /h"
    OutputSed "/^2 /G"
    OutputSed "/^3 /x"
    OutputSed "/^4 /l"
</Location>
<Location /data/list>
    IndexOptions FancyIndexing
</Location>
<Directory "$DATA/ssi">
    Options +Includes
    AddOutputFilter INCLUDES .shtml
</Directory>
ProxyPass /ph/ http://127.0.0.1:$MR_PORT/data/backend/
<Location /ph/>
    ProxyHTMLEnable On
    ProxyHTMLLinks a href
    ProxyHTMLLinks img src
    ProxyHTMLEvents onclick
    ProxyHTMLURLMap http://backend\\.invalid/w/ /ph/ R
    ProxyHTMLURLMap http://plain.invalid/ /plain/
</Location>
<Location /data/deep>
    Dav On
    DavDepthInfinity On
    ReapRequestLimit $LIMIT
</Location>
RewriteEngine On
EOF
    i=0
    while [ $i -lt $CONDS ]; do
        echo "RewriteCond %{REQUEST_URI} !^/nomatch$i/"
        i=$((i + 1))
    done
    echo "RewriteRule ^/rw/ /data/rw/target.txt [PT]"
}
MR_SITE=mr_site_modules
MR_NEED="$MR_MOD_REAP"

LONG_URI=/rw/$(head -c $((URI_KB * 1024)) /dev/zero | tr '\0' 'u')
HUGE_QUERY=$(head -c 20000 /dev/zero | tr '\0' 'q')

# frees_total: the finished requests' frees, from /reap-status.
frees_total() {
    mr_wait_logged >/dev/null
    mr_get /reap-status
    mr_json_total requests frees
}

# workload <name> <curl options...>: one request; its answer (status line
# and body) into $T/<side>.<name>, its reap-peak into PEAK_<side>_<name>
# and the request frees into FREES_<side>_<name>.
workload() {
    name=$1
    shift
    if [ -z "$MR_APR_LIB" ]; then     # stock APR: no figures, only the answer
        curl -s -o "$T/$SIDE.$name.body" -w '%{http_code}\n' "$@" >"$T/$SIDE.$name"
        cat "$T/$SIDE.$name.body" >>"$T/$SIDE.$name"
        mr_say "# $SIDE $name: $(head -1 "$T/$SIDE.$name")"
        return
    fi
    before=$(frees_total)
    code=$(curl -s -o "$T/$SIDE.$name.body" -w '%{http_code}' "$@")
    MR_SENT=$((MR_SENT + 1))
    printf '%s\n' "$code" >"$T/$SIDE.$name"
    cat "$T/$SIDE.$name.body" >>"$T/$SIDE.$name"
    after=$(frees_total)
    mr_wait_logged >/dev/null
    peak=$(grep -v '/reap-status\| /data/backend/' "$MR_ROOT/logs/access.log" | tail -1 | sed -n 's/.* peak=\([0-9]*\) .*/\1/p')
    eval "PEAK_${SIDE}_$name=\${peak:-0}"
    eval "FREES_${SIDE}_$name=$((${after:-0} - ${before:-0}))"
    mr_say "# $SIDE $name: $code, peak ${peak:-?} B, frees $((${after:-0} - ${before:-0}))"
}

run_side() {
    SIDE=$1 MODS=$2 MR_APR_LIB=$3
    rm -rf "$DATA/put/in.txt"
    mr_start
    U=http://127.0.0.1:$MR_PORT
    workload propfind -X PROPFIND -H 'Depth: 1' "$U/data/dav/"
    workload put -T "$T/put.txt" "$U/data/put/in.txt"
    cp "$DATA/put/in.txt" "$T/$SIDE.stored" 2>/dev/null || : >"$T/$SIDE.stored"
    workload long "$U/data/long/line.txt"
    workload mix "$U/data/mix/mix.txt"
    workload list "$U/data/list/"
    workload ssi "$U/data/ssi/page.shtml"
    # printenv: the server's port and root, the client's port, the
    # request's dates, the APR's library path
    sed -E -e "s|$MR_ROOT|ROOT|g" -e "s/$MR_PORT/PORT/g" \
        -e 's/^(REMOTE_PORT|DATE_LOCAL|DATE_GMT)=.*/\1=/' -e '/^LD_[A-Z_]*=/d' \
        "$T/$SIDE.ssi" >"$T/$SIDE.ssi.blanked"
    workload echo "$U/data/ssi/echo.shtml"
    workload rewrite "$U$LONG_URI"
    workload html "$U/ph/page.html"
    workload infinity -X PROPFIND -H 'Depth: infinity' "$U/data/dav/"
    workload deep -X PROPFIND -H 'Depth: infinity' "$U/data/deep/"
    workload toolarge -T "$T/put.txt" "$U/data/limited/big.txt"
    workload hugequery "$U/rw/x?$HUGE_QUERY"
    mr_check "$SIDE: no child crashed" eval "! grep -q 'exit signal' '$MR_ROOT/logs/error.log'"
    mr_check "$SIDE: error log clean" mr_log_clean 'AH00124|AH00126|request failed: URI too long|AH02609|AH00566|mod_reap: libreap|reading the request body \(URI: /data/limited/|AH01345: unknown value "rot13"'
    mr_stop
}

run_side debian "$MR_MODDIR" "$REAP_APR"
run_side ours "$OURS" "$REAP_APR"
run_side stock "$OURS" ""

same() {
    cmp -s "$T/$1.$3" "$T/$2.$3" && return 0
    case $3 in
    ssi)
        # printenv (run_side blanked what differs between servers)
        cmp -s "$T/$1.$3.blanked" "$T/$2.$3.blanked" && return 0 ;;
    propfind | deep)
        # the order of xmlns declarations differs between processes
        "$(dirname "$0")/xmlns_sorted.py" "$T/$1.$3" >"$T/$1.$3.sorted"
        "$(dirname "$0")/xmlns_sorted.py" "$T/$2.$3" >"$T/$2.$3.sorted"
        cmp -s "$T/$1.$3.sorted" "$T/$2.$3.sorted" && return 0 ;;
    esac
    diff "$T/$2.$3" "$T/$1.$3" | head -8 | sed 's/^/#   /'
    return 1
}
for w in propfind put long mix list ssi echo rewrite html infinity deep toolarge hugequery; do
    mr_check "ours: the $w answer is Debian's ($(head -1 "$T/debian.$w"))" same ours debian $w
    mr_check "stock APR: the $w answer is Debian's" same stock debian $w
done
mr_check "the PROPFIND listed every file" eval "[ \$(grep -c '<D:href>/data/dav/file-' '$T/debian.propfind.body') = $FILES ]"
mr_check "statuses: PROPFIND 207, PUT 201, GETs 200, Depth infinity 403, deep 207, too large 413, huge query 414" \
    test "$(for w in propfind put long list ssi rewrite infinity deep toolarge hugequery; do head -1 "$T/ours.$w"; done | tr '\n' ' ')" = \
    "207 201 200 200 200 200 403 207 413 414 "
# what each kind of directive makes, in Debian's answer (so the comparison
# compares SSI output, not error messages)
for s in 'included part' 'nested page.shtml 5' '5: ' 'five' 'small' 'other' \
         'hello world' '[an error]' '(none)' 'a&amp;b &lt;7&gt; 7/%41 +c' 'DOCUMENT_URI=/data/ssi/page.shtml'; do
    mr_check "ssi: Debian's page has '$s'" eval "grep -qF -- '$s' '$T/debian.ssi.body'"
done
for s in debian ours stock; do
    mr_check "$s: the PUT stored what InputSed made of it (tr a b)" cmp -s "$T/$s.stored" "$T/put.expected"
done
mr_check "the long line came out as sed makes it" cmp -s "$T/debian.long.body" "$T/long.expected"
mr_check "the rewrite reached its target" eval "grep -q rewritten '$T/debian.rewrite.body'"
# what the maps make of the page, in Debian's answer (so the comparison
# compares rewritten HTML, not an error page)
mr_check "html: 200, every page link mapped to /ph/" eval \
    "[ \"\$(head -1 '$T/debian.html')\" = 200 ] && [ \$(grep -c '<a href=\"/ph/page[0-9]*\.html\">page' '$T/debian.html.body') = $PH_LINKS ]"
for s in 'src="/ph/i.png"' 'href="/plain/x/y.html"' 'href="http://other.invalid/w/z.html"' '&lt;7&gt;' '<!-- a comment -->'; do
    mr_check "html: Debian's page has '$s'" eval "grep -qF -- '$s' '$T/debian.html.body'"
done
mr_check "html: no backend.invalid link is left" eval "! grep -q 'href=\"http://backend' '$T/debian.html.body'"
for w in propfind put long list ssi echo rewrite html; do
    eval "p_ours=\$PEAK_ours_$w p_deb=\$PEAK_debian_$w f_ours=\$FREES_ours_$w f_deb=\$FREES_debian_$w"
    # the count includes the /reap-status request before it: Debian's
    # module's count of the same workload is that baseline
    mr_check "$w: our module freed ($f_ours frees, Debian's $f_deb)" test "$f_ours" -gt "$f_deb"
    mr_check "$w: our request pool's peak $p_ours B is under Debian's module's $p_deb B" \
        test "$p_ours" -gt 0 -a "$p_ours" -lt "$p_deb"
done
# Debian's holds the line three times (line buffer, substitution buffer,
# output copy); ours once, read in pieces into a buffer sized once
mr_check "long: our request pool's peak $PEAK_ours_long B is under twice the line ($LINE_KB KB)" \
    test "$PEAK_ours_long" -gt 0 -a "$PEAK_ours_long" -lt $((2 * LINE_KB * 1024))
# the echoes' text, names and list copies freed: well under Debian's, whose
# peak grows by each directive's ~86 B (what is left: fsize's file name,
# each if's parsed expression)
mr_check "echo: our request pool's peak $PEAK_ours_echo B is under 3/4 of Debian's module's $PEAK_debian_echo B" \
    test "$PEAK_ours_echo" -gt 0 -a $((4 * PEAK_ours_echo)) -lt $((3 * PEAK_debian_echo))
# each rewritten link's temp buffers freed: the page's peak does not grow
# with its links (Debian's grows by ~34 B a link, ~680 KB here)
mr_check "html: our request pool's peak $PEAK_ours_html B is under $PH_LINKS links * 8 B" \
    test "$PEAK_ours_html" -gt 0 -a "$PEAK_ours_html" -lt $((PH_LINKS * 8))
limit_bytes=$((4 * 1024 * 1024))
mr_check "the deep Depth: infinity PROPFIND stayed under ReapRequestLimit ($PEAK_ours_deep B)" \
    test "$PEAK_ours_deep" -gt 0 -a "$PEAK_ours_deep" -lt $limit_bytes
mr_finish
