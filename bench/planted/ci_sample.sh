#!/bin/bash
# CI's sample of the planted bugs (bench/planted/run.sh runs them all): in a tree configured with
# -DALLOCSIM_PLANTED=ON (CI's sanitizer fuzz build), each fuzz target below replays its committed corpus once without
# a plant (it must pass: that is the fuzz_replay ctest) and once with the plant switched on, which must make it fail.
#   bash bench/planted/ci_sample.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
bdir=${1:?usage: ci_sample.sh BUILD_DIR}
# plant  fuzz target  (the target whose corpus replay should catch it)
sample=(
  "reg_back_edge_dropped reg_colorer"
  "sbuf_gap_unaligned coloring_driver"
  "psum_select_first_bank_only psum_colorer"
  "sim_engine_ignores_own_clock timing_oracle"
)
missed=0
for row in "${sample[@]}"; do
  read -r plant target <<< "$row"
  bin=$bdir/fuzz/${target}_fuzz
  [ -x "$bin" ] || { echo "ci_sample: no $bin" >&2; exit 2; }
  mapfile -t inputs < <(find "fuzz/corpus/$target" corpus/kernels corpus/regressions -type f | sort)
  if (ALLOCSIM_PLANT=$plant "$bin" "${inputs[@]}") > "$bdir/planted_$plant.log" 2>&1; then
    echo "MISSED: $plant passes every input of $target's corpus"
    missed=$((missed + 1))
  else
    echo "caught: $plant by $target's corpus replay: $(grep -m1 "^$target" "$bdir/planted_$plant.log" || echo failed)"
  fi
done
[ $missed = 0 ] || { echo "ci_sample: $missed planted bug(s) went through"; exit 1; }
