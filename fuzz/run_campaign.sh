#!/usr/bin/env bash
# Runs a libFuzzer campaign on one target with ASan+UBSan, spread over JOBS processes (-jobs=JOBS -workers=JOBS,
# each job fuzzing for SECONDS from the shared corpus), merges what it finds into the committed corpus and prints
# the executions: per job, in total, per second and per CPU second of the jobs, and the edges at start and end.
# Usage: bash fuzz/run_campaign.sh TARGET [SECONDS] [JOBS]    e.g. bash fuzz/run_campaign.sh lsa_driver 1200 2
# max_len and timeout come from fuzz/TARGET.options (the file ClusterFuzzLite reads too); FUZZ_TIMEOUT=S overrides the
# timeout, which is wall-clock seconds: a campaign niced beside builds can be starved long enough to report a
# "timeout" on an input that takes a second alone. Crashes are written to
# fuzz/findings/TARGET/ (not committed); keep each fixed one as a regression test. The jobs' logs stay in
# fuzz/findings/TARGET/logs/. On a shared machine run it niced: `nice -n 10 bash fuzz/run_campaign.sh ...`.
# FUZZ_MAX_LEN=N caps the input length below the options file's (libFuzzer truncates the corpus's longer inputs as
# it loads them): an execution's cost grows with the program an input decodes to, and inputs of at most 64 bytes
# run two to three times as many executions per CPU second while reaching nearly all the alloc/ lines that hours of
# 512-byte inputs reach.
# FUZZ_CORPUS=DIR fuzzes from DIR and merges into it instead of the committed corpus (DIR is made, and filled from the
# committed corpus when empty). The merge keeps every input with a feature the others lack, so a long campaign adds
# hundreds of inputs, which CI would then replay; keep such a corpus outside
# the repository and bring only new edges in: `build-fuzz/fuzz/T_fuzz -merge=1 -use_counters=0 fuzz/corpus/T DIR`.
set -euo pipefail
cd "$(dirname "$0")/.."
. fuzz/options.sh
target=${1:?target name, e.g. lsa_driver}
seconds=${2:-600}
jobs=${3:-1}

[ -f build-fuzz/CMakeCache.txt ] || bash ci/fuzz_build.sh build-fuzz
ninja -C build-fuzz "${target}_fuzz"

root=$PWD
# The campaign runs a copy of the binary: with -jobs libFuzzer starts a new process per job from its own path, so a
# rebuild of build-fuzz during a long campaign would otherwise switch binaries between jobs.
bindir=$(mktemp -d)
bin=$bindir/${target}_fuzz
cp "build-fuzz/fuzz/${target}_fuzz" "$bin"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- 2>/dev/null || echo '+local changes')"
echo "campaign $target: the binary of commit $commit, ${seconds} s over $jobs job(s)"
corpus=$root/fuzz/corpus/$target
if [ -n "${FUZZ_CORPUS:-}" ]; then
  mkdir -p "$FUZZ_CORPUS"
  [ -n "$(ls -A "$FUZZ_CORPUS")" ] || cp "$corpus"/* "$FUZZ_CORPUS"/
  corpus=$(cd "$FUZZ_CORPUS" && pwd)
fi
findings=$root/fuzz/findings/$target
logs=$findings/logs
work=$(mktemp -d)
mkdir -p "$corpus" "$logs"
rm -f "$logs"/*.log
touch "$logs/started"  # crash files newer than this are this campaign's
dict=()
[ -f "fuzz/$target.dict" ] && dict=(-dict="$root/fuzz/$target.dict")
seeds=()
[ -d corpus/kernels ] && seeds+=("$root/corpus/kernels")
[ -d corpus/regressions ] && seeds+=("$root/corpus/regressions")
max_len=${FUZZ_MAX_LEN:-$(fuzz_option "$target" max_len 4096)}
timeout=${FUZZ_TIMEOUT:-$(fuzz_option "$target" timeout 10)}

# CPU seconds used by the shell's finished children so far (user + system, bash's `times`): the jobs' CPU is the
# difference across the run. Executions per CPU second is the rate to quote on a shared machine, where wall-clock
# seconds include the time other processes had the cores.
# Sets cpu_seconds. `times` runs in this shell, writing to a file: in a command substitution it would report the
# subshell's own children.
cpu_file=$(mktemp)
children_cpu() {
  times >"$cpu_file"
  cpu_seconds=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; ++i) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.1f", t }' "$cpu_file")
}
# -jobs writes fuzz-N.log into the working directory: run from the log directory.
start=$SECONDS
children_cpu
cpu_start=$cpu_seconds
status=0
(cd "$logs" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  "$bin" "$work" "$corpus" "${seeds[@]}" "${dict[@]}" \
  -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len="$max_len" \
  -jobs="$jobs" -workers="$jobs" -artifact_prefix="$findings/" -print_final_stats=1 >"$logs/main.log" 2>&1) || status=$?
elapsed=$(( SECONDS - start ))
children_cpu
cpu=$(awk -v a="$cpu_start" -v b="$cpu_seconds" 'BEGIN { printf "%.1f", b - a }')
rm -f "$cpu_file"

# Keep only inputs that add coverage.
"$bin" -merge=1 "$corpus" "$work" >/dev/null 2>&1 || true
rm -rf "$work"
# The merged corpus once more, each input once, with ASan's stack-use-after-return detection, which fuzzing runs
# without (fuzz/sanitizer_defaults.cpp): every path the campaigns reached runs with it too. Not for the targets that
# run SystemC's coroutines, sim and timing_oracle (ASan's fake stack frames do not follow a coroutine's stack switches:
# the first input crashes in a coroutine; fuzz/CMakeLists.txt leaves them out of the replay ctests' detection too).
uar_status=0
if [ "$target" != sim ] && [ "$target" != timing_oracle ]; then
  (cd "$logs" && find "$corpus" -type f -print0 | sort -z |
    ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    xargs -0 -r "$bin" -artifact_prefix="$findings/" >"$logs/replay_uar.log" 2>&1) || uar_status=$?
  echo "replay with stack-use-after-return detection: $(find "$corpus" -type f | wc -l) inputs, exit status $uar_status"
fi
rm -rf "$bindir"
[ "$uar_status" -ne 0 ] && [ "$status" -eq 0 ] && status=$uar_status

total=0
for log in "$logs"/fuzz-*.log; do
  [ -f "$log" ] || continue
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  echo "  $(basename "$log"): ${n:-?} executions; $(grep -E '^#[0-9]+' "$log" | tail -n 1)"
  # Executions the target skipped as repeats of a case it had run (fuzz/seen_programs.h); libFuzzer counts them.
  grep -m 1 '^allocsim: skipped' "$log" | sed 's/^/    /' || true
  # Executions of the input just run: again after a run that left heap blocks (libFuzzer's leak check), skipped
  # after one that did not (a mutation that changed nothing; fuzz/execution_heap.h). libFuzzer counts both.
  grep -m 1 "^allocsim: [0-9]* executions had the input just run" "$log" | sed 's/^/    /' || true
  total=$(( total + ${n:-0} ))
done
per_cpu=$(awk -v n="$total" -v c="$cpu" 'BEGIN { printf "%d", (c > 0 ? n / c : 0) }')
echo "campaign $target: $total executions in ${elapsed} s over $jobs job(s) ($(( total / (elapsed > 0 ? elapsed : 1) )) per second); $cpu CPU s ($per_cpu per CPU s)"
echo "corpus: $(ls "$corpus" | wc -l) files in ${FUZZ_CORPUS:-fuzz/corpus/$target}; findings in fuzz/findings/$target"
new=$(find "$findings" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) -newer "$logs/started" | wc -l)

# Edges as the first job's log has them when the corpus was loaded and at its end: how much the campaign found.
edges_start=$( (grep -m 1 'INITED' "$logs/fuzz-0.log" || true) 2>/dev/null | sed -n 's/.* cov: \([0-9]*\) .*/\1/p')
edges_end=$( (grep -E '^#[0-9]+' "$logs/fuzz-0.log" || true) 2>/dev/null | tail -n 1 | sed -n 's/.* cov: \([0-9]*\) .*/\1/p')
echo "edges: ${edges_start:--} at start, ${edges_end:--} at end; max_len $max_len; $new new finding file(s)"
if [ "$status" -ne 0 ] || [ "$new" -gt 0 ]; then
  echo "FINDING: see $logs and the crash-/timeout-/oom- files in $findings"
  exit 1
fi
