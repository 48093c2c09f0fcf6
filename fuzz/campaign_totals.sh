#!/usr/bin/env bash
# Sums fuzz/campaigns.tsv, the ledger fuzz/run_campaign.sh appends a row to after every campaign (rows for earlier
# campaigns were copied from docs/fuzzing.md), per target: campaigns, executions and their share of the 10 million
# issue 12 asks of each target, the edges the last campaign ended at, and findings ("-": not recorded).
# Usage: bash fuzz/campaign_totals.sh [LEDGER]
set -euo pipefail
cd "$(dirname "$0")/.."
ledger=${1:-fuzz/campaigns.tsv}
[ -f "$ledger" ] || { echo "campaign_totals: no ledger $ledger" >&2; exit 2; }
awk -F'\t' '
  NR == 1 { next }
  NF < 9 { printf "campaign_totals: line %d of %s has %d fields, expected 10\n", NR, FILENAME, NF > "/dev/stderr"; bad = 1; next }
  $4 !~ /^[0-9]+$/ { printf "campaign_totals: line %d: executions \"%s\" is not a number\n", NR, $4 > "/dev/stderr"; bad = 1; next }
  {
    if (!($2 in runs)) order[++n] = $2
    runs[$2]++; execs[$2] += $4
    if ($8 != "-") edges[$2] = $8
    if ($9 == "-") unknown[$2] = 1; else found[$2] += $9
  }
  END {
    if (bad) exit 2
    printf "%-16s %9s %12s %8s %7s %s\n", "target", "campaigns", "executions", "of 10 M", "edges", "findings"
    for (i = 1; i <= n; ++i) {
      t = order[i]
      printf "%-16s %9d %12d %7.1f%% %7s %s\n", t, runs[t], execs[t], 100 * execs[t] / 1e7,
             (t in edges) ? edges[t] : "-", (found[t] + 0) (unknown[t] ? " (+ unrecorded)" : "")
    }
  }' "$ledger"
