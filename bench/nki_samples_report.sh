#!/usr/bin/env bash
# Writes the "NKI sample kernels" section of docs/quality.md (bench/nki_samples_report.cpp: per corpus/nki_samples/
# file and coloring level, SBUF peak / max-live bound, PSUM banks, spills, simulated cycles, liveness precision),
# replacing the section in place (or appending it) and leaving every other section as it is: the whole report
# (bench/quality_report.sh, which also calls this script) takes much longer. Deterministic figures; ~5 s.
# Usage: bash bench/nki_samples_report.sh [BUILD_DIR]   (default build-bench; needs libbenchmark-dev to configure)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-bench}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_BENCH=ON -DALLOCSIM_TESTS=OFF >/dev/null
ninja -C "$BUILD" nki_samples_report >/dev/null
section=$(mktemp)
"$BUILD/bench/nki_samples_report" > "$section"
# Keep everything before the section and everything from the next "## " heading after it.
awk -v sec="$section" '
  /^## NKI sample kernels$/ { skipping = 1; while ((getline line < sec) > 0) print line; done = 1; next }
  skipping && /^## / { skipping = 0; print "" }
  !skipping { print }
  END { if (!done) { print ""; while ((getline line < sec) > 0) print line } }
' docs/quality.md > docs/quality.md.new
mv docs/quality.md.new docs/quality.md
rm -f "$section"
echo "wrote the NKI sample kernels section of docs/quality.md"
