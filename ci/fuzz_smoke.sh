#!/usr/bin/env bash
# Bounded libFuzzer smoke runs (clang, ASan+UBSan) of every fuzz target, starting from the committed corpus,
# two targets at a time (one per core).
# Usage: bash ci/fuzz_smoke.sh [SECONDS_PER_TARGET] [BUILD_DIR]
#   (default 60 s in build-fuzz, built by ci/fuzz_build.sh if absent; long campaigns: fuzz/run_campaign.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
bdir=${2:-build-fuzz}
parallel=${FUZZ_PARALLEL:-2}
. fuzz/options.sh  # max_len and timeout per target: fuzz/TARGET.options

if [ -f "$bdir/CMakeCache.txt" ]; then ninja -C "$bdir"; else bash ci/fuzz_build.sh "$bdir"; fi

# smoke TARGET: one bounded run; prints its log's tail and the failing input on a finding; exit 1 then.
smoke() {
  local target=$1 name=$1_fuzz work dict=() seeds=() files=()
  work=$(mktemp -d)
  [ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
  # Start from at most 200 committed inputs: ctest already replays the whole corpus (sanitizer build), and
  # loading thousands of inputs would use up the smoke run's time before any mutation happens.
  if [ -d "fuzz/corpus/$target" ]; then
    mapfile -t files < <(find "fuzz/corpus/$target" -type f | sort)  # no `| head`: SIGPIPE + pipefail
    [ ${#files[@]} -eq 0 ] || cp -t "$work" "${files[@]:0:200}"
  fi
  for d in corpus/kernels corpus/regressions; do [ -d "$d" ] && seeds+=("$d"); done
  local status=0
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      "$bdir/fuzz/$name" "$work" "${seeds[@]}" "${dict[@]}" -max_total_time="$seconds" -seed=1 \
      -timeout="$(fuzz_option "$target" timeout 10)" -max_len="$(fuzz_option "$target" max_len 4096)" \
      -rss_limit_mb=2048 -artifact_prefix="$work/" -print_final_stats=1 >"$work/log" 2>&1; then
    status=1
  fi
  {
    echo "== fuzz smoke: $target (${seconds}s)"
    if [ $status -ne 0 ]; then
      tail -40 "$work/log"
      for crash in "$work"/crash-* "$work"/timeout-* "$work"/oom-*; do
        [ -f "$crash" ] && { echo "-- input $crash:"; head -c 2000 "$crash"; echo; }
      done
    else
      grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|^allocsim: skipped|^allocsim: [0-9]* executions had the input" "$work/log" || true
    fi
  } >"$work.report"
  cat "$work.report"
  rm -rf "$work" "$work.report"
  return $status
}

pids=() status=0
for src in fuzz/*_fuzz.cpp; do
  target=$(basename "$src" _fuzz.cpp)
  smoke "$target" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$parallel" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
