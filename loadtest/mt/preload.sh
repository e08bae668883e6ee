# preload.sh - sourced by giveback.sh and mimalloc-bench.sh (POSIX sh):
# the library each allocator of loadtest/mt/allocators is preloaded with.
#
# mt_preload <allocator> <build dir> <caller's name>: prints the library
# to LD_PRELOAD (nothing for the C library's own malloc); says why on
# stderr and returns 1 for an unknown allocator or a missing library.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

mt_preload() {
    _mt_table=$(dirname "$0")/allocators
    _mt_lib=$(awk -v a="$1" '$1 == a && $1 !~ /^#/ { print $2; exit }' "$_mt_table")
    [ -n "$_mt_lib" ] || { echo "$3: unknown allocator $1 (see $_mt_table)" >&2; return 1; }
    [ "$_mt_lib" = - ] && return 0
    _mt_lib=$(printf '%s\n' "$_mt_lib" | sed "s|@BUILD@|$2|")
    [ -e "$_mt_lib" ] || { echo "$3: $1: $_mt_lib missing" >&2; return 1; }
    printf '%s\n' "$_mt_lib"
}
