#!/usr/bin/env bash
# fuzz/campaign_totals.sh: sums a ledger per target (the sums derived here by hand), reads the committed ledger, and
# refuses a malformed one with a located message and exit code 2. Usage: campaign_totals_test.sh SOURCE_DIR
src=${1:?source directory}
. "$(dirname "$0")/ledger_fixture.sh"

{
  ledger_header
  echo "2026-12-01${tab}a${tab}abc${tab}2500000${tab}10${tab}1${tab}5${tab}7${tab}0${tab}x"
  echo "2026-12-02${tab}b${tab}abc${tab}100${tab}10${tab}1${tab}1${tab}2${tab}-${tab}x"
  echo "2026-12-03${tab}a${tab}def${tab}500000${tab}10${tab}2${tab}7${tab}9${tab}1${tab}x"
} >"$work/ledger.tsv"
out=$(bash "$src/fuzz/campaign_totals.sh" "$work/ledger.tsv") || fail "exit $? on a good ledger"
# a: two campaigns, 2,500,000 + 500,000 = 3,000,000 = 30.0 % of 10 M, last edges 9, one finding
echo "$out" | grep -Eq '^a +2 +3000000 +30\.0% +9 1$' || fail "target a: $out"
echo "$out" | grep -Eq '^b +1 +100 +0\.0% +2 0 \(\+ unrecorded\)$' || fail "target b: $out"

# The committed ledger: every target of fuzz/ appears.
out=$(bash "$src/fuzz/campaign_totals.sh") || fail "exit $? on fuzz/campaigns.tsv"
for f in "$src"/fuzz/*_fuzz.cpp; do
  t=$(basename "$f" _fuzz.cpp)
  echo "$out" | grep -q "^$t " || fail "fuzz/campaigns.tsv has no row for $t"
done

echo "2026-12-04${tab}a${tab}abc${tab}12x${tab}10${tab}1${tab}5${tab}7${tab}0${tab}x" >>"$work/ledger.tsv"
err=$(bash "$src/fuzz/campaign_totals.sh" "$work/ledger.tsv" 2>&1 >/dev/null)
status=$?
[ "$status" -eq 2 ] || fail "a malformed ledger exits $status, expected 2"
[ "$err" = 'campaign_totals: line 5: executions "12x" is not a number' ] || fail "message: $err"
err=$(bash "$src/fuzz/campaign_totals.sh" "$work/missing.tsv" 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$err" = "campaign_totals: no ledger $work/missing.tsv" ] || fail "missing ledger: $err"
echo "campaign_totals: ok (sums, the committed ledger, two refusals)"
