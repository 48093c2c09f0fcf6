#!/usr/bin/env bash
# Captures every output of `allocsim fmt`, `alloc`, `verify` and `run` on the corpus into one directory, so that a
# change meant to keep behaviour can be checked byte for byte: run it before and after, then `diff -r BEFORE AFTER`.
# Each command's standard output, standard error and exit code go to their own files; poison seeds are fixed (the
# default draws one from the clock) and wall-clock figures are masked, so two runs of one binary agree.
# Usage: bash ci/capture_outputs.sh ALLOCSIM OUT_DIR [JOBS]     (JOBS parallel commands, default 2)
set -euo pipefail
bin=$(realpath "$1"); out=$(realpath -m "$2"); jobs=${3:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export ALLOCSIM_BIN=$bin OUT=$out
one() {  # NAME ARGS...: runs allocsim ARGS under a time limit, stores its three outputs as NAME.{out,err,rc}
  local name=$1; shift
  set +e
  timeout 120 "$ALLOCSIM_BIN" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
  echo $? >"$OUT/$name.rc"
  # Wall-clock figures differ from run to run: "1.23 s", "0.4 ms", "seconds": 0.12.
  sed -i -E 's/[0-9]+(\.[0-9]+)? ?(s|ms|us)\b/<t>\2/g; s/"(seconds|wall_s|time_s|elapsed_s)": ?[0-9.e+-]+/"\1": <t>/g' \
    "$OUT/$name.out" "$OUT/$name.err"
}
case_of() {  # FILE: every command on one corpus file
  local f=$1 key
  key=$(echo "${f#"$ROOT"/corpus/}" | tr / _)
  one "$key.fmt" fmt "$f"
  one "$key.verify" verify "$f" --poison-seed 7 --quiet --all
  one "$key.verify.json" verify "$f" --poison-seed 7 --quiet --json
  for o in 0 1 2 3 6 7 8; do
    one "$key.alloc.O$o" alloc "$f" -O "$o" -v --quiet
    one "$key.alloc.O$o.json" alloc "$f" -O "$o" --json --verify --poison-seed 7 --quiet
    if [ "$(cat "$OUT/$key.alloc.O$o.rc")" = 0 ]; then
      cp "$OUT/$key.alloc.O$o.out" "$OUT/$key.alloc.O$o.nki.txt"
      one "$key.alloc.O$o.verify" verify "$OUT/$key.alloc.O$o.nki.txt" --original "$f" --poison-seed 7 --quiet --all
    fi
    one "$key.run.O$o" run "$f" -O "$o" --poison-seed 7
  done
  one "$key.alloc.lsa" alloc "$f" -O 6 --allocator lsa -v --quiet
  one "$key.alloc.exact" alloc "$f" --allocator exact --node-budget 2000 --time-limit 1000 -v --quiet
}
export ROOT=$root
export -f one case_of
find "$root/corpus" -name '*.nki.txt' | sort | xargs -P "$jobs" -I{} bash -c 'case_of "$1"' _ {}
# Paths in messages name the capture and source directories: make them the same for every capture.
find "$out" -type f \( -name '*.out' -o -name '*.err' \) -print0 |
  xargs -0 -r sed -i -e "s|$(realpath "$out")/|OUT/|g" -e "s|$root/|ROOT/|g"
