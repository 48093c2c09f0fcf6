#!/usr/bin/env bash
# Which allocator code the fuzz corpora reach. Builds the allocator targets with clang's source-based coverage (no
# sanitizers, no libFuzzer: each target replays its corpus, fuzz/replay_main.cpp), replays every target's corpus,
# and writes to OUT_DIR:
#   report.txt   line, function and region coverage per file of alloc/ (llvm-cov report), then per target
#   unreached.txt  every alloc/ line no input executed, by file, without the lines that only build report text
#                  or error messages (a plateau read as "what the generated programs never make")
# A coverage plateau says that campaigns stop finding edges; this says which ones they never find:
# e.g. the pinned-tensor paths and the PSUM spill planner's refusals.
# Usage: bash fuzz/coverage_report.sh [OUT_DIR] [CORPUS_ROOT]
#   OUT_DIR      default build-cov/report (the coverage tree is build-cov)
#   CORPUS_ROOT  a directory holding TARGET/ corpora (default fuzz/corpus, the committed ones; a campaign's
#                worktree has larger ones)
#   TARGETS="lsa_driver dma_opt" bash fuzz/coverage_report.sh ...   fewer targets
# Needs clang with its own llvm-profdata and llvm-cov (the same LLVM version): clang-19 with `apt-get install
# llvm-19`, or clang-14 with llvm-14.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-build-cov/report}
corpora=${2:-fuzz/corpus}
targets=${TARGETS:-coloring_driver dma_opt lsa_driver psum_colorer reg_colorer}
bdir=build-cov

llvm=""
for v in 19 18 17 16 15 14; do
  if command -v "clang++-$v" >/dev/null && command -v "llvm-profdata-$v" >/dev/null && command -v "llvm-cov-$v" >/dev/null; then
    llvm=$v
    break
  fi
done
if [ -z "$llvm" ]; then
  echo "coverage_report: no clang with a matching llvm-profdata and llvm-cov (install llvm-19 beside clang-19:" \
       "apt-get install llvm-19)" >&2
  exit 2
fi
for t in $targets; do
  [ -d "$corpora/$t" ] || { echo "coverage_report: no corpus directory $corpora/$t" >&2; exit 2; }
done

flags="-O1 -DNDEBUG -fprofile-instr-generate -fcoverage-mapping"
CC=clang-$llvm CXX=clang++-$llvm cmake -S . -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" \
  -DALLOCSIM_FUZZ=OFF -DALLOCSIM_SANITIZE=OFF -DALLOCSIM_TESTS=OFF -DALLOCSIM_BENCH=OFF >/dev/null
bins=()
for t in $targets; do bins+=("${t}_fuzz"); done
ninja -C "$bdir" "${bins[@]}" >/dev/null

mkdir -p "$out"
prof=$(mktemp -d)
trap 'rm -rf "$prof"' EXIT
objects=()
for t in $targets; do
  LLVM_PROFILE_FILE="$prof/$t.profraw" "$bdir/fuzz/${t}_fuzz" "$corpora/$t" >"$prof/$t.log" 2>&1 ||
    { echo "coverage_report: $t failed on its corpus (see a sanitizer build for why):" >&2; tail -5 "$prof/$t.log" >&2; exit 1; }
  echo "$t: $(tail -1 "$prof/$t.log")"
  "llvm-profdata-$llvm" merge -o "$prof/$t.profdata" "$prof/$t.profraw"
  objects+=(-object "$bdir/fuzz/${t}_fuzz")
done
"llvm-profdata-$llvm" merge -o "$prof/all.profdata" "$prof"/*.profraw
# The first -object is the positional binary llvm-cov expects.
first=${objects[1]}
rest=("${objects[@]:2}")
{
  echo "# Coverage of alloc/ by the corpora of: $targets ($corpora), clang $llvm source-based coverage"
  "llvm-cov-$llvm" report "$first" "${rest[@]}" -instr-profile "$prof/all.profdata" 2>/dev/null |
    awk 'NR <= 2 || /alloc\// {print} /alloc\// {lines += $8; missed += $9}
         END {printf "alloc/ together: %d of %d lines executed (%.1f %%)\n", lines - missed, lines, lines ? 100 * (lines - missed) / lines : 0}'
  for t in $targets; do
    echo
    echo "# $t alone"
    "llvm-cov-$llvm" report "$bdir/fuzz/${t}_fuzz" -instr-profile "$prof/$t.profdata" 2>/dev/null |
      awk '/alloc\// {lines += $8; missed += $9} END {printf "alloc/: %d of %d lines executed (%.1f %%)\n", lines - missed, lines, lines ? 100 * (lines - missed) / lines : 0}'
  done
} >"$out/report.txt"
"llvm-cov-$llvm" show "$first" "${rest[@]}" -instr-profile "$prof/all.profdata" 2>/dev/null |
  awk -v root="$root/" '
    /^\/.*:$/ { file = substr($0, 1, length($0) - 1); sub(root, "", file); keep = file ~ /^alloc\//; next }
    keep && /^ *[0-9]+\| *0\|/ {
      text = $0; sub(/^ *[0-9]+\| *0\|/, "", text)
      if (text ~ /(\.line\(|log\.|r_\.|throw |std::to_string|"[^"]*"$|^ *[})]*;? *$)/) next
      if (file != last) { print "\n" file; last = file }
      print $0
    }' >"$out/unreached.txt"
grep '^alloc/ together' "$out/report.txt"
echo "coverage_report: $out/report.txt, $out/unreached.txt ($(grep -c '|' "$out/unreached.txt" || true) lines)"
