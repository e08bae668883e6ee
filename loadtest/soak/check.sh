#!/bin/sh
# check.sh - the soak test as `make check` runs it (from the build
# directory): SOAK_SECONDS [120] of load, results into loadtest/results/ of
# the build tree.  The full run for the README is `loadtest/soak/soak.sh
# BUILD_DIR` (300 s, results into the source tree's loadtest/results/).
exec bash "${srcdir:-.}/loadtest/soak/soak.sh" --duration "${SOAK_SECONDS:-120}" \
    --out "$(pwd)/loadtest/results" "$(pwd)"
