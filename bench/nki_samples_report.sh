#!/usr/bin/env bash
# Writes the "NKI sample kernels" section of docs/quality.md (bench/nki_samples_report.cpp: per corpus/nki_samples/
# file and coloring level, SBUF peak / max-live bound, PSUM banks, spills, simulated cycles, liveness precision),
# replacing the section in place (or appending it) and leaving every other section as it is: the whole report
# (bench/quality_report.sh, which also calls this script) takes much longer. Deterministic figures; ~5 s.
# Usage: bash bench/nki_samples_report.sh [BUILD_DIR]   (default build-bench; needs libbenchmark-dev to configure)
set -euo pipefail
cd "$(dirname "$0")/.."
bash bench/report_section.sh "${1:-build-bench}" nki_samples_report "NKI sample kernels"
