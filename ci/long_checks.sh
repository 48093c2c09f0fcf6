#!/usr/bin/env bash
# The long checks CI runs only a bounded part of (README "Property tests and the long runs"):
#   0. the whole unit, property and replay suite under clang ASan+UBSan (build-asan; CI runs only the replays);
#   1. no false alarm on 10,000 generated programs placed by placeGreedy and placeNoReuse (all three oracles);
#   2. a RapidCheck campaign over every property with a fresh seed (printed; reproduce with RC_PARAMS=seed=...);
#   3. fuzz-allocator: the correct example allocator over PROGRAMS cases, the buggy one found within 60 s;
#   and the bench/ programs (CI does not build them) built in build/ with -DALLOCSIM_BENCH=ON, each started once.
# Usage: bash ci/long_checks.sh [PROGRAMS] [PROPERTY_CASES]      (defaults 10000 and 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-10000}
cases=${2:-10000}

echo "== the whole suite under ASan+UBSan (clang, build-asan)"
bash ci/fuzz_build.sh build-asan -DALLOCSIM_TESTS=ON
# detect_stack_use_after_return=0: the test programs run the SystemC model, whose coroutine stack switches ASan's
# fake stack does not follow (fuzz/sanitizer_defaults.cpp); clang 15+ turns it on by default.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir build-asan --output-on-failure -j "$(nproc)"

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_WERROR=ON >/dev/null
ninja -C build allocsim_props allocsim allocsim_tests first_fit first_fit_half_open

echo "== benchmarks (CI's build leaves bench/ out): built with -DALLOCSIM_BENCH=ON, each started once"
cmake -S . -B build -DALLOCSIM_BENCH=ON >/dev/null
ninja -C build alloc_quality sim_speed verify_scaling colorer_scaling loop_body_scaling nki_samples_report liveness_report
for b in alloc_quality sim_speed verify_scaling colorer_scaling loop_body_scaling; do build/bench/$b --benchmark_list_tests >/dev/null; done
bench_tmp=$(mktemp -d)
build/bench/verify_scaling --write 10000 "$bench_tmp/p.nki.txt" "$bench_tmp/original.nki.txt"
build/allocsim verify "$bench_tmp/p.nki.txt" --original "$bench_tmp/original.nki.txt" --quiet
rm -rf "$bench_tmp"

echo "== NKI sample kernels: the gen2 files at every coloring level too (ctest runs them at -O2)"
ALLOCSIM_NKI_SAMPLES_ALL_LEVELS=1 build/allocsim_corpus_tests --gtest_filter='*NkiSample*'

echo "== no false alarm: $programs generated programs"
ALLOCSIM_NO_FALSE_ALARM_PROGRAMS=$programs build/props/allocsim_props --gtest_filter='NoFalseAlarm.*'

echo "== simulator: every corpus kernel at every optlevel, simulated and checked against the interpreter"
ninja -C build allocsim
for k in corpus/kernels/*.nki.txt; do build/allocsim run "$k" --compare O0,O1,O2,O3,O6,O7,O8; done

echo "== DMA optimization: every corpus kernel and six pattern programs at --gca-dma-optlevel 0, 1, 2 (bench/dma_report.sh)"
table=$(bash bench/dma_report.sh build)
echo "$table"
if grep -q "| NO:" <<<"$table"; then echo "a DMA optimization check failed"; exit 1; fi

seed=${RC_SEED:-$(date +%s)}
echo "== RapidCheck campaign: $cases cases per property, seed $seed"
RC_PARAMS="max_success=$cases seed=$seed" build/props/allocsim_props --gtest_filter='-NoFalseAlarm.*'

echo "== fuzz-allocator: examples/first_fit over $programs cases, examples/first_fit_half_open for 60 s"
out=$(mktemp -d)
build/allocsim fuzz-allocator --runs "$programs" --jobs "$(nproc)" --out "$out/ok" -- build/examples/first_fit {in} {out}
if build/allocsim fuzz-allocator --time 60 --max-failures 1 --out "$out/bug" -- build/examples/first_fit_half_open {in} {out}; then
  echo "fuzz-allocator did not find the half-open live-range bug"; exit 1
fi
rm -rf "$out"
