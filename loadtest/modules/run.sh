#!/bin/bash
# loadtest/modules/run.sh - the reap-aware modules (httpd-patch/) against
# Debian's, measured: the child's peak RSS growth (VmHWM after the request
# less VmHWM before it) and the request's time, one request at a time,
# with one child (worker MPM, 1 process), at three work sizes.
#
#   stock  Debian's APR and Debian's modules (Debian as installed)
#   reap   the reap-backed APR, our modules and mod_reap
#
# Each repetition starts a fresh server per side, the two sides
# alternating, and sends one request of one workload at one size:
#   propfind   PROPFIND Depth 1 of a collection of N empty files
#   inputsed   PUT of N MB through InputSed "s/a/b/g" (Dav On)
#   longline   GET of an N MB single-line file through OutputSed (one substitution)
#   rewrite    500 RewriteCond %{REQUEST_URI} !^/nomatchN/, a URI of N KB
#   autoindex  FancyIndexing listing of N files
#   include    an .shtml page of N <!--#echo var="DOCUMENT_URI" --> lines
#              (the survey's page, survey.sh) through mod_include
#   proxy_html an HTML page of N links proxied from the same server
#              (mod_proxy_http) through mod_proxy_html, each link
#              rewritten by a regex ProxyHTMLURLMap; the backend
#              reads the page (EnableMMAP Off), else its mapping's pages,
#              touched as they are sent, would count in both sides' peak
# Every answer is compared with stock's (byte-identical, or the run fails).
# Output: RESULTS/modules-<stamp>.csv (workload,size,side,rep,hwm_growth_kb,
# time_s), the medians and the reap/stock ratios on stdout and in
# modules-<stamp>.md, and modules-<stamp>.png (peak growth against size,
# stock's line beside ours; gnuplot).
#
# Usage: loadtest/modules/run.sh [--reps N] [--workloads "propfind ..."]
#                                [--sizes-propfind "10000 50000 100000"] ...
#                                [--build DIR] [--results DIR]
# Defaults: 3 repetitions; sizes as in issue 49 (propfind and autoindex
# 10k/50k/100k files, inputsed 10/50/100 MB, longline 1/2/4 MB, rewrite
# 1/4/7 KB, include 10k/50k/100k directives, proxy_html 10k/50k/100k
# links).

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
reps=3
workloads="propfind inputsed longline rewrite autoindex include proxy_html"
declare -A sizes=([propfind]="10000 50000 100000" [inputsed]="10 50 100"
    [longline]="1 2 4" [rewrite]="1 4 7" [autoindex]="10000 50000 100000"
    [include]="10000 50000 100000" [proxy_html]="10000 50000 100000")
own_option() {   # the options of run.sh alone
    case $1 in
    --reps) reps=$2 ;;
    --sizes-*) sizes[${1#--sizes-}]=$2 ;;
    *) return 1 ;;
    esac
}
# shellcheck source=options.sh
. "$top/loadtest/modules/options.sh"
MR_BUILDDIR=$build
MR_APR_LIB=
. "$top/tests/httpd/httpd_lib.sh"
mr_need_reap_apr "the modules benchmark"
REAP_APR=$MR_APR_LIB
OURS=$build/httpd-modules/lib
[ -f "$OURS/mod_dav_fs.so" ] || mr_fatal "no $OURS (make -C build httpd-modules)"
MR_SERVERS=1 MR_THREADS=4
stamp=$(date +%Y%m%d-%H%M%S)
mkdir -p "$results"
csv=$results/modules-$stamp.csv
echo "workload,size,side,rep,hwm_growth_kb,time_s" >"$csv"
T=$(mktemp -d /tmp/reap-modbench.XXXXXX)
cleanup_push "rm -rf '$T'"
chmod 755 "$T"
mkdir -p "$T/lock" && chmod 777 "$T/lock"
FAILED=0

# make_data <workload> <size>: the work of that size under $T/data.
make_data() {
    rm -rf "$T/data"
    mkdir -p "$T/data/w"
    python3 - "$T" "$1" "$2" <<'EOF'
import sys
t, w, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if w in ('propfind', 'autoindex'):
    for i in range(n):
        open(f'{t}/data/w/file-{i:07d}.txt', 'w').close()
elif w == 'inputsed':
    with open(f'{t}/put.txt', 'w') as f:
        f.write(('a' * 79 + '\n') * (n * 1024 * 1024 // 80))
elif w == 'longline':
    with open(f'{t}/data/w/line.txt', 'w') as f:
        f.write('x' * (n * 1024 * 1024 - 7) + 'abcdef\n')
elif w == 'rewrite':
    open(f'{t}/data/w/target.txt', 'w').write('rewritten\n')
elif w == 'include':
    open(f'{t}/data/w/f.shtml', 'w').write('<p><!--#echo var="DOCUMENT_URI" --></p>\n' * n)
elif w == 'proxy_html':
    with open(f'{t}/data/w/f.html', 'w') as f:
        f.write('<html><body>\n')
        for i in range(n):
            f.write(f'<a href="http://backend.invalid/w/page{i}.html">page {i}</a><br>\n')
        f.write('</body></html>\n')
# mtimes an hour back: the ETag of a file changed within the second is
# weak (W/), which would make the sides' answers differ by the clock
import os, time
then = time.time() - 3600
for name in os.listdir(f'{t}/data/w') + ['.']:
    os.utime(f'{t}/data/w/{name}', (then, then))
EOF
    chmod -R a+rwX "$T/data"
}

site() {
    [ "$SIDE" = reap ] && echo "LoadModule reap_module $MR_MOD_REAP"
    mr_load_reap_aware "$MODS"
    cat <<EOF
DavLockDB "$T/lock/davlock"
Alias /w "$T/data/w"
<Directory "$T/data/w">
    Require all granted
    Options +Indexes
    IndexOptions FancyIndexing
</Directory>
EOF
    case $W in
    propfind) echo "<Location /w>"; echo "Dav On"; echo "</Location>" ;;
    inputsed) printf '<Location /w>\nDav On\nSetInputFilter Sed\nInputSed "s/a/b/g"\nLimitRequestBody 0\n</Location>\n' ;;
    longline) printf '<Location /w>\nSetOutputFilter Sed\nOutputSed "s/abcdef/ABCDEF/"\n</Location>\n' ;;
    include) printf '<Directory "%s/data/w">\nOptions +Includes\nAddOutputFilter INCLUDES .shtml\n</Directory>\n' "$T" ;;
    proxy_html) printf 'ProxyPass /p/ http://127.0.0.1:%s/w/\n<Location /p/>\nProxyHTMLEnable On\nProxyHTMLLinks a href\nProxyHTMLURLMap http://backend\\.invalid/w/ /p/ R\n</Location>\n<Location /w/>\nEnableMMAP Off\n</Location>\n' "$MR_PORT" ;;
    rewrite)
        echo "RewriteEngine On"
        for i in $(seq 0 499); do echo "RewriteCond %{REQUEST_URI} !^/nomatch$i/"; done
        echo "RewriteRule ^/r/ /w/target.txt [PT]" ;;
    esac
}
MR_SITE=site
MR_NEED=$MR_MOD_REAP

# one <rep>: a fresh server of $SIDE, one request of $W at $N; a CSV row.
one() {
    if [ "$SIDE" = reap ]; then MODS=$OURS MR_APR_LIB=$REAP_APR; else MODS=$MR_MODDIR MR_APR_LIB=; fi
    rm -f "$T/data/w/in.txt"
    mr_start >/dev/null
    child=$(mr_children)
    mr_proc_mem $child
    before=$MR_HWM
    U=http://127.0.0.1:$MR_PORT
    case $W in
    propfind) args=(-X PROPFIND -H 'Depth: 1' "$U/w/") ;;
    inputsed) args=(-T "$T/put.txt" "$U/w/in.txt") ;;
    longline) args=("$U/w/line.txt") ;;
    rewrite) args=("$U/r/$(head -c $((N * 1024)) /dev/zero | tr '\0' u)") ;;
    autoindex) args=("$U/w/") ;;
    include) args=("$U/w/f.shtml") ;;
    proxy_html) args=("$U/p/f.html") ;;
    esac
    t=$(curl -s -o "$T/$SIDE.body" -w '%{time_total}' "${args[@]}")
    [ "$W" != inputsed ] || cp "$T/data/w/in.txt" "$T/$SIDE.body"
    mr_proc_mem $child
    echo "$W,$N,$SIDE,$1,$((MR_HWM - before)),$t" >>"$csv"
    mr_stop
}

for W in $workloads; do
    for N in ${sizes[$W]}; do
        make_data "$W" "$N"
        for rep in $(seq 1 "$reps"); do
            for SIDE in stock reap; do one "$rep"; done
            if [ "$W" = propfind ]; then   # xmlns order differs between processes
                for s in stock reap; do
                    "$top/tests/httpd/xmlns_sorted.py" "$T/$s.body" >"$T/$s.sorted" && mv "$T/$s.sorted" "$T/$s.body"
                done
            fi
            if ! cmp -s "$T/stock.body" "$T/reap.body"; then
                echo "FAIL: $W $N: the answers differ"
                FAILED=1
            fi
        done
        echo "# $W $N done"
    done
done

python3 - "$csv" "$results/modules-$stamp" <<'EOF'
import csv, statistics, sys, subprocess
rows = list(csv.DictReader(open(sys.argv[1])))
out = sys.argv[2]
keys = []
for r in rows:
    k = (r['workload'], int(r['size']))
    if k not in keys:
        keys.append(k)
med = lambda w, n, s, f: statistics.median(float(r[f]) for r in rows
                                          if r['workload'] == w and int(r['size']) == n and r['side'] == s)
lines = ['| workload | size | stock peak growth KB | reap KB | ratio | stock time s | reap s | ratio |',
         '|---|---|---|---|---|---|---|---|']
dat = open(out + '.dat', 'w')
for w, n in keys:
    gs, gr = med(w, n, 'stock', 'hwm_growth_kb'), med(w, n, 'reap', 'hwm_growth_kb')
    ts, tr = med(w, n, 'stock', 'time_s'), med(w, n, 'reap', 'time_s')
    lines.append(f'| {w} | {n} | {gs:.0f} | {gr:.0f} | {gr / gs if gs else float("nan"):.3f} '
                 f'| {ts:.3f} | {tr:.3f} | {tr / ts if ts else float("nan"):.2f} |')
    dat.write(f'{w} {n} {gs} {gr}\n')
dat.close()
open(out + '.md', 'w').write('\n'.join(lines) + '\n')
print('\n'.join(lines))
ws = [w for w in dict.fromkeys(k[0] for k in keys)]
gp = [f"set terminal png size {420 * len(ws)},360 font ',9' noenhanced", f"set output '{out}.png'",
      f'set multiplot layout 1,{len(ws)}']
for w in ws:
    gp += [f"set title '{w}: child peak RSS growth (KB)'", "set xlabel 'work size'", 'set key left top',
           f"plot '< grep ^{w} {out}.dat' using 2:3 with linespoints title 'stock', "
           f"'' using 2:4 with linespoints title 'reap'"]
gp.append('unset multiplot')
open(out + '.gp', 'w').write('\n'.join(gp) + '\n')
subprocess.run(['gnuplot', out + '.gp'], check=False)
EOF
echo "CSV: $csv"
exit $FAILED
