#!/usr/bin/env bash
# libFuzzer's per-input leak check still fires with repeats skipped (fuzz/leak_check_probe.cpp says how): a seed that
# leaks gives LeakSanitizer's report and a leak- artifact while the seeds run; a seed that does not gives neither.
# Usage: bash fuzz/leak_check_test.sh PROBE_BINARY
set -uo pipefail
probe=${1:?usage: leak_check_test.sh PROBE_BINARY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() {  # name first-byte
  mkdir -p "$tmp/$1/corpus" "$tmp/$1/out"
  printf '%s0123456789abcdefghijklmnopqrstuvwxyz' "$2" >"$tmp/$1/corpus/seed"
  ASAN_OPTIONS=detect_leaks=1 "$probe" "$tmp/$1/corpus" -runs=0 -artifact_prefix="$tmp/$1/out/" >"$tmp/$1/log" 2>&1
  echo $?
}
status=$(run leaking L)
if [ "$status" -eq 0 ] || ! grep -q "ERROR: LeakSanitizer: detected memory leaks" "$tmp/leaking/log" ||
   ! ls "$tmp/leaking/out"/leak-* >/dev/null 2>&1; then
  echo "FAIL: the leaking seed gave no per-input leak report (exit status $status):"; tail -20 "$tmp/leaking/log"
  fail=1
fi
status=$(run clean C)
if [ "$status" -ne 0 ] || grep -q "LeakSanitizer" "$tmp/clean/log"; then
  echo "FAIL: the seed that does not leak was reported (exit status $status):"; tail -20 "$tmp/clean/log"
  fail=1
fi
[ "$fail" -eq 0 ] && echo "leak check: the leaking seed was reported with a leak- artifact, the other was not"
exit "$fail"
