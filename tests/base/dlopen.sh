#!/bin/sh
# dlopen.sh - the base allocator must work inside a module loaded with
# dlopen (httpd's case): libreap.so may not use initial-exec TLS (no
# DF_STATIC_TLS flag, no TPOFF relocations), and dlopen_probe runs reaps
# from several threads in a dlopen'ed libreap.so.  libreap-malloc.so is
# not checked: it is only ever preloaded (loaded at startup, in the static
# TLS block) and uses initial-exec TLS on purpose; preload.sh tests it.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

set -u
libs="$PWD/libreap/.libs/libreap.so"
fail=0
for lib in $libs; do
    if [ ! -f "$lib" ]; then
        echo "dlopen.sh: $lib not built" >&2
        exit 1
    fi
    if readelf -d "$lib" | grep -q STATIC_TLS || readelf -r "$lib" | grep -q 'TPOFF'; then
        echo "FAIL $lib uses initial-exec TLS"
        fail=1
    else
        echo "ok   $lib: dynamic TLS only"
    fi
done
"$PWD/tests/base/dlopen_probe" "$PWD/libreap/.libs/libreap.so" || fail=1
exit $fail
