#!/usr/bin/env bash
# The installed package works for a user (cmake/install.cmake): install the build into a staging prefix, configure
# examples/ against it with find_package(allocsim), build the correct example allocator, and fuzz it with the
# installed allocsim. Usage: install_package_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/stage" >/dev/null
test -f "$work/stage/lib/cmake/allocsim/allocsimConfig.cmake" -o -f "$work/stage/lib64/cmake/allocsim/allocsimConfig.cmake"
test -f "$work/stage/include/allocsim/harness/allocator.h"
# Only the package: the examples must not see the source tree's headers.
# Unoptimized (the test is about the package, not the allocator's speed), through ccache when there is one.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src/examples" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_PREFIX_PATH="$work/stage" \
  -DALLOCSIM_EXAMPLES_EXTRA=OFF "${launcher[@]}" >/dev/null
cmake --build "$work/build" --target first_fit >/dev/null
"$work/stage/bin/allocsim" fuzz-allocator --runs 10 --size 4 --no-kernels --out "$work/failures" --json \
  -- "$work/build/first_fit" {in} {out} > "$work/summary.json"
grep -q '"failed": 0' "$work/summary.json"
grep -q '"passed": [1-9]' "$work/summary.json"
rm -rf "$work"
echo "install_package: ok (find_package(allocsim), examples/first_fit built and fuzzed against the staged install)"
