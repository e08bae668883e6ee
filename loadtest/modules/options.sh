# options.sh - sourced by run.sh and survey.sh (bash) to parse the options
# both take:
#   --workloads "A B"  the workloads to run       [the caller's $workloads]
#   --build DIR        the project's build directory          [<top>/build]
#   --results DIR      where the CSV and tables go   [<top>/loadtest/results]
#   -h, --help         the caller's header comment
# The caller sets top and workloads first, and defines own_option, called
# with the remaining arguments for an option not above: it takes $1 (with
# its value $2) and returns 0, or returns 1 for an option it does not know
# either.  After this, build is the build directory's absolute path (exit 2
# when there is none).

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

build=$top/build
results=$top/loadtest/results
while [ $# -gt 0 ]; do
    case $1 in
    --workloads) workloads=$2; shift ;;
    --build) build=$2; shift ;;
    --results) results=$2; shift ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *)
        own_option "$@" || { echo "$(basename "$0"): unknown option $1" >&2; exit 2; }
        shift ;;
    esac
    shift
done
build=$(cd "$build" && pwd) || exit 2
