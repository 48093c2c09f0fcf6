#!/bin/bash
# Each quality property of props/quality_props.cpp against the planted regressions it exists to catch: in the planted
# tree (as bench/planted/run.sh builds it), the property must pass without a plant and fail with each plant named
# below (the same seed and number of cases). Prints, per pair, how many generated cases the failure took; exits 1
# when a property misses its plant or fails without one.
#   bash bench/planted/quality_props.sh [--cases N]    (default 300 successful cases per property)
#   ALLOCSIM_PLANTED_BUILD=DIR  the planted tree (default build-planted)
set -euo pipefail
cd "$(dirname "$0")/../.."
cases=300
case ${1:-} in
  --cases) cases=${2:?--cases N} ;;
  "") ;;
  *) sed -n 2,7p "$0"; exit 2 ;;
esac
# property                                  plants that regress what it checks
pairs=(
  "BestOfNKeepsTheBestCandidateItTried        bestofn_keeps_worst sbuf_score_prefers_larger_footprint"
  "PsumFirstRoundKeepsTheLeastSpillCostItTried psum_score_ignores_spill"
  "PsumSimplifyCountsTheBanksOfEachNeighbour  psum_neighbour_banks_as_one psum_banks_round_down"
  "NoPsumSpillWhenTheLiveBanksFit             psum_first_fit_resets_late"
  "NoPsumSpillWhereNoNeighboursCanCoverEveryRun psum_first_fit_resets_late"
  "NoLevelSpillsWhereNoReuseFits              psum_first_fit_resets_late psum_banks_round_down no_reuse_next_tensor_shares"
  "O3ScoresNoWorseThanO2                      o3_without_packing bestofn_keeps_worst"
  "ColorerHeightWithinAFactorOfTheExactSearch exact_touching_items_apart"
)
build=${ALLOCSIM_PLANTED_BUILD:-build-planted}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_PLANTED=ON -DALLOCSIM_TESTS=ON "${launcher[@]}" \
  >/dev/null
nice ninja -C "$build" allocsim_props >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ALLOCSIM_REGRESSION_DIR=$tmp/regressions  # a planted failure is not a regression of the source
unset ALLOCSIM_PLANT
export RC_PARAMS="seed=20261206 max_success=$cases noshrink=1"

# falsified PROPERTY: the number of cases that falsified it, or nothing when it passed.
falsified() {
  "$build/props/allocsim_props" --gtest_filter="Quality.$1" > "$tmp/out.txt" 2>&1 || true
  awk '/^Falsifiable after/ { print $3 }' "$tmp/out.txt"
}

bad=0
for row in "${pairs[@]}"; do
  read -r prop plants <<< "$row"
  if [ -n "$(falsified "$prop")" ]; then
    echo "Quality.$prop fails without a plant"
    bad=$((bad + 1))
    continue
  fi
  for plant in $plants; do
    n=$(ALLOCSIM_PLANT=$plant falsified "$prop")
    if [ -n "$n" ]; then
      printf '%-52s fails on %-36s after %s cases\n' "Quality.$prop" "$plant" "$n"
    else
      printf '%-52s PASSES on %s\n' "Quality.$prop" "$plant"
      bad=$((bad + 1))
    fi
  done
done
[ $bad = 0 ] || { echo "quality_props: $bad check(s) went wrong"; exit 1; }
