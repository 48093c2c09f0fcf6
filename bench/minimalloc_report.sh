#!/usr/bin/env bash
# The minimalloc table of docs/quality.md: google/minimalloc's 11 challenging benchmarks (bench/minimalloc/), each
# imported as a program (allocsim import minimalloc) and allocated at its capacity, 1,048,576 bytes:
#   lower bound  max live bytes: no placement fits in less
#   exact        --allocator exact --time-limit $TIME_LIMIT (default 60): fits?, height / lower bound, wall seconds
#   solve        the same search on the CSV's own times (allocsim solve minimalloc, alloc/exact/minimalloc_problem.h):
#                fits?, wall seconds. The imported program's widths on the exact allocator's canonical timeline are
#                the CSV's scaled (alloc/exact/canonical_timeline.h): both search in the same order
#   O1 O2 O3     the coloring levels at the capacity: spill bytes (0 = fits) and wall seconds; with unlimited room
#                (sbuf-bytes 16 MiB and --unlimited-room: each heuristic in its plain color order, as simplify
#                orders it when every node passes the degree test; 16 MiB alone is not unlimited for B):
#                height / lower bound; and the spill bytes at a capacity of exactly that height
#                (0: the level stops spilling at or below the height it reaches unconstrained)
#   O8           the linear-scan allocator (alloc/lsa/), the same three figures (sbuf-bytes 16 MiB: it has no
#                capacity-dependent order)
#   LEVELS="1 2 3 8" chooses the allocator columns; EXACT=0 skips the exact search (its column reads "skipped")
#   minimalloc   wall seconds of MINIMALLOC=path/to/minimalloc (built from google/minimalloc) run in the same
#                script, before exact on the same benchmark, when given
# Every placement is checked by minimalloc's own rules (allocsim export minimalloc) before its height is quoted.
# Usage: bash bench/minimalloc_report.sh [BUILD_DIR]    (default build; prints the markdown table)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BIN="$BUILD/allocsim"
TL=${TIME_LIMIT:-60}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
height() {  # allocated program, csv, capacity -> height, or "invalid"
  local out
  out=$("$BIN" export minimalloc "$1" "$2" --capacity "$3" -o /dev/null 2>&1 | tail -1)
  case "$out" in *"rules: valid"*) echo "$out" | sed 's/.*height \([0-9]*\).*/\1/' ;; *) echo invalid ;; esac
}
spill_bytes() {  # inserted DRAM spill slots: [p, e] dtype !spill
  awk '$1 == "dram" && /!spill/ { gsub(/[\[\],]/, " "); n = $3 * $4 * ($5 ~ /bf16|u16/ ? 2 : 4); s += n } END { print s + 0 }' "$1"
}
LEVELS=${LEVELS:-1 2 3 8}
head="| bench | buffers | lower bound | minimalloc s | exact: fits, height/LB, s | solve (CSV times): fits, s"
rule="|---|---|---|---|---|---"
for O in $LEVELS; do head="$head | O$O: spill bytes, s, height/LB unlimited, spill bytes at that height"; rule="$rule|---"; done
echo "$head |"
echo "$rule|"
for f in bench/minimalloc/[A-K].1048576.csv; do
  b=$(basename "$f" .1048576.csv)
  cap=1048576
  n=$(($(wc -l < "$f") - 1))
  "$BIN" import minimalloc "$f" -o "$TMP/p.txt"
  "$BIN" import minimalloc "$f" --capacity 16777216 -o "$TMP/big.txt"
  lb=$(awk -F, 'NR > 1 { e[NR*2] = $2 " 1 " $4; e[NR*2+1] = $3 " 0 " $4 } END { for (k in e) print e[k] }' "$f" |
       sort -n -k1,1 -k2,2 | awk '{ live += ($2 == 1 ? $3 : -$3); if (live > m) m = live } END { print m }')
  mm="-"
  if [ -n "${MINIMALLOC:-}" ]; then
    t0=$(now); timeout "$TL" "$MINIMALLOC" --capacity=$cap --input="$f" --output="$TMP/mm.csv" >/dev/null 2>&1 && ok=1 || ok=0
    mm=$(secs "$t0" "$(now)"); [ $ok = 1 ] || mm=">$TL (no answer)"
  fi
  t0=$(now)
  if [ "${EXACT:-1}" = 0 ]; then
    ex="skipped"
  elif "$BIN" alloc "$TMP/p.txt" --allocator exact --time-limit "$TL" -o "$TMP/x.txt" 2>"$TMP/x.err"; then
    h=$(height "$TMP/x.txt" "$f" $cap); ex="yes, $(ratio "$h" "$lb"), $(secs "$t0" "$(now)")"
  else
    ex="no ($(grep -o 'proved\|time limit' "$TMP/x.err" | head -1)), -, $(secs "$t0" "$(now)")"
  fi
  t0=$(now)
  if [ "${EXACT:-1}" = 0 ]; then
    sv="skipped"
  elif "$BIN" solve minimalloc "$f" --time-limit "$TL" --quiet -o "$TMP/s.csv" 2>"$TMP/s.err"; then
    sv="yes, $(secs "$t0" "$(now)")"
  else
    sv="no ($(grep -o 'proved\|time limit' "$TMP/s.err" | head -1)), $(secs "$t0" "$(now)")"
  fi
  cols=""
  for O in $LEVELS; do
    rm -f "$TMP/c.txt" "$TMP/cb.txt"
    t0=$(now); "$BIN" alloc "$TMP/p.txt" -O$O -o "$TMP/c.txt" 2>/dev/null || true; t=$(secs "$t0" "$(now)")
    [ -f "$TMP/c.txt" ] && sb=$(spill_bytes "$TMP/c.txt") || sb="refused"
    unlimited=--unlimited-room; [ "$O" = 8 ] && unlimited=
    "$BIN" alloc "$TMP/big.txt" -O$O $unlimited -o "$TMP/cb.txt" 2>/dev/null || true
    [ -f "$TMP/cb.txt" ] && hb=$(height "$TMP/cb.txt" "$f" 16777216) || hb=invalid
    [ "$hb" = invalid ] && hu=invalid || hu=$(ratio "$hb" "$lb")
    sh="-"
    if [ "$hb" != invalid ]; then
      rm -f "$TMP/ch.txt"
      "$BIN" import minimalloc "$f" --capacity "$hb" -o "$TMP/h.txt"
      "$BIN" alloc "$TMP/h.txt" -O$O -o "$TMP/ch.txt" 2>/dev/null || true
      [ -f "$TMP/ch.txt" ] && sh=$(spill_bytes "$TMP/ch.txt") || sh="refused"
    fi
    cols="$cols | $sb, $t, $hu, $sh"
  done
  echo "| $b | $n | $lb | $mm | $ex | $sv$cols |"
done
