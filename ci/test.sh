#!/usr/bin/env bash
# Runs every test: the Release unit tests and corpus/fuzz replays, then the same suite built with
# AddressSanitizer + UndefinedBehaviorSanitizer. Usage: bash ci/test.sh   (after bash ci/install.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

echo "== Release build: unit tests, corpus, fuzz replays"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_WERROR=ON >/dev/null
ninja -C build
ctest --test-dir build --output-on-failure -j "$JOBS" | tee build/ctest.log

echo "== ASan+UBSan build: the same tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DALLOCSIM_SANITIZE=ON -DALLOCSIM_WERROR=ON >/dev/null
ninja -C build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" | tee build-asan/ctest.log

echo "== clang libFuzzer smoke runs (ASan+UBSan)"
bash ci/fuzz_smoke.sh "${FUZZ_SECONDS:-45}"

# One closing line over both ctest runs (the fuzz smoke runs above fail the script on any finding).
passed=0
for log in build/ctest.log build-asan/ctest.log; do
  n=$(sed -n 's/^100% tests passed, 0 tests failed out of \([0-9]*\)$/\1/p' "$log")
  passed=$((passed + ${n:-0}))
done
echo "ci: $passed passed, 0 failed"
