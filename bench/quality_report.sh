#!/usr/bin/env bash
# Writes docs/quality.md, every table from this one run: the allocation-quality benchmark (bench/alloc_quality.cpp:
# corpus kernels and generated programs per level, linear scan against coloring, liveness precision, REG spills
# against the register lower bounds, generated programs on the real tiny register file), minimalloc's benchmarks
# (bench/minimalloc_report.sh: exact, O1-O3 and O8), the colorers' growth under pressure (bench/colorer_scaling.cpp),
# the DMA optimization table (bench/dma_report.sh) and the NKI sample kernels (bench/nki_samples_report.sh).
# Usage: bash bench/quality_report.sh [BUILD_DIR]   (default build-bench; needs libbenchmark-dev)
#        TIME_LIMIT=S   the exact search's limit per minimalloc benchmark (default 20 s)
#        MINIMALLOC=path/to/minimalloc adds minimalloc's own times, measured in the same run
# The figures other than time are deterministic; times are quoted as ratios to the greedy placer's, or as wall
# seconds comparable within a row.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-bench}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_BENCH=ON -DALLOCSIM_TESTS=OFF >/dev/null
ninja -C "$BUILD" alloc_quality colorer_scaling allocsim
"$BUILD/bench/alloc_quality" --benchmark_min_time="${MIN_TIME:-0.2}" --markdown docs/quality.md
TL=${TIME_LIMIT:-20}
{
  echo
  echo "## minimalloc's challenging benchmarks"
  echo
  cat <<TEXT
google/minimalloc's 11 challenging problems (\`bench/minimalloc/\`, Apache-2.0, attributed there), each imported with
\`allocsim import minimalloc\` as a one-partition program whose liveness is exactly the buffer intervals, allocated at
the benchmark's capacity of 1,048,576 bytes. Lower bound = max live bytes. Every height quoted was checked by
minimalloc's own rules (\`allocsim export minimalloc\`, verify/minimalloc_rules.h). Columns
(\`bench/minimalloc_report.sh\`): minimalloc's wall seconds when \`MINIMALLOC=path\` is given (\`-\` otherwise);
exact = \`--allocator exact --time-limit $TL\`: fits?, height / lower bound, wall seconds; solve = the same search on the CSV's own
times (\`allocsim solve minimalloc\`): fits?, wall seconds (the imported program's lifetimes on the exact allocator's
canonical timeline are the CSV's widths scaled, so both search in the same order, node for node: the difference
is the program's parsing and liveness); then the coloring levels
O1-O3 and O8 (linear scan with the best-fit manager, \`alloc/lsa/\`): spill bytes at the capacity (0 = fits), wall
seconds, height / lower bound with unlimited room (sbuf-bytes 16 MiB; the colorers with \`--unlimited-room\`, each
heuristic in its plain color order, as 16 MiB alone is not unlimited for B), and spill bytes at a capacity of
exactly that height (0: the level stops spilling at or below the height it reaches unconstrained). Wall seconds on a shared
machine: compare them within a row only.

TEXT
  TIME_LIMIT=$TL LEVELS="1 2 3 8" bash bench/minimalloc_report.sh "$BUILD"
  echo
  echo "### Growth under pressure"
  echo
  cat <<'TEXT'
`bench/colorer_scaling`: N buffers with about 40 live at a time, capacity 3/4 of the max live bytes, the whole -O2
pipeline; process CPU seconds of one run per size, the growth exponent of the time between successive sizes, and
the least-squares exponent over 1,000..100,000.

TEXT
  echo '```'
  "$BUILD/bench/colorer_scaling" --benchmark_counters_tabular=true \
    2>/dev/null | grep -E '^BM_|^O[0-9] growth|^Benchmark'
  echo '```'
} >> docs/quality.md
# The DMA optimization table (bench/dma_report.sh: DMA traffic and simulated cycles at --gca-dma-optlevel 0/1/2).
{ echo; echo "## DMA optimization"; echo; bash bench/dma_report.sh "$BUILD"; } >> docs/quality.md
# The NKI sample kernels (bench/nki_samples_report.sh: corpus/nki_samples/ per coloring level).
bash bench/nki_samples_report.sh "$BUILD" >/dev/null
# The liveness precision against the data (bench/liveness_report.sh: corpus kernels and generated programs).
bash bench/liveness_report.sh "$BUILD" >/dev/null
echo "wrote docs/quality.md"
