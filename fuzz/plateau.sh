#!/usr/bin/env bash
# Coverage over time of one target: a single libFuzzer process (ASan+UBSan build) from an empty corpus for SECONDS,
# every status line stamped with the elapsed time; prints executions, cov (edges), ft (features) and corpus size at
# 10 s, 30 s, 1, 2, 5, 10, 20 minutes (those within SECONDS) and at the end, then merges what it found into the
# committed corpus (so the run is a campaign too). docs/fuzzing.md says how to read the results.
# Usage: nice -n 10 bash fuzz/plateau.sh TARGET [SECONDS]      (default 600; one process: -jobs is not used)
#        FUZZ_BIN_DIR=DIR bash fuzz/plateau.sh ...    runs DIR/TARGET_fuzz as it is (default: build-fuzz/fuzz, built first)
#        PLATEAU_NO_MERGE=1 bash fuzz/plateau.sh ...  measures only: nothing is merged into the committed corpus
# The stamped log is fuzz/findings/TARGET/plateau.log; crashes land in fuzz/findings/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
. fuzz/options.sh
target=${1:?target name, e.g. lsa_driver}
seconds=${2:-600}
bin=${FUZZ_BIN_DIR:-build-fuzz/fuzz}
if [ -z "${FUZZ_BIN_DIR:-}" ]; then
  [ -f build-fuzz/CMakeCache.txt ] || bash ci/fuzz_build.sh build-fuzz
  ninja -C build-fuzz "${target}_fuzz" >/dev/null
fi

findings=fuzz/findings/$target
mkdir -p "$findings" "fuzz/corpus/$target"
work=$(mktemp -d)
dict=()
[ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
log=$findings/plateau.log
status=0
t0=${EPOCHREALTIME/./}  # microseconds (bash 5), no process per line
# /usr/bin/time: the process's CPU seconds, so executions per CPU second can be told from a busy machine's wall clock.
{ ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    /usr/bin/time -f "cpu_seconds %U %S" -o "$findings/plateau.cpu" "$bin/${target}_fuzz" "$work" "${dict[@]}" -max_total_time="$seconds" \
    -timeout="$(fuzz_option "$target" timeout 10)" -max_len="$(fuzz_option "$target" max_len 4096)" \
    -rss_limit_mb=2048 -artifact_prefix="$findings/" -print_final_stats=1 2>&1 || status=$?; } |
  while IFS= read -r line; do
    t=$(( ${EPOCHREALTIME/./} - t0 ))
    printf '%d.%d %s\n' $(( t / 1000000 )) $(( t / 100000 % 10 )) "$line"
  done >"$log"

# One row per time mark: the last status line ("#N ... cov: C ft: F corp: K/..") at or before it.
row() {
  awk -v t="$1" '$2 ~ /^#[0-9]+$/ && $0 ~ / cov: / && $1 <= t {
      n = substr($2, 2); for (i = 3; i <= NF; ++i) { if ($i == "cov:") c = $(i+1); if ($i == "ft:") f = $(i+1);
      if ($i == "corp:") { k = $(i+1); sub(/\/.*/, "", k) } } }
    END { if (n != "") printf "%8s s %12d execs %6d cov %7d ft %6d corpus\n", t, n, c, f, k }' "$log"
}
echo "== $target: coverage over time ($seconds s, one process, empty corpus)"
for mark in 10 30 60 120 300 600 1200; do [ "$mark" -lt "$seconds" ] && row "$mark"; done
row "$seconds"
grep -E "^[0-9.]+ stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" "$log" | cut -d' ' -f2- || true
units=$(sed -n 's/^[0-9.]* stat::number_of_executed_units: *//p' "$log")
awk -v n="${units:-0}" '$1 == "cpu_seconds" { c = $2 + $3; if (c > 0) printf "cpu seconds: %.1f; executions per cpu second: %.0f\n", c, n / c }' \
  "$findings/plateau.cpu"

# The merge replays the whole committed corpus too (minutes on a busy machine): PLATEAU_NO_MERGE=1 skips it.
[ -n "${PLATEAU_NO_MERGE:-}" ] || "$bin/${target}_fuzz" -merge=1 "fuzz/corpus/$target" "$work" >/dev/null 2>&1 || true
rm -rf "$work"
if [ "$status" -ne 0 ]; then echo "FINDING ($target): see $log"; exit 1; fi
