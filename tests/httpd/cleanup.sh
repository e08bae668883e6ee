# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
# cleanup.sh - one exit trap for a test script and everything it sources.
#
# A sourced library must not set a trap of its own: `trap ... EXIT` replaces
# the trap of the script that sourced it (and of any library sourced
# before), so someone's cleanup is lost.  Here scripts and libraries hand
# their cleanup to cleanup_push instead; the first call in a shell sets one
# trap on EXIT, INT and TERM, which runs every pushed command once, newest
# first (what was set up last is taken down first), whether the script
# ends, fails, calls exit or is interrupted.  An interrupted script exits
# 130 (INT) or 143 (TERM) after its cleanup; otherwise its exit status is
# kept.
#
# A subshell (`( ... )`, `... &`) that pushes a cleanup gets a list and a
# trap of its own, so it never runs its parent's cleanup; the parent's list
# is untouched.  Commands are run with eval and stdin from /dev/null; they
# should not fail loudly when their work is already done (an mr_stop after
# an mr_stop, an rm -rf of a directory already gone).
#
# Sourced, not run; works in dash and bash.  Sourcing it twice is harmless.

if [ -z "${CLEANUP_SH_LOADED:-}" ]; then
CLEANUP_SH_LOADED=1
CLEANUP_LIST=
CLEANUP_PID=

# cleanup_push <command...>: run <command> (one line, eval'd) when this
# shell ends.  The same command pushed twice runs once.
cleanup_push() {
    # this shell's process id, in a subshell too ($$ is the script's there;
    # bash has BASHPID, dash needs a child's PPID)
    cleanup_me=${BASHPID:-$(exec sh -c 'echo $PPID')}
    if [ "$cleanup_me" != "$CLEANUP_PID" ]; then
        CLEANUP_PID=$cleanup_me
        CLEANUP_LIST=
        trap 'cleanup_run EXIT' EXIT
        trap 'cleanup_run INT' INT
        trap 'cleanup_run TERM' TERM
    fi
    case "
$CLEANUP_LIST" in
    *"
$*
"*) return 0 ;;
    esac
    CLEANUP_LIST="$*
$CLEANUP_LIST"
}

# cleanup_run <EXIT|INT|TERM>: the trap.  Runs the list once and exits.
cleanup_run() {
    cleanup_status=$?
    trap '' INT TERM # the cleanup itself is not cut short
    trap - EXIT
    cleanup_todo=$CLEANUP_LIST
    CLEANUP_LIST=
    while IFS= read -r cleanup_cmd; do
        [ -n "$cleanup_cmd" ] && eval "$cleanup_cmd" </dev/null
    done <<EOF
$cleanup_todo
EOF
    case $1 in
    INT) exit 130 ;;
    TERM) exit 143 ;;
    esac
    exit "$cleanup_status"
}
fi
