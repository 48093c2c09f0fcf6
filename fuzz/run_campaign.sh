#!/usr/bin/env bash
# Runs a libFuzzer campaign on one target with ASan+UBSan, merging what it finds into the committed corpus.
# Usage: bash fuzz/run_campaign.sh TARGET [SECONDS] [JOBS]    e.g. bash fuzz/run_campaign.sh parse_check 600
# Crashes are written to fuzz/findings/TARGET/; keep each fixed one as a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?target name, e.g. parse_check}
seconds=${2:-600}
jobs=${3:-1}

[ -f build-fuzz/CMakeCache.txt ] || bash ci/fuzz_build.sh build-fuzz
ninja -C build-fuzz "${target}_fuzz"

corpus=fuzz/corpus/$target
findings=fuzz/findings/$target
work=$(mktemp -d)
mkdir -p "$corpus" "$findings"
dict=()
[ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
parallel=()  # -jobs makes libFuzzer write fuzz-N.log files in the working directory; only when asked
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
seeds=()
[ -d corpus/kernels ] && seeds+=(corpus/kernels)
[ -d corpus/regressions ] && seeds+=(corpus/regressions)

ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  "build-fuzz/fuzz/${target}_fuzz" "$work" "$corpus" "${seeds[@]}" "${dict[@]}" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 "${parallel[@]}" \
  -artifact_prefix="$findings/" -print_final_stats=1 2>&1 | tee "$findings/last_run.log" | grep -E "^#|stat::|ERROR|SUMMARY" | tail -20

# Keep only inputs that add coverage.
"build-fuzz/fuzz/${target}_fuzz" -merge=1 "$corpus" "$work" >/dev/null 2>&1 || true
rm -rf "$work"
echo "corpus: $(ls "$corpus" | wc -l) files in $corpus; findings in $findings"
