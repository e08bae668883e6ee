#!/bin/sh
# test_mod_bc.sh - the bc handler (modules/mod_bc/mod_bc.c) in Debian's
# apache2, on the reap-backed APR and then on Debian's stock libapr:
#   - programs of the corpus, POSTed, answer exactly what GNU bc prints
#     (/usr/bin/bc, run on the same program at test time); ?e= on a GET, the
#     form field "program" and ?l=1 too;
#   - syntax and runtime errors are 400 with GNU bc's messages, which name
#     the line;
#   - each hostile program is stopped by its own limit with its own status
#     and X-Bc-Limit header (time, output, depth by BcMaxDepth and by the
#     thread's stack, program size, memory via
#     BcMemoryLimit and via mod_reap's ReapRequestLimit), random bytes get a
#     400, and afterwards the same children still answer correctly, with
#     nothing of the hostile requests left in their memory;
#   - 120 requests from 8 clients at once all answer correctly;
#   - with BcPfree On the 1000th prime peaks at least 10 times lower than
#     with BcPfree Off (the figures are printed);
#   - on stock APR the module runs with pool semantics and BcMemoryLimit
#     still stops a hog;
#   - the READMEs' curl requests: a raw body that curl labels as a form
#     runs as the program, a form without "program" is a 400 that says
#     what to send.
# The server runs with ThreadStackSize 64M, so the corpus's deepest
# recursion (50,000 calls) fits as it does in GNU bc.
# Runs from the top build directory, as `make check-httpd` does.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
srcdir=${srcdir:-.}
# GNU_BC, TMPD and normalize_err, as the other bc tests use them.
. "$srcdir/tests/bc/common.sh"
MR_APR_LIB=${MR_APR_LIB:-}
. "$srcdir/tests/httpd/httpd_lib.sh"
mr_need_reap_apr "mod_bc's tests"
MR_NEED="$MR_MOD_REAP $MR_MOD_BC"
MR_SITE=bc_site
MR_THREADS=8

bc_site() {
    cat <<EOF
ThreadStackSize 67108864
LoadModule reap_module $MR_MOD_REAP
LoadModule bc_module $MR_MOD_BC
LogFormat "%m %U%q %>s peak=%{reap-peak}n bc=%{bc-peak}n pid=%P" bctest
CustomLog "$MR_ROOT/logs/access.log" bctest
<Location /bc>
    SetHandler bc
    BcTimeLimit 10
    BcMaxDepth 100000
</Location>
<Location /bc-keep>
    SetHandler bc
    BcPfree Off
</Location>
<Location /bc-lib>
    SetHandler bc
    BcMathLib On
</Location>
<Location /bc-tight>
    SetHandler bc
    BcTimeLimit 1
    BcMaxOutput 1000
    BcMaxProgramSize 2000
    BcMaxDepth 50
    BcMemoryLimit 4M
</Location>
<Location /bc-deep>
    SetHandler bc
    BcMaxDepth 10000000
</Location>
<Location /bc-reaplimit>
    SetHandler bc
    BcMemoryLimit 0
    ReapRequestLimit 2M
</Location>
EOF
}

# post <path> <file> [curl options]: status into $MR_STATUS, body into
# $TMPD/body, headers into $TMPD/headers.
post() {
    path=$1 file=$2
    shift 2
    MR_STATUS=$(curl -s -o "$TMPD/body" -D "$TMPD/headers" -w '%{http_code}' \
        -H 'Content-Type: text/plain' --data-binary "@$file" "$@" \
        "http://127.0.0.1:$MR_PORT$path")
}

header() {
    sed -n "s/^$1: *\([^\r]*\).*/\1/ip" "$TMPD/headers"
}

# GNU bc's output of a program given on standard input, as the handler gets
# it; its runtime messages name a bytecode address where ours name a line,
# so both sides are compared without it.
gnu_bc() {
    "$GNU_BC" -q "$@" >"$TMPD/want" 2>"$TMPD/want.err"
}

# same_answer <what>: 200 and the body equal to GNU bc's standard output.
same_answer() {
    if [ "$MR_STATUS" = 200 ] && cmp -s "$TMPD/body" "$TMPD/want"; then
        return 0
    fi
    mr_say "# $1: status $MR_STATUS; diff GNU bc / handler:"
    diff "$TMPD/want" "$TMPD/body" | head -10
    return 1
}

# same_error <what>: 400 and the body equal to GNU bc's messages.  (Runtime
# warnings alone do not make an error: the answer is then 200 with the
# output, as GNU bc's exit status is 0.)
same_error() {
    normalize_err "$TMPD/want.err" >"$TMPD/want.nerr"
    normalize_err "$TMPD/body" >"$TMPD/body.nerr"
    if [ "$MR_STATUS" = 400 ] && [ -s "$TMPD/want.nerr" ] &&
        cmp -s "$TMPD/body.nerr" "$TMPD/want.nerr"; then
        return 0
    fi
    mr_say "# $1: status $MR_STATUS; diff GNU bc's stderr / handler:"
    diff "$TMPD/want.nerr" "$TMPD/body.nerr" | head -10
    return 1
}

# limited <path> <status> <limit> <program>: the program is stopped with
# that status and X-Bc-Limit.
limited() {
    printf '%s\n' "$4" >"$TMPD/prog"
    post "$1" "$TMPD/prog"
    got=$(header X-Bc-Limit)
    [ "$MR_STATUS" = "$2" ] && [ "$got" = "$3" ] && return 0
    mr_say "# '$4' on $1: status $MR_STATUS, X-Bc-Limit '$got'; body: $(head -c 200 "$TMPD/body")"
    return 1
}

# ---- correctness ---------------------------------------------------------------------

check_corpus() {
    n=0 bad=0
    for f in "$srcdir"/tests/bc/corpus/*.bc; do
        opts=$(sed -n '1s/^# options://p' "$f")
        # shellcheck disable=SC2086
        gnu_bc $opts <"$f"
        case $opts in *-l*) q='?l=1' ;; *) q= ;; esac
        post "/bc$q" "$f"
        n=$((n + 1))
        if grep -qv '^Runtime warning' "$TMPD/want.err"; then
            same_error "$(basename "$f")" || bad=$((bad + 1))
        else
            same_answer "$(basename "$f")" || bad=$((bad + 1))
        fi
    done
    mr_say "# corpus through httpd: $((n - bad)) of $n as GNU bc"
    [ "$bad" -eq 0 ]
}

check_get() {
    echo '2^100; 7/3; scale=5; 7/3' | gnu_bc
    MR_STATUS=$(curl -s -o "$TMPD/body" -w '%{http_code}' \
        "http://127.0.0.1:$MR_PORT/bc?e=2%5E100%3B%207%2F3%3B%20scale%3D5%3B%207%2F3")
    same_answer "GET ?e="
}

check_form() {
    printf 'x = 3\nx * x + 1\n' | gnu_bc
    MR_STATUS=$(curl -s -o "$TMPD/body" -w '%{http_code}' \
        --data-urlencode "program@-" "http://127.0.0.1:$MR_PORT/bc" <<EOF
x = 3
x * x + 1
EOF
)
    same_answer "form field program"
}

check_mathlib() {
    printf 'scale=40\ns(1) + a(1) + e(1)\n' >"$TMPD/prog"
    gnu_bc -l <"$TMPD/prog"
    post /bc-lib "$TMPD/prog"
    same_answer "BcMathLib On" || return 1
    post "/bc?l=1" "$TMPD/prog"
    same_answer "?l=1"
}

check_errors() {
    printf '1 +\n2 * * 3\n' >"$TMPD/prog"
    gnu_bc <"$TMPD/prog"
    post /bc "$TMPD/prog"
    same_error "syntax error" || return 1
    printf 'x = 5\nx / 0\nsqrt(-1)\n' >"$TMPD/prog"
    gnu_bc <"$TMPD/prog"
    post /bc "$TMPD/prog"
    same_error "runtime errors" || return 1
    grep -q 'line 2' "$TMPD/body" || { mr_say "# no line named: $(cat "$TMPD/body")"; return 1; }
}

check_methods() {
    MR_STATUS=$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data x \
        "http://127.0.0.1:$MR_PORT/bc")
    [ "$MR_STATUS" = 405 ] || { mr_say "# PUT: $MR_STATUS"; return 1; }
    MR_STATUS=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MR_PORT/bc")
    [ "$MR_STATUS" = 400 ] || { mr_say "# GET without e: $MR_STATUS"; return 1; }
}

# ---- limits and hostile input -----------------------------------------------------

check_limits() {
    ok=0
    limited /bc-tight 503 time 'while(1){}' || ok=1
    limited /bc-tight 422 output 'while(1) print "xxxxxxxx"' || ok=1
    limited /bc-tight 508 depth 'define f(x) { return f(x+1) }
f(1)' || ok=1
    # Unbounded recursion with no depth limit to speak of: the worker
    # thread's stack (ThreadStackSize) is the limit.
    limited /bc-deep 508 depth 'define f(x) { return f(x+1) }
f(1)' || ok=1
    limited /bc-tight 507 memory 'scale=10^9; 1/3' || ok=1
    # A huge power meets whichever limit comes first on this machine.
    printf '10^(10^9)\n' >"$TMPD/prog"
    post /bc-tight "$TMPD/prog"
    case "$MR_STATUS $(header X-Bc-Limit)" in
    "507 memory" | "503 time") ;;
    *) mr_say "# 10^(10^9): $MR_STATUS"; ok=1 ;;
    esac
    # ReapRequestLimit (mod_reap) stops the program through the same path.
    limited /bc-reaplimit 507 memory 'scale=10^7; 1/3' || ok=1
    head -c 3000 /dev/zero | tr '\0' '1' >"$TMPD/big"
    post /bc-tight "$TMPD/big"
    [ "$MR_STATUS" = 413 ] && [ "$(header X-Bc-Limit)" = program-size ] ||
        { mr_say "# 3000-byte program: $MR_STATUS"; ok=1; }
    # The same body chunked (no Content-Length): stopped while reading.
    post /bc-tight "$TMPD/big" -H 'Transfer-Encoding: chunked'
    [ "$MR_STATUS" = 413 ] || { mr_say "# chunked 3000 bytes: $MR_STATUS"; ok=1; }
    return $ok
}

check_random_bytes() {
    i=0 ok=0
    while [ $i -lt 20 ]; do
        head -c 1500 /dev/urandom >"$TMPD/prog"
        post /bc-tight "$TMPD/prog"
        case $MR_STATUS in
        200 | 400 | 503 | 507 | 508 | 422) ;;
        *) mr_say "# random bytes: status $MR_STATUS"; ok=1 ;;
        esac
        i=$((i + 1))
    done
    return $ok
}

# After the hostile requests: no child died, and a small program's memory
# is what a small program needs.
check_survived() {
    [ "$(mr_children)" = "$1" ] || { mr_say "# children were '$1', now '$(mr_children)'"; return 1; }
    if grep -q 'exit signal' "$MR_ROOT/logs/error.log"; then
        mr_say "# a child died:"; grep 'exit signal' "$MR_ROOT/logs/error.log"; return 1
    fi
    echo '3^200' | gnu_bc
    printf '3^200\n' >"$TMPD/prog"
    i=0
    while [ $i -lt 16 ]; do
        post /bc "$TMPD/prog"
        same_answer "3^200 after the hostile requests" || return 1
        peak=$(header X-Bc-Peak-Memory)
        [ "$peak" -lt 65536 ] || { mr_say "# 3^200 peaks at $peak bytes"; return 1; }
        i=$((i + 1))
    done
}

# ---- concurrency and memory -------------------------------------------------------

check_concurrent() {
    for k in 1 2 3 4 5 6; do
        printf 'scale=%d\nsqrt(%d)\n%d^%d\n' $((k * 20)) $((k + 1)) $((k + 2)) $((k * 90)) \
            >"$TMPD/c$k.bc"
        "$GNU_BC" -q <"$TMPD/c$k.bc" >"$TMPD/c$k.want"
    done
    seq 120 | xargs -P 8 -I{} sh -c '
        k=$(( {} % 6 + 1 ))
        curl -s -H "Content-Type: text/plain" --data-binary @"$1/c$k.bc" \
            "http://127.0.0.1:$2/bc" >"$1/got.{}"
        cmp -s "$1/got.{}" "$1/c$k.want" || echo "request {} (program $k) differs"
    ' sh "$TMPD" "$MR_PORT" >"$TMPD/conc.out"
    [ ! -s "$TMPD/conc.out" ] || { head -5 "$TMPD/conc.out"; return 1; }
}

# The 1000th prime by trial division, the 2002 demo's program.
PRIME_BC=$srcdir/loadtest/bc/prime.bc

check_pfree_peaks() {
    gnu_bc <"$PRIME_BC"
    post /bc "$PRIME_BC"
    same_answer "1000th prime, BcPfree On" || return 1
    on=$(header X-Bc-Peak-Memory)
    post /bc-keep "$PRIME_BC"
    same_answer "1000th prime, BcPfree Off" || return 1
    off=$(header X-Bc-Peak-Memory)
    mr_say "# 1000th prime: peak $on bytes with BcPfree On, $off with Off ($((off / (on > 0 ? on : 1)))x)"
    [ "$on" -gt 0 ] && [ $((on * 10)) -lt "$off" ]
}

# ---- the runs -----------------------------------------------------------------------

mr_start
mr_say "# on the reap-backed APR ($MR_APR_LIB)"
mr_check "the children run the reap-backed libapr" mr_libapr_under "$MR_APR_LIB"
mr_check "the corpus answers as GNU bc" check_corpus
mr_check "GET ?e= answers as GNU bc" check_get
mr_check "the form field program answers as GNU bc" check_form
mr_check "BcMathLib On and ?l=1 answer as bc -l" check_mathlib
mr_check "syntax and runtime errors are 400 with GNU bc's messages" check_errors
mr_check "PUT is 405, a GET without e is 400" check_methods
kids=$(mr_children)
mr_check "each limit stops its program with its own status" check_limits
mr_check "random bytes get an answer, never a crash" check_random_bytes
mr_check "the same children answer afterwards, with small peaks" check_survived "$kids"
mr_check "120 requests from 8 clients answer as GNU bc" check_concurrent
mr_check "BcPfree On peaks 10x lower than Off on the 1000th prime" check_pfree_peaks
mr_stop_server
mr_check "the error log holds nothing above notice" mr_log_clean
mr_stop

MR_APR_LIB=
mr_start
mr_say "# on Debian's stock libapr"
stock_memory_limit() {
    limited /bc-tight 507 memory 'scale=10^9; 1/3'
}
stock_answers() {
    gnu_bc <"$PRIME_BC"
    post /bc "$PRIME_BC"
    same_answer "1000th prime on stock APR"
}
kids=$(mr_children)
mr_check "stock APR: the 1000th prime answers as GNU bc" stock_answers
mr_check "stock APR: BcMemoryLimit stops a hog (counted bytes)" stock_memory_limit
mr_check "stock APR: the same children answer afterwards" check_survived "$kids"

# ---- the curl commands of the READMEs -----------------------------------------------

# README.md, modules/mod_bc/README.md and demo.sh give these commands.  curl
# labels a --data-binary body application/x-www-form-urlencoded; a body that
# is not a form is the program, a form gives its field "program", and a
# form without it is a 400 that says what to send.
readme_curl() {
    MR_STATUS=$(cd "$TMPD" && curl -s -o "$TMPD/body" -w '%{http_code}' "$@")
}

check_readme_curls() {
    url=http://127.0.0.1:$MR_PORT/bc
    printf 'scale=50; 4*a(1)\n' | gnu_bc -l
    readme_curl --data-binary 'scale=50; 4*a(1)' "$url?l=1"
    same_answer "curl --data-binary 'scale=50; 4*a(1)' URL?l=1" || return 1
    printf 'x = 3\nx * x + 1\nscale = 5; 7/3\n' >"$TMPD/prog.bc"
    gnu_bc <"$TMPD/prog.bc"
    readme_curl --data-binary @prog.bc "$url"
    same_answer "curl --data-binary @prog.bc URL" || return 1
    readme_curl -H 'Content-Type: text/plain' --data-binary @prog.bc "$url"
    same_answer "curl -H 'Content-Type: text/plain' --data-binary @prog.bc URL" || return 1
    readme_curl --data-urlencode program@prog.bc "$url"
    same_answer "curl --data-urlencode program@prog.bc URL" || return 1
    echo '2^100' | gnu_bc
    readme_curl --data-urlencode 'program=2^100' "$url"
    same_answer "curl --data-urlencode 'program=2^100' URL" || return 1
    readme_curl "$url?e=2%5E100"
    same_answer "curl 'URL?e=2%5E100'" || return 1
    readme_curl --data-urlencode 'e=2^100' "$url"
    if [ "$MR_STATUS" != 400 ] ||
        ! grep -qF "Content-Type: text/plain" "$TMPD/body" ||
        ! grep -qF "program@prog.bc" "$TMPD/body"; then
        mr_say "# a form without program: status $MR_STATUS, body: $(cat "$TMPD/body")"
        return 1
    fi
}
mr_check "the READMEs' curl commands answer as GNU bc" check_readme_curls
mr_stop_server
mr_check "stock APR: the error log holds nothing above notice but the start-up warning" \
    mr_log_clean 'mod_reap: libreap .* is NOT reap-backed'
mr_finish
