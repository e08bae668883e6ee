#!/bin/sh
# run-all.sh - the whole unit and integration suite under each checking tool.
#
#   tests/sanitize/run-all.sh [SRCDIR]        (or `make check-sanitizers')
#
# For each configuration in $SANITIZE_CONFIGS (default "asan tsan valgrind")
# it configures an out-of-tree build in $SANITIZE_BUILDS-<config> (default
# /tmp/reap-san-<config>), builds it with make -j$JOBS (default 2) and runs
# `make check':
#   asan      --enable-sanitizers=address,undefined: ASan + UBSan, reap
#             objects poisoned (libreap/src/util/annotate.h), tests/sanitize/misuse
#   tsan      --enable-sanitizers=thread
#   valgrind  --enable-valgrind: make check natively, the misuse cases
#             under memcheck, then the
#             libreap unit and integration tests (VALGRIND_TESTS) each run
#             under `valgrind --error-exitcode=99' through the test harness
# Tests that cannot apply under a sanitizer are left out (below): those
# that preload libreap-malloc.so into programs not built with the
# sanitizer runtime.  It prints, per configuration, the
# tests that passed and failed and the time taken, and exits non-zero if
# any test failed.  An existing build directory is reused (make only
# rebuilds what changed), unless it was configured from another source
# tree; remove it to reconfigure.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
base=${SANITIZE_BUILDS:-/tmp/reap-san}
jobs=${JOBS:-2}
configs=${SANITIZE_CONFIGS:-asan tsan valgrind}

# The fast tier (`make check`) runs under each tool, the pool code of
# apr-patch/src/ included (tests/apr/test_apr_pools), without the tests
# that LD_PRELOAD libreap-malloc.so into programs or dlopen libreap.so
# from an unsanitized probe, and the programs built for them: the
# sanitizer runtime must come first in the process.  Makefile.am names
# them (PRELOAD_TESTS, PRELOAD_PROBES; `make print-preload`).
# The apache2 tiers (make check-httpd, check-soak) do not run here: Debian's
# httpd and the modules apxs builds do not load the sanitizer runtime (it
# must come first in the process).

# words LIST: one word a line, no empty lines
words() { tr ' ' '\n' | grep -v '^$'; }

# Under valgrind: the libreap tests that use only what the program may
# touch.  test_leaheap and test_region read block headers of freed and
# large objects themselves (white-box checks), which the annotations hide
# from the program on purpose, so memcheck rightly reports those reads.
# test_misuse is not among them: it runs each case in a fresh process
# through /proc/self/exe, which under memcheck is valgrind's own launcher.
VALGRIND_TESTS='tests/unit/test_reap tests/unit/test_alloc tests/unit/test_stats tests/unit/test_env
tests/integration/test_api tests/integration/test_model
tests/integration/test_walk tests/bc/test_api
tests/apr/test_apr_pools'

status=0
summary=$(mktemp "${TMPDIR:-/tmp}/reap-san-summary.XXXXXX")
trap 'rm -f "$summary"' EXIT

# Prints "PASS name" / "FAIL name" ... for the .trs files of the tests run.
results() {
    for t in $1; do
        trs=${t%.sh}.trs   # TEST_EXTENSIONS = .sh drops the suffix
        [ -f "$trs" ] || { echo "MISSING $t"; continue; }
        echo "$(sed -n 's/^:test-result: //p' "$trs" | sort -u | tr '\n' ' ' | sed 's/ $//') $t"
    done
}

report() { # config, seconds, tests run
    name=$1 secs=$2 tests=$3
    res=$(results "$tests")
    pass=$(echo "$res" | grep -c '^PASS ')
    skip=$(echo "$res" | grep -c '^SKIP ')
    total=$(echo "$tests" | wc -w)
    fail=$((total - pass - skip))
    echo "== $name: $pass passed, $fail failed, $skip skipped of $total tests in ${secs}s" | tee -a "$summary"
    echo "$res" | grep -v '^PASS ' | sed 's/^/   /' | tee -a "$summary"
    [ "$fail" -eq 0 ] || status=1
}

for cfg in $configs; do
    case $cfg in
    asan) opts=--enable-sanitizers=address,undefined ;;
    tsan) opts=--enable-sanitizers=thread ;;
    valgrind) opts=--enable-valgrind ;;
    *) echo "run-all.sh: unknown configuration '$cfg'" >&2; exit 2 ;;
    esac
    dir=$base-$cfg
    # A build configured from another source tree (an earlier clone) is of
    # no use: its Makefiles name that tree's files.
    if [ -f "$dir/Makefile" ] &&
        [ "$(sed -n 's/^abs_top_srcdir = //p' "$dir/Makefile")" != "$src" ]; then
        echo "== $cfg: $dir was configured from another source tree: configuring it again"
        rm -rf "$dir"
    fi
    mkdir -p "$dir"
    cd "$dir" || exit 2
    start=$(date +%s)
    echo "== $cfg: $dir ($opts)"
    if [ ! -f Makefile ]; then
        "$src/configure" --prefix="$dir/install" $opts >configure.log 2>&1 ||
            { echo "   configure failed: $dir/configure.log" | tee -a "$summary"; status=1; continue; }
    fi
    make -j"$jobs" >make.log 2>&1 ||
        { echo "== $cfg: build failed: $dir/make.log" | tee -a "$summary"; status=1; continue; }
    make -s print-preload | words >preload.list
    tests=$(make -s print-tests | words | grep -Fxv -f preload.list | tr '\n' ' ')
    excluded=$(make -s print-tests | words | grep -Fx -f preload.list | tr '\n' ' ')
    progs=$(make -s print-check-programs | words | grep -Fxv -f preload.list | tr '\n' ' ')
    make -k -j"$jobs" $progs >>make.log 2>&1 ||
        echo "   some test programs did not build: $dir/make.log" | tee -a "$summary"
    [ -n "$excluded" ] && echo "   not run under $cfg: $excluded" | tee -a "$summary"
    case $cfg in
    valgrind)
        # the suite natively (client requests compiled in, not under the
        # tool), then the misuse cases and the subset under memcheck
        make -k -j"$jobs" check check_PROGRAMS="$progs" TESTS="$tests" >check-native.log 2>&1
        report "$cfg (native run of the annotated build)" $(($(date +%s) - start)) "$tests"
        start=$(date +%s)
        make -k -j"$jobs" check check_PROGRAMS="$progs" TESTS=tests/sanitize/misuse.sh >check.log 2>&1
        vg="$(command -v valgrind) -q --error-exitcode=99 --leak-check=no"
        make -k -j"$jobs" check check_PROGRAMS="$progs" TESTS="$VALGRIND_TESTS" LOG_COMPILER="$dir/libtool" \
            LOG_FLAGS="--mode=execute $vg" >>check.log 2>&1
        tests="tests/sanitize/misuse.sh $(echo $VALGRIND_TESTS)"
        ;;
    asan)
        ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}" \
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}" \
            make -k -j"$jobs" check check_PROGRAMS="$progs" TESTS="$tests" >check.log 2>&1
        ;;
    tsan)
        # recursion.bc recurses 50,000 bc calls deep: more C frames than
        # TSan's shadow call stack holds (its runtime then deadlocks while
        # unwinding), so the TSan build runs the corpus without it.
        # history_size=7 (4M accesses a thread, against 128K by default):
        # the suppressions match on the stacks of both accesses, and with
        # the default history TSan sometimes can no longer restore the
        # stack of a stats reader's old read ("failed to restore the
        # stack"), so a documented race (tsan.supp) was reported about
        # once in 60 runs of tests/integration/test_threads.
        # die_after_fork=0: libreap starts its release thread in a forked
        # child whose parent ran one (release.c, as jemalloc's background
        # thread survives fork), which TSan refuses by default after a
        # fork of a multithreaded process.
        BC_CORPUS_SKIP=recursion.bc \
        TSAN_OPTIONS="halt_on_error=1:history_size=7:die_after_fork=0:suppressions=$src/tests/sanitize/tsan.supp:${TSAN_OPTIONS:-}" \
            make -k -j"$jobs" check check_PROGRAMS="$progs" TESTS="$tests" >check.log 2>&1
        ;;
    esac
    report "$cfg" $(($(date +%s) - start)) "$tests"
done
echo
echo "== summary"
cat "$summary"
exit $status
