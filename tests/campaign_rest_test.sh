#!/usr/bin/env bash
# fuzz/campaign_rest.sh --next: picks the target furthest from the goal (the sums derived here by hand), skips targets
# at the goal, names a target without a row, says nothing when all are done, and refuses bad input with exit code 2.
# Usage: campaign_rest_test.sh SOURCE_DIR
src=${1:?source directory}
. "$(dirname "$0")/ledger_fixture.sh"
{
  ledger_header
  echo "2026-12-01${tab}a${tab}abc${tab}600${tab}10${tab}1${tab}5${tab}7${tab}0${tab}x"
  echo "2026-12-01${tab}b${tab}abc${tab}500${tab}10${tab}1${tab}5${tab}7${tab}0${tab}x"
  echo "2026-12-02${tab}a${tab}abc${tab}300${tab}10${tab}1${tab}5${tab}7${tab}0${tab}x"
  echo "2026-12-02${tab}c${tab}abc${tab}2000${tab}10${tab}1${tab}5${tab}7${tab}0${tab}x"
} >"$work/ledger.tsv"
next() { GOAL=$1 TARGETS=$2 bash "$src/fuzz/campaign_rest.sh" --next "$work/ledger.tsv"; }

# a: 600 + 300 = 900, b: 500, c: 2,000. Goal 1,000: b is furthest (500 to go), then a (100); c is done.
[ "$(next 1000 "a b c")" = "b 500" ] || fail "goal 1000: '$(next 1000 "a b c")'"
[ "$(next 1000 "a c")" = "a 100" ] || fail "goal 1000 without b: '$(next 1000 "a c")'"
[ -z "$(next 900 "a c")" ] || fail "goal 900, a and c done: '$(next 900 "a c")'"
# A target without a row has run nothing: it goes first.
[ "$(next 1000 "a b d")" = "d 1000" ] || fail "target without a row: '$(next 1000 "a b d")'"

err=$(GOAL=lots bash "$src/fuzz/campaign_rest.sh" --next "$work/ledger.tsv" 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$err" = 'campaign_rest: GOAL "lots" is not a number of executions' ] || fail "bad goal: $err"
err=$(bash "$src/fuzz/campaign_rest.sh" --next "$work/missing.tsv" 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$err" = "campaign_totals: no ledger $work/missing.tsv" ] || fail "missing ledger: $err"
err=$(bash "$src/fuzz/campaign_rest.sh" 0 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$err" = 'campaign_rest: CHUNK_SECONDS "0" is not a positive number' ] || fail "bad chunk: $err"

# The committed ledger: the next target is a fuzz target, with fewer than 10 million executions behind it.
out=$(bash "$src/fuzz/campaign_rest.sh" --next) || fail "exit $? on fuzz/campaigns.tsv"
if [ -n "$out" ]; then
  t=${out%% *}
  [ -f "$src/fuzz/${t}_fuzz.cpp" ] || fail "next target '$t' is not a fuzz target"
fi
echo "campaign_rest: ok (furthest target first, done targets skipped, a target without a row, three refusals)"
