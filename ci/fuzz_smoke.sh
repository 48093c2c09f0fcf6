#!/usr/bin/env bash
# Bounded libFuzzer smoke runs (clang, ASan+UBSan) of every fuzz target, starting from the committed corpus.
# Usage: bash ci/fuzz_smoke.sh [SECONDS_PER_TARGET]     (default 60; long campaigns: fuzz/run_campaign.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DALLOCSIM_FUZZ=ON -DALLOCSIM_SANITIZE=ON -DALLOCSIM_TESTS=OFF >/dev/null
ninja -C build-fuzz

status=0
for src in fuzz/*_fuzz.cpp; do
  name=$(basename "$src" .cpp)
  target=${name%_fuzz}
  work=$(mktemp -d)
  dict=()
  [ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
  # Start from at most 200 committed inputs: ctest already replays the whole corpus (ASan build), and loading
  # thousands of inputs would use up the smoke run's time before any mutation happens.
  if [ -d "fuzz/corpus/$target" ]; then
    mapfile -t files < <(find "fuzz/corpus/$target" -type f | sort)  # no `| head`: SIGPIPE + pipefail
    [ ${#files[@]} -eq 0 ] || cp -t "$work" "${files[@]:0:200}"
  fi
  seeds=()
  for d in corpus/kernels corpus/regressions; do [ -d "$d" ] && seeds+=("$d"); done
  echo "== fuzz smoke: $target (${seconds}s)"
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      "build-fuzz/fuzz/$name" "$work" "${seeds[@]}" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=8192 -seed=1 -artifact_prefix="$work/" -print_final_stats=1 >"$work/log" 2>&1; then
    status=1
    tail -40 "$work/log"
    for crash in "$work"/crash-* "$work"/timeout-* "$work"/oom-*; do
      [ -f "$crash" ] && { echo "-- input $crash:"; head -c 2000 "$crash"; echo; }
    done
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/log" || true
  fi
  rm -rf "$work"
done
exit $status
