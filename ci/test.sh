#!/usr/bin/env bash
# Runs the tests CI runs: the whole Release suite (unit tests, properties with a fixed seed and count, corpus,
# fuzz-corpus replays; gcc, -Werror; bench/ is not built: ALLOCSIM_BENCH is off unless asked), then a clang
# ASan+UBSan libFuzzer build in build-fuzz (the fuzz targets and the libraries they link): every fuzz target replays
# its committed corpus under the sanitizers (the libFuzzer binary itself, given every file) and gets a bounded smoke
# run.
# Usage: bash ci/test.sh  (after ci/install.sh)
# The whole unit and property suite under ASan+UBSan is `bash ci/long_checks.sh` (step 1): on CI's 2 cores a
# second full build of the tests plus their sanitized run takes longer than CI's 15-minute budget.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
start=$SECONDS
stamp() { echo "   ($(( SECONDS - start )) s since start)"; }

echo "== Release build: unit tests, properties, corpus, fuzz replays"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_WERROR=ON >/dev/null
ninja -C build
ctest --test-dir build --output-on-failure -j "$JOBS" | tee build/ctest.log
stamp

echo "== clang ASan+UBSan libFuzzer build: corpus replays, then bounded smoke runs"
# With the planted bugs compiled in (ir/plant.h: each off unless ALLOCSIM_PLANT names it) for the sample at the end.
bash ci/fuzz_build.sh build-fuzz -DALLOCSIM_PLANTED=ON
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-fuzz --output-on-failure -j "$JOBS" | tee build-fuzz/ctest.log
stamp
# The generator and the allocators must not depend on the compiler (an argument list's evaluation order is the
# compiler's): every committed fuzz input decodes to the same program, and allocates to the same program, in the gcc
# tree as in the clang tree that fuzzed it, or the gcc replays above ran other programs and a crash file would not
# reproduce there (fuzz/decode_main.cpp).
find fuzz/corpus -type f | sort > build-fuzz/decode_inputs.txt
for opts in "" "--dma-patterns 60" "-O 1 --machine sp-registers=2" "-O 2" "-O 6 --allocator lsa" \
  "-O 0 --machine sbuf-bytes=12288 --machine psum-banks=8 --machine sp-registers=2"; do
  # shellcheck disable=SC2086  # opts is split on purpose
  xargs build/fuzz/fuzz_decode $opts < build-fuzz/decode_inputs.txt > build-fuzz/decoded_gcc.txt
  # shellcheck disable=SC2086
  xargs build-fuzz/fuzz/fuzz_decode $opts < build-fuzz/decode_inputs.txt > build-fuzz/decoded_clang.txt
  if ! cmp -s build-fuzz/decoded_gcc.txt build-fuzz/decoded_clang.txt; then
    echo "FAIL: gcc and clang builds decode or allocate fuzz inputs to different programs ($opts):"
    diff build-fuzz/decoded_gcc.txt build-fuzz/decoded_clang.txt | head -n 20
    exit 1
  fi
done
echo "generator and allocators: $(wc -l < build-fuzz/decode_inputs.txt) fuzz inputs decode and allocate to the same programs from gcc and clang"
bash ci/fuzz_smoke.sh "${FUZZ_SECONDS:-5}" build-fuzz  # 5 s a target: CI stays under 15 min (960 s with 10)
stamp
echo "== planted bugs: a sample, each caught by a fuzz target's corpus replay (bench/planted/run.sh runs them all)"
bash bench/planted/ci_sample.sh build-fuzz
stamp

# One closing line over both ctest runs (set -e and pipefail stop the script at the first failing run).
passed=0
for log in build/ctest.log build-fuzz/ctest.log; do
  n=$(sed -n 's/^100% tests passed, 0 tests failed out of \([0-9]*\)$/\1/p' "$log")
  passed=$((passed + ${n:-0}))
done
echo "ci: $passed tests passed, 0 failed; every fuzz smoke run ended without a finding"
