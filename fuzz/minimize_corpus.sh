#!/usr/bin/env bash
# Minimizes committed corpora with libFuzzer's -merge=1: every input of fuzz/corpus/TARGET is run once (ASan+UBSan
# build) and only a smallest set keeping all of the target's coverage (features) is kept; the directory is replaced.
# Run it after a change to how a target reads its input (e.g. fuzz/fuzz_program.h's kFuzzLimits), so the corpora
# CI replays (fuzz_replay_* ctests) stay small. Prints the counts and sizes before and after.
# Usage: bash fuzz/minimize_corpus.sh [TARGET...]        (default: every fuzz/*_fuzz.cpp)
set -euo pipefail
cd "$(dirname "$0")/.."
. fuzz/options.sh
[ -f build-fuzz/CMakeCache.txt ] || bash ci/fuzz_build.sh build-fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in fuzz/*_fuzz.cpp; do targets+=("$(basename "$src" _fuzz.cpp)"); done
fi
for target in "${targets[@]}"; do
  ninja -C build-fuzz "${target}_fuzz" >/dev/null
  corpus=fuzz/corpus/$target
  [ -d "$corpus" ] || continue
  before="$(ls "$corpus" | wc -l) files, $(du -sb "$corpus" | cut -f1) bytes"
  fresh=$(mktemp -d)
  # Inputs longer than max_len are truncated by the merge, as a campaign would see them.
  "build-fuzz/fuzz/${target}_fuzz" -merge=1 -max_len="$(fuzz_option "$target" max_len 4096)" \
    -timeout="$(fuzz_option "$target" timeout 10)" "$fresh" "$corpus" >"$fresh.log" 2>&1 ||
    { tail -30 "$fresh.log"; echo "merge failed for $target"; exit 1; }
  rm -rf "$corpus"
  mv "$fresh" "$corpus"
  rm -f "$fresh.log"
  echo "$target: $before -> $(ls "$corpus" | wc -l) files, $(du -sb "$corpus" | cut -f1) bytes"
done
