#!/usr/bin/env bash
# Runs the campaigns issue 12 still asks for, unattended: while a fuzz target's total in the ledger
# (fuzz/campaigns.tsv, summed as fuzz/campaign_totals.sh sums it) is below GOAL executions, one campaign of CHUNK
# seconds over JOBS jobs on the target furthest from it (fuzz/run_campaign.sh, which merges the corpus and appends
# the campaign's row to the ledger), inputs capped at FUZZ_MAX_LEN bytes: 64 by default, 2.3x the executions per CPU
# second of 512-byte inputs for 98.7 % of the alloc/ lines they reach (docs/fuzzing.md, item 64). Stops at the first
# finding (exit 1: run_campaign.sh names the files) or when every target has its GOAL (exit 0).
# The rest of the 10 million is hours of a 2-core machine (`bash fuzz/campaign_totals.sh` shows where each target
# stands): start it niced, in the background; a campaign stopped by hand still leaves its row and corpus.
# Usage: bash fuzz/campaign_rest.sh [CHUNK_SECONDS] [JOBS]    e.g. nohup nice -n 10 bash fuzz/campaign_rest.sh 3600 2 &
#        bash fuzz/campaign_rest.sh --next [LEDGER]          prints "TARGET REMAINING" for the next campaign, nothing
#                                                              when every target has its GOAL
# Environment: GOAL (executions per target, default 10000000), TARGETS (default: every fuzz/*_fuzz.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
goal=${GOAL:-10000000}
[[ "$goal" =~ ^[0-9]+$ ]] || { echo "campaign_rest: GOAL \"$goal\" is not a number of executions" >&2; exit 2; }
if [ -z "${TARGETS:-}" ]; then
  TARGETS=$(for f in fuzz/*_fuzz.cpp; do basename "$f" _fuzz.cpp; done)
fi

# The target with the fewest executions in LEDGER among TARGETS (a target without a row has none), if below goal.
next_target() {
  bash fuzz/campaign_totals.sh "$1" >/dev/null || exit 2  # a malformed ledger: its message, exit 2
  awk -F'\t' -v goal="$goal" -v targets="$TARGETS" '
    BEGIN { n = split(targets, list, /[ \n]+/) }
    NR > 1 { execs[$2] += $4 }
    END {
      best = ""
      for (i = 1; i <= n; ++i) {
        t = list[i]
        if (t == "") continue
        if (execs[t] + 0 < goal && (best == "" || execs[t] + 0 < execs[best] + 0)) best = t
      }
      if (best != "") printf "%s %d\n", best, goal - execs[best]
    }' "$1"
}

if [ "${1:-}" = "--next" ]; then
  next_target "${2:-fuzz/campaigns.tsv}"
  exit 0
fi
chunk=${1:-3600}
jobs=${2:-1}
[[ "$chunk" =~ ^[1-9][0-9]*$ ]] || { echo "campaign_rest: CHUNK_SECONDS \"$chunk\" is not a positive number" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "campaign_rest: JOBS \"$jobs\" is not a positive number" >&2; exit 2; }
export FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-64}
while true; do
  next=$(next_target fuzz/campaigns.tsv)
  if [ -z "$next" ]; then
    echo "campaign_rest: every target has $goal executions or more"
    bash fuzz/campaign_totals.sh
    exit 0
  fi
  read -r target remaining <<<"$next"
  echo "campaign_rest: $target, $remaining executions to go: $chunk s over $jobs job(s), inputs of at most $FUZZ_MAX_LEN bytes"
  bash fuzz/run_campaign.sh "$target" "$chunk" "$jobs" || { echo "campaign_rest: stopped at a finding in $target"; exit 1; }
done
