#!/bin/sh
# check.sh - the soak test as `make check-soak` runs it (from the build
# directory): SOAK_SECONDS [120] of load in SOAK_PHASES [4] phases, results
# into loadtest/results/ of the build tree.  The full run for docs/benchmarks.md is
# `loadtest/soak/soak.sh BUILD_DIR` (300 s in 5 phases, results into the
# source tree's loadtest/results/).

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

exec bash "${srcdir:-.}/loadtest/soak/soak.sh" --duration "${SOAK_SECONDS:-120}" \
    --phases "${SOAK_PHASES:-4}" --out "$(pwd)/loadtest/results" "$(pwd)"
