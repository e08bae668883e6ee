# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# common.sh - shared by the bc tests: locate reap-bc and GNU bc, and compare
# the two on one program.  Sourced, not run.  Runs from the top build
# directory (as `make check` does); REAP_BC and GNU_BC override the paths.
REAP_BC=${REAP_BC:-./modules/mod_bc/reap-bc}
GNU_BC=${GNU_BC:-/usr/bin/bc}
srcdir=${srcdir:-.}
# The one exit trap of the script and what it sources (tests/httpd/cleanup.sh).
. "$srcdir/tests/httpd/cleanup.sh"
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/bctest.XXXXXX")
cleanup_push "rm -rf '$TMPD'"

if [ ! -x "$REAP_BC" ]; then
    echo "reap-bc not found at $REAP_BC" >&2
    exit 99
fi
if [ ! -x "$GNU_BC" ]; then
    echo "GNU bc not found at $GNU_BC (install the Debian package bc)" >&2
    exit 99
fi

# Runtime messages name a bytecode address in GNU bc and a line in reap-bc:
# compare them without that part.
normalize_err() {
    sed -e 's/^\(Runtime [a-z]*\) (func=\([^,]*\), [^)]*)/\1 (func=\2)/' "$1"
}

# run_bc BC FILE [OPTIONS...]: the program as a file argument, or with
# BC_VIA=stdin on standard input (read line by line by both bcs).  A program
# that hangs fails the comparison (status 124).
run_bc() {
    bc=$1 f=$2; shift 2
    if [ "${BC_VIA:-file}" = stdin ]; then
        timeout 60 "$bc" -q "$@" <"$f"
    else
        timeout 60 "$bc" -q "$@" "$f" </dev/null
    fi
}

# bc_compare FILE [OPTIONS...]: 0 if stdout, exit status and stderr match.
bc_compare() {
    f=$1; shift
    run_bc "$GNU_BC" "$f" "$@" >"$TMPD/g.out" 2>"$TMPD/g.err"
    echo "exit $?" >>"$TMPD/g.out"
    run_bc "$REAP_BC" "$f" "$@" >"$TMPD/r.out" 2>"$TMPD/r.err"
    echo "exit $?" >>"$TMPD/r.out"
    normalize_err "$TMPD/g.err" >"$TMPD/g.nerr"
    normalize_err "$TMPD/r.err" >"$TMPD/r.nerr"
    if ! cmp -s "$TMPD/g.out" "$TMPD/r.out"; then
        echo "FAIL stdout: $f $*"
        diff "$TMPD/g.out" "$TMPD/r.out" | head -20
        return 1
    fi
    if ! cmp -s "$TMPD/g.nerr" "$TMPD/r.nerr"; then
        echo "FAIL stderr: $f $*"
        diff "$TMPD/g.nerr" "$TMPD/r.nerr" | head -20
        return 1
    fi
    return 0
}

# Options of a corpus file: a first line "# options: -l" gives them.
file_options() {
    sed -n '1s/^# options://p' "$1"
}
