#!/usr/bin/env bash
# Rewrites tests/sim/golden_cycles/*.cycles from the current timing model (tests/sim/golden_cycles_test.cpp), for a
# change of the timing table or the model made on purpose. Review the diff before committing it.
# Usage: bash tests/sim/golden_cycles/regenerate.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BUILD=${1:-build}
ninja -C "$BUILD" allocsim_sim_tests >/dev/null
ALLOCSIM_REGENERATE_GOLDEN=1 "$BUILD/allocsim_sim_tests" --gtest_filter='GoldenCycles.*' >/dev/null
git status --short tests/sim/golden_cycles
