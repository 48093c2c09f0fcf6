#!/usr/bin/env bash
# The long checks CI runs only a bounded part of (README "Property tests and the long runs"):
#   1. no false alarm on 10,000 generated programs placed by placeGreedy and placeNoReuse (all three oracles);
#   2. a RapidCheck campaign over every property with a fresh seed (printed; reproduce with RC_PARAMS=seed=...).
# Usage: bash ci/long_checks.sh [PROGRAMS] [PROPERTY_CASES]      (defaults 10000 and 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-10000}
cases=${2:-10000}

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_WERROR=ON >/dev/null
ninja -C build allocsim_props

echo "== no false alarm: $programs generated programs"
ALLOCSIM_NO_FALSE_ALARM_PROGRAMS=$programs build/props/allocsim_props --gtest_filter='NoFalseAlarm.*'

seed=${RC_SEED:-$(date +%s)}
echo "== RapidCheck campaign: $cases cases per property, seed $seed"
RC_PARAMS="max_success=$cases seed=$seed" build/props/allocsim_props --gtest_filter='-NoFalseAlarm.*'
