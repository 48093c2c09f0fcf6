#!/usr/bin/env bash
# Writes the "Liveness precision against the data" section of docs/quality.md (bench/liveness_report.cpp: static,
# positional and dynamic max-live per corpus kernel with the -O2 peak, and the static / dynamic ratios of generated
# programs that reuse tensors, bucketed and split by cause), leaving every other section as it is. Deterministic
# figures; under a minute.
# Usage: bash bench/liveness_report.sh [BUILD_DIR [SEEDS [FIRST [SIZE]]]]
#   (default build-bench, 100 programs per mix from seed 0, generator size 30; the programs above 1.00 on stderr)
set -euo pipefail
cd "$(dirname "$0")/.."
bash bench/report_section.sh "${1:-build-bench}" liveness_report "Liveness precision against the data" "${2:-100}" "${3:-0}" "${4:-30}"
