#!/usr/bin/env bash
# Builds and runs the allocation-quality benchmark (bench/alloc_quality.cpp) and writes its table to
# docs/quality.md. Usage: bash bench/quality_report.sh [BUILD_DIR]   (default build-bench; needs libbenchmark-dev)
# The figures other than time are deterministic; times are quoted as ratios to the greedy placer's.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-bench}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_BENCH=ON -DALLOCSIM_TESTS=OFF >/dev/null
ninja -C "$BUILD" alloc_quality
"$BUILD/bench/alloc_quality" --benchmark_min_time="${MIN_TIME:-0.2}" --markdown docs/quality.md
# The minimalloc table (bench/minimalloc_report.sh; MINIMALLOC=path/to/minimalloc adds its times, measured in the
# same run), appended to the report.
ninja -C "$BUILD" allocsim
{ echo; echo "## minimalloc's challenging benchmarks"; echo; bash bench/minimalloc_report.sh "$BUILD"; } >> docs/quality.md
# The DMA optimization table (bench/dma_report.sh: DMA traffic and simulated cycles at --gca-dma-optlevel 0/1/2).
{ echo; echo "## DMA optimization"; echo; bash bench/dma_report.sh "$BUILD"; } >> docs/quality.md
echo "wrote docs/quality.md"
