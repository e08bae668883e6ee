#!/bin/sh
# quick-test.sh - `make check-httpd` runs the HTTP/2 load test in --quick
# mode: a check that the harness works (apache2 with mod_http2 starts on
# stock APR and on the reap-backed APR, over h2c and TLS, with and without
# MaxMemFree 128; h2load drives it; every request succeeds; no child
# crashes; the error logs are clean; the CSV, Markdown and plot are
# written), never a check of speed or memory.  Runs from the top build
# directory like tests/httpd/test_mod_reap_*.sh; the results go to the
# build tree (loadtest/h2-check/, only the latest check's), never into the
# source tree's loadtest/results/.
# Exit status as run.sh: 0 pass, 1 fail, 77 skipped (no h2load or no
# mod_http2.so: said loudly in the log).

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

MR_BUILDDIR=${MR_BUILDDIR:-$(pwd)}
out=$MR_BUILDDIR/loadtest/h2-check
rm -rf "$out"
mkdir -p "$out" || exit 1
exec bash "$(dirname "$0")/run.sh" --quick --build "$MR_BUILDDIR" --out "$out"
