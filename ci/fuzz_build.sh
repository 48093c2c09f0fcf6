#!/usr/bin/env bash
# Configures and builds the clang libFuzzer tree with ASan+UBSan: every fuzz/<name>_fuzz.cpp as a libFuzzer
# binary, which also replays the committed corpus as a ctest (fuzz_replay_<name>: `<name>_fuzz FILES...`).
# No unit tests unless ALLOCSIM_TESTS=ON is given (ci/long_checks.sh does); without them `all` is the fuzz targets
# and the libraries they link (not tools/ or harness/). -O1 -gline-tables-only: what OSS-Fuzz builds with, and half
# the compile time of -O2 -g.
# clang 19 (ci/install.sh installs it): its libFuzzer keeps the entropic schedule's rare features in a bitset; clang
# 14's searched a list of them for every covered feature of every execution, a large share of an allocator
# target's CPU time. ALLOCSIM_CLANG=clang-NN picks another.
# Usage: bash ci/fuzz_build.sh [BUILD_DIR] [extra cmake arguments...]     (default build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
bdir=${1:-build-fuzz}
shift || true
clang=${ALLOCSIM_CLANG:-clang-19}
# A tree configured with another compiler keeps it (CMake ignores CC and CXX once cached): start that one afresh.
if [ -f "$bdir/CMakeCache.txt" ] && ! grep -q "^CMAKE_CXX_COMPILER:[A-Z]*=.*/${clang/clang/clang++}\$" "$bdir/CMakeCache.txt"; then
  echo "$bdir was configured with another compiler: reconfiguring it with $clang"
  rm -rf "$bdir/CMakeCache.txt" "$bdir/CMakeFiles"
fi
CC=$clang CXX=${clang/clang/clang++} cmake -S . -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DALLOCSIM_FUZZ=ON -DALLOCSIM_SANITIZE=ON -DALLOCSIM_TESTS=OFF -DALLOCSIM_BENCH=OFF -DALLOCSIM_WERROR=ON \
  "$@" >/dev/null
ninja -C "$bdir"
