#!/usr/bin/env bash
# What one execution of an allocator fuzz target costs, on inputs a fuzzing run executed. A corpus keeps the inputs
# that found coverage (often the largest programs); a run mostly executes short mutations of them, so a corpus replay
# weighs the costs differently from a campaign. bench/data/coloring_driver_executions.tar.gz holds 1,412 inputs:
# every 40th input coloring_driver executed in 90 s of fuzzing from the campaign corpus (-max_len=64,
# -seed=7), saved by a copy of the target that wrote them out.
#
# Replays them, PAIRS times, through FUZZ_BIN (the ASan+UBSan libFuzzer binary of a fuzz tree, ci/fuzz_build.sh)
# and, when given, BASELINE_BIN (the same target of another tree), alternating which goes first; libFuzzer runs each
# file given as an argument REPS times (-runs), without mutation. Prints the CPU seconds (user + sys) of each and
# executions per CPU second; with a baseline, the ratio of each pair (a shared machine's noise shows as their spread,
# which is why only pairs run back to back are compared). A replay leaves out libFuzzer's per-execution feature
# collection (a small share of a campaign's samples). With heaptrack installed and REPLAY_BIN set (a gcc tree's
# build/fuzz/coloring_driver_fuzz), also the heap blocks per execution, which do not depend on the machine's load
# (reading the 1,412 files adds a few blocks each). Both run every execution (ALLOCSIM_FUZZ_RERUN=1): a target
# skips a case its process already ran (fuzz/seen_programs.h), which would make every replay after the first free.
# Usage: bash bench/fuzz_exec_cost.sh FUZZ_BIN [BASELINE_BIN] [PAIRS (3)] [REPS (2)]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: bash bench/fuzz_exec_cost.sh FUZZ_BIN [BASELINE_BIN] [PAIRS] [REPS]}
base=${2:-}
pairs=${3:-3}
reps=${4:-2}
[ -x /usr/bin/time ] || { echo "fuzz_exec_cost: needs GNU time (apt-get install time)" >&2; exit 2; }
for b in "$bin" $base; do
  [ -x "$b" ] || { echo "fuzz_exec_cost: $b is not an executable" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in"
tar xzf "$here/data/coloring_driver_executions.tar.gz" -C "$tmp/in"
mapfile -t files < <(find "$tmp/in" -type f | sort)
n=${#files[@]}
execs=$((n * reps))

cpu() {  # CPU seconds of one replay by binary $1
  /usr/bin/time -o "$tmp/time" -f "%U %S" \
    env ALLOCSIM_FUZZ_RERUN=1 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    "$1" -runs="$reps" "${files[@]}" >/dev/null 2>"$tmp/err" || true
  if ! grep -q '^Executed ' "$tmp/err"; then
    echo "fuzz_exec_cost: $1 did not replay the inputs:" >&2
    tail -n 20 "$tmp/err" >&2
    exit 1
  fi
  awk '{ printf "%.2f", $1 + $2 }' "$tmp/time"
}

echo "$n inputs x $reps runs = $execs executions per replay"
for i in $(seq "$pairs"); do
  if [ -z "$base" ]; then
    a=$(cpu "$bin")
    echo "replay $i: $a CPU s, $(awk -v e="$execs" -v s="$a" 'BEGIN { printf "%.0f", e / s }') per CPU s"
    continue
  fi
  if [ $((i % 2)) = 1 ]; then a=$(cpu "$bin"); b=$(cpu "$base"); else b=$(cpu "$base"); a=$(cpu "$bin"); fi
  awk -v e="$execs" -v a="$a" -v b="$b" -v i="$i" 'BEGIN {
    printf "pair %d: %s CPU s (%.0f per CPU s) against the baseline'"'"'s %s (%.0f): %.3fx\n", i, a, e / a, b, e / b, b / a }'
done

if [ -n "${REPLAY_BIN:-}" ]; then
  if ! command -v heaptrack >/dev/null || ! command -v heaptrack_print >/dev/null; then
    echo "heap blocks: heaptrack is not installed (apt-get install heaptrack)"
  else
    # The directory, not the files: heaptrack records the command line, and 1,412 paths do not fit its buffer.
    ALLOCSIM_FUZZ_RERUN=1 heaptrack -o "$tmp/ht" "$REPLAY_BIN" "$tmp/in" >/dev/null 2>&1 || true
    calls=$(heaptrack_print -f "$tmp"/ht*.zst 2>/dev/null | sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p')
    [ -n "$calls" ] || { echo "fuzz_exec_cost: heaptrack recorded nothing for $REPLAY_BIN" >&2; exit 1; }
    echo "heap blocks: $calls in $n executions of $REPLAY_BIN = $(awk -v c="$calls" -v n="$n" 'BEGIN { printf "%.0f", c / n }') per execution"
  fi
fi
