#!/usr/bin/env bash
# Comments and docs say what and why, not when: no tracked file may cite an issue or item number, the design notes
# or the specification files the allocators were modelled on (a reader cannot open any of them), or narrate
# numbered rounds of measurement, dated observations or what "this commit" measured. Such a reference is replaced
# by the rule itself, in the project's words (where behaviour reproduces the production compiler's allocator on
# purpose, "as in the production allocator"). An issue cited without its number counts too ("this issue", "the
# issue asks/says/lists ...", "the issue's", "by the issue"); "issue" as a word of the hardware (a DMA's issue, the
# DMA issuer, engines that issue in order) stays allowed.
# fuzz/corpus/ is left out: its files are fuzzer inputs, bytes libFuzzer mutated, not text anyone wrote.
# Usage: no_history_references_test.sh SOURCE_DIR
set -u
src=${1:?source directory}
cd "$src" || exit 2
pattern='DESIGN\.md|[Ii]ssues? [0-9]|\b[Ii]tems? [0-9]|[Ss]eed 00[0-9]|\b(fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-[a-z]+) round\b|load average|at load [0-9]|\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b|\bthis commit\b'
pattern+="|\\b[Tt]his issue\\b|\\b[Tt]he issue('s\\b| (asks|says|wants|requires|demands|lists|names|describes|calls for|expects|mentions|specifies|text|title|statement)\\b)|\\b(by|per|in|as) the issue\\b"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  hits=$(git grep -nIE "$pattern" -- . ':!fuzz/corpus' ':!tests/no_history_references_test.sh')
else
  hits=$(grep -rnIE "$pattern" --exclude-dir=.git --exclude-dir=corpus --exclude=no_history_references_test.sh . |
         grep -v '^\./build')
fi
if [ -n "$hits" ]; then
  echo "FAIL: references to issues, items, seed files, design notes or measurement rounds (say the rule instead):"
  echo "$hits" | head -n 50
  echo "($(echo "$hits" | wc -l) lines)"
  exit 1
fi
echo "no_history_references: ok"
