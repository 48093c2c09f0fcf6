#!/usr/bin/env bash
# Builds one report program of bench/ and puts what it prints into docs/quality.md as the section under HEADING,
# replacing that section in place (or appending it) and leaving every other section as it is.
# Usage: bash bench/report_section.sh BUILD_DIR PROGRAM HEADING [ARGS...]   (HEADING without the "## ")
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$1 PROGRAM=$2 HEADING=$3
shift 3
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_BENCH=ON -DALLOCSIM_TESTS=OFF >/dev/null
ninja -C "$BUILD" "$PROGRAM" >/dev/null
section=$(mktemp)
"$BUILD/bench/$PROGRAM" "$@" > "$section"
# Keep everything before the section and everything from the next "## " heading after it.
awk -v sec="$section" -v heading="## $HEADING" '
  $0 == heading { skipping = 1; while ((getline line < sec) > 0) print line; done = 1; next }
  skipping && /^## / { skipping = 0; print "" }
  !skipping { print }
  END { if (!done) { print ""; while ((getline line < sec) > 0) print line } }
' docs/quality.md > docs/quality.md.new
mv docs/quality.md.new docs/quality.md
rm -f "$section"
echo "wrote the $HEADING section of docs/quality.md"
