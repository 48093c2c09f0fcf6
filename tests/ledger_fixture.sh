# Sourced by the tests of the campaign ledger's scripts (campaign_totals_test.sh, campaign_rest_test.sh): strict
# mode, a scratch directory $work removed at exit, fail(), $tab, and ledger_header, fuzz/campaigns.tsv's first line.
set -uo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tab=$'\t'
ledger_header() {
  echo "date${tab}target${tab}commit${tab}executions${tab}seconds${tab}jobs${tab}edges_start${tab}edges_end${tab}findings${tab}note"
}
