#!/usr/bin/env bash
# Runs every test: the Release unit tests and corpus/fuzz replays (gcc, -Werror), then one clang build with
# AddressSanitizer + UndefinedBehaviorSanitizer that serves twice: its ctest runs the same suite under the
# sanitizers, and its libFuzzer binaries get bounded smoke runs. Usage: bash ci/test.sh  (after ci/install.sh)
# One sanitizer build instead of two (ASan tests + fuzz) keeps CI within its 15-minute budget on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
start=$SECONDS
stamp() { echo "   ($(( SECONDS - start )) s since start)"; }

echo "== Release build: unit tests, corpus, fuzz replays"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_WERROR=ON >/dev/null
ninja -C build
ctest --test-dir build --output-on-failure -j "$JOBS" | tee build/ctest.log
stamp

echo "== clang ASan+UBSan build (tests + libFuzzer targets): the same tests"
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DALLOCSIM_SANITIZE=ON -DALLOCSIM_FUZZ=ON -DALLOCSIM_BENCH=OFF >/dev/null
ninja -C build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" | tee build-asan/ctest.log
stamp

echo "== clang libFuzzer smoke runs (ASan+UBSan)"
bash ci/fuzz_smoke.sh "${FUZZ_SECONDS:-20}" build-asan
stamp

# One closing line over both ctest runs (the fuzz smoke runs above fail the script on any finding).
passed=0
for log in build/ctest.log build-asan/ctest.log; do
  n=$(sed -n 's/^100% tests passed, 0 tests failed out of \([0-9]*\)$/\1/p' "$log")
  passed=$((passed + ${n:-0}))
done
echo "ci: $passed passed, 0 failed"
