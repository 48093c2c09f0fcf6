#!/bin/bash
# How many planted bugs the black-box checks catch. Builds the planted tree (cmake -DALLOCSIM_PLANTED=ON: every plant
# of bench/planted/plants.txt compiled in, each switched on by ALLOCSIM_PLANT=name, ir/plant.h) and runs, for each
# plant, the checks a user's allocator gets:
#   fuzz-allocator  `allocsim fuzz-allocator` against the planted build's `allocsim alloc LEVEL` (the corpus kernels,
#                   then generated programs; every result through the three oracles and the simulator check);
#                   caught when a case fails; "cases" is how many cases ran up to the first failure;
#   properties      the planted build's RapidCheck suites (props/), without shrinking: caught when a property fails
#                   that passes without the plant (same seed and count); names the one that failed in the fewest
#                   cases, and how many; every property a plant fails is listed after the table;
#   sim replay      `allocsim run` on the tiny corpus kernels at the plant's level: caught when a run fails its
#                   check or its cycles differ from the same build without the plant (the release behaviour).
# Prints one row per plant and the catch rate per channel.
#
#   bash bench/planted/run.sh [--runs N] [--props N] [--sample] [PLANT...]
#     --runs N    generated cases per fuzz-allocator run (default 1000)
#     --props N   successful cases per property (default 100)
#     --sample    three plants with short runs (a quick look; CI runs bench/planted/ci_sample.sh)
#   ALLOCSIM_PLANTED_BUILD=DIR  the planted tree (default build-planted)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=1000 props=100 sample=0
plants=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --props) props=$2; shift 2 ;;
    --sample) sample=1; shift ;;
    -h|--help) sed -n 2,19p "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) plants+=("$1"); shift ;;
  esac
done
if [ $sample = 1 ]; then
  runs=60 props=30
  [ ${#plants[@]} -gt 0 ] || plants=(reg_back_edge_dropped bestofn_keeps_worst sbuf_gap_unaligned)
fi
table=bench/planted/plants.txt
if [ ${#plants[@]} -eq 0 ]; then
  mapfile -t plants < <(grep -v '^#' "$table" | awk 'NF { print $1 }')
fi

build=${ALLOCSIM_PLANTED_BUILD:-build-planted}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_PLANTED=ON -DALLOCSIM_TESTS=ON "${launcher[@]}" \
  >/dev/null
nice ninja -C "$build" allocsim allocsim_props >/dev/null
bin=$build/allocsim
props_bin=$build/props/allocsim_props
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ALLOCSIM_REGRESSION_DIR=$tmp/regressions  # a planted property failure is not a regression of the source
kernels=(corpus/kernels/*_tiny.nki.txt)

rc_params="seed=20261206 max_success=$props noshrink=1"
# props_failures OUT: runs the property suites (the plant from the environment) and writes "name cases" for each
# property that failed (cases: the generated case that falsified it).
props_failures() {
  # The shrinker's own test needs shrinking: left out.
  "$props_bin" --gtest_filter=-Shrinking.* > "$tmp/props.txt" 2>&1 || true
  awk '/^\[ RUN      \]/ { t = $4 } /^Falsifiable after/ { print t, $3 }' "$tmp/props.txt" > "$1"
  if grep -q '^\[  FAILED  \]' "$tmp/props.txt" && [ ! -s "$1" ]; then
    grep -o '^\[  FAILED  \] [A-Za-z_]*\.[A-Za-z_]*' "$tmp/props.txt" | sed 's/^\[  FAILED  \] //; s/$/ 0/' > "$1"
  fi
}
# Properties that fail without any plant would count as catches of every plant: left out (and said so).
RC_PARAMS=$rc_params props_failures "$tmp/baseline.txt"
if [ -s "$tmp/baseline.txt" ]; then
  echo "run.sh: without a plant these properties fail (not counted as catches):" \
    "$(awk '{ print $1 }' "$tmp/baseline.txt" | tr '\n' ' ')" >&2
fi
: > "$tmp/detail.txt"

field() {  # field KEY JSONFILE: a top-level number of fuzz-allocator's summary
  python3 -c 'import json,sys; print(json.load(open(sys.argv[2]))[sys.argv[1]])' "$1" "$2"
}

printf '%-36s %-8s %-22s %-60s %s\n' plant effect fuzz-allocator properties "sim replay"
caught_fa=0 caught_props=0 caught_sim=0 caught_any=0 n=0
for plant in "${plants[@]}"; do
  row=$(awk -v p="$plant" '$1 == p' "$table")
  [ -n "$row" ] || { echo "run.sh: no plant $plant in $table" >&2; exit 2; }
  level=$(echo "$row" | awk '{ print $2 }' | tr ',' ' ')
  effect=$(echo "$row" | awk '{ print $3 }')
  n=$((n + 1))
  any=0

  # fuzz-allocator: the planted build checks the planted build's allocator.
  # shellcheck disable=SC2086
  ALLOCSIM_PLANT=$plant "$bin" fuzz-allocator --runs "$runs" --seed 1 --no-shrink --json --quiet --max-failures 1 \
    --out "$tmp/fa" -- "$bin" alloc '{in}' $level -o '{out}' > "$tmp/fa.json" 2>/dev/null || true
  if [ -s "$tmp/fa.json" ] && [ "$(field failed "$tmp/fa.json")" -gt 0 ]; then
    fa="caught in $(field cases "$tmp/fa.json") cases"
    caught_fa=$((caught_fa + 1)) any=1
  else
    fa="missed ($(field cases "$tmp/fa.json" 2>/dev/null || echo 0) cases)"
  fi

  # The property suites.
  ALLOCSIM_PLANT=$plant RC_PARAMS=$rc_params props_failures "$tmp/failed.txt"
  awk 'FILENAME == ARGV[1] { base[$1] = 1; next } !($1 in base)' "$tmp/baseline.txt" "$tmp/failed.txt" |
    sort -k2,2n -k1,1 > "$tmp/new.txt"
  if [ -s "$tmp/new.txt" ]; then
    read -r first first_cases < "$tmp/new.txt"
    pr="caught: $first in $first_cases"
    caught_props=$((caught_props + 1)) any=1
    echo "$plant: $(awk '{ printf "%s%s (%s)", (NR > 1 ? ", " : ""), $1, $2 }' "$tmp/new.txt")" >> "$tmp/detail.txt"
  else
    pr=missed
  fi

  # The simulator on the corpus kernels: its own check, and its cycles against the unplanted run.
  sim=missed
  for k in "${kernels[@]}"; do
    # shellcheck disable=SC2086
    ref=$("$bin" run "$k" $level --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["cycles"])' 2>/dev/null || echo none)
    [ "$ref" = none ] && continue  # refused or not simulated without the plant: nothing to compare
    set +e
    # shellcheck disable=SC2086
    ALLOCSIM_PLANT=$plant "$bin" run "$k" $level --json > "$tmp/run.json" 2>/dev/null
    rc=$?
    set -e
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["cycles"])' "$tmp/run.json" 2>/dev/null || echo none)
    if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
      sim="caught: $(basename "$k") fails its check"
      break
    fi
    if [ "$got" != none ] && [ "$got" != "$ref" ]; then
      sim="caught: $(basename "$k") cycles $got, not $ref"
      break
    fi
  done
  if [ "$sim" != missed ]; then caught_sim=$((caught_sim + 1)) any=1; fi
  caught_any=$((caught_any + any))
  printf '%-36s %-8s %-22s %-60s %s\n' "$plant" "$effect" "$fa" "$pr" "$sim"
done
echo
echo "properties each plant fails (cases to the failure):"
cat "$tmp/detail.txt"
echo
echo "caught by fuzz-allocator: $caught_fa of $n; by the properties: $caught_props of $n; by the sim replay: $caught_sim of $n; by any: $caught_any of $n"
