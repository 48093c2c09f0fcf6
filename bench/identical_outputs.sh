#!/usr/bin/env bash
# Whether two allocsim binaries behave identically on the corpus: for a refactoring that must not change behaviour.
# Runs both binaries on every program of corpus/ (kernels, NKI samples, register kernels, regressions, liveness,
# hand-allocated and hand-broken examples) and compares standard output, standard error and exit code byte for byte:
#   fmt;
#   alloc at every optlevel (-O0 .. -O8 that the driver accepts) and every --allocator, each plain, with -v -v and
#     with --json, on the program's own arch and with fewer PSUM banks and SP registers (more spilling);
#   alloc --sbuf-heuristic H / --psum-heuristic H for every heuristic, -v -v;
#   verify of each -O2 / -O7 / -O8 allocation against its input, and of every file as given;
#   run at -O2 and --compare O0,O2,O7,O8 (--json).
# Usage: bash bench/identical_outputs.sh OLD_ALLOCSIM NEW_ALLOCSIM [OUT_DIR]
#        JOBS=N   programs in parallel (default 2)
#        KEEP_OLD=1  reuse OUT_DIR/old from an earlier run with the same OLD_ALLOCSIM (compare a new build again)
# Prints the differing cases (a unified diff of the first few) and exits 1 when any differs, 0 when all are equal.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_ALLOCSIM NEW_ALLOCSIM [OUT_DIR]" >&2
  exit 2
fi
OLD=$(realpath "$1")
NEW=$(realpath "$2")
OUT=${3:-$(mktemp -d)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT/old" "$OUT/new"

# One case: `case NAME ARGS...` runs ARGS with the binary in $BIN, writing NAME.{out,err,rc} under $DIR.
cases_for() {  # BIN DIR FILE
  local BIN=$1 DIR=$2 F=$3
  local base
  base=$(echo "${F#"$ROOT"/corpus/}" | tr '/' '_')
  local T
  T=$(mktemp -d)
  one() {  # NAME ARGS...
    local name=$1
    shift
    (cd "$T" && "$@" >"$DIR/$base.$name.out" 2>"$DIR/$base.$name.err"; echo $? >"$DIR/$base.$name.rc")
    # Temporary paths and the exact search's wall times must not make the outputs differ.
    sed -i -E -e "s#$T#TMP#g" -e 's/(nodes, )[0-9.]+ s$/\1T s/' "$DIR/$base.$name.out" "$DIR/$base.$name.err"
  }
  one fmt "$BIN" fmt "$F"
  for arch in own small; do
    local A=()
    [ "$arch" = small ] && A=(--psum-banks 2 --sp-registers 6)
    for O in 0 1 2 3 6 7 8; do
      one "$arch.O$O" "$BIN" alloc "$F" -O "$O" --quiet "${A[@]}" -o "$T/$arch.O$O.nki.txt"
      cat "$T/$arch.O$O.nki.txt" >>"$DIR/$base.$arch.O$O.out" 2>/dev/null
      one "$arch.O$O.vv" "$BIN" alloc "$F" -O "$O" --quiet -v -v "${A[@]}"
      one "$arch.O$O.json" "$BIN" alloc "$F" -O "$O" --quiet --json "${A[@]}"
    done
    for AL in coloring no-reuse fixed lsa; do
      one "$arch.$AL.vv" "$BIN" alloc "$F" --allocator "$AL" --quiet -v -v "${A[@]}"
    done
    one "$arch.lsa.O6.vv" "$BIN" alloc "$F" --allocator lsa -O 6 --quiet -v -v "${A[@]}"
    one "$arch.exact.vv" "$BIN" alloc "$F" --allocator exact --node-budget 20000 --time-limit 600 --quiet -v -v "${A[@]}"
    for H in $(seq 0 15); do
      one "$arch.sbufh$H" "$BIN" alloc "$F" --sbuf-heuristic "$H" --quiet -v -v "${A[@]}"
    done
    for H in 0 1 2 3; do
      one "$arch.psumh$H" "$BIN" alloc "$F" --psum-heuristic "$H" --quiet -v -v "${A[@]}"
    done
    for O in 2 7 8; do
      if [ -s "$T/$arch.O$O.nki.txt" ]; then
        one "$arch.O$O.verify" "$BIN" verify "$T/$arch.O$O.nki.txt" --original "$F" --poison-seed 1 --quiet
      fi
    done
    one "$arch.run" "$BIN" run "$F" --poison-seed 1 --quiet "${A[@]}"
    one "$arch.compare" "$BIN" run "$F" --compare O0,O2,O7,O8 --json --poison-seed 1 --quiet "${A[@]}"
  done
  one verify "$BIN" verify "$F" --poison-seed 1 --quiet
  rm -rf "$T"
}
export -f cases_for
export ROOT

mapfile -t FILES < <(find "$ROOT/corpus" -name '*.nki.txt' | sort)
echo "${#FILES[@]} programs; outputs in $OUT" >&2
for side in old new; do
  if [ "$side" = old ] && [ "${KEEP_OLD:-0}" = 1 ] && [ -n "$(ls -A "$OUT/old")" ]; then
    continue
  fi
  rm -rf "${OUT:?}/$side" && mkdir -p "$OUT/$side"
  BIN=$OLD
  [ "$side" = new ] && BIN=$NEW
  printf '%s\n' "${FILES[@]}" | xargs -P "${JOBS:-2}" -I{} bash -c 'cases_for "$0" "$1" "$2"' "$BIN" "$OUT/$side" {}
done

n_cases=$(find "$OUT/old" -name '*.rc' | wc -l)
if diff -rq "$OUT/old" "$OUT/new" >"$OUT/differ.txt"; then
  echo "identical: $n_cases cases (each stdout, stderr and exit code) on ${#FILES[@]} programs" >&2
  exit 0
fi
echo "DIFFERENT: $(wc -l <"$OUT/differ.txt") of $((3 * n_cases)) outputs (list in $OUT/differ.txt)" >&2
head -20 "$OUT/differ.txt" >&2
diff -ru "$OUT/old" "$OUT/new" | head -80 >&2
exit 1
