#!/usr/bin/env bash
# The calibration suite: simulates each kernel of bench/calibration/ (the NKI tutorials' kernels at their published
# problem sizes) in timing-only mode with the default timing table, and holds it against the published figure in
# bench/calibration/published.tsv: simulated / published per checkpoint, and each optimization step's speed-up (a
# checkpoint over the one its step_from column names) simulated against published. Prints the table and writes it
# into docs/simulator.md between the "calibration table" markers.
# Two tables: the kernels allocated by the default allocator (the SBUF and PSUM colorers at -O2), as a user runs them,
# and with every buffer a kernel declares in storage of its own (the no-reuse allocator), as the NKI kernels declare
# their buffers: the second measures the timing model alone, the difference what the allocation costs.
# Usage: bash bench/calibration.sh [BUILD_DIR]   (default build; builds the allocsim target)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
ninja -C "$BUILD" allocsim >/dev/null
DIR=bench/calibration
PE_CLOCK=$(awk '$1 == "pe.clock-ghz" { print $2 }' sim/timing/default.txt)
# setting ARCH KEY: the value of KEY in the arch preset's timing table, else in the default one (gen2's).
setting() {
  if [ -f "sim/timing/$1.txt" ] && grep -q "^$2 " "sim/timing/$1.txt"; then
    awk -v key="$2" '$1 == key { print $2 }' "sim/timing/$1.txt"
  else
    awk -v key="$2" '$1 == key { print $2 }' sim/timing/default.txt
  fi
}
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT
# table ALLOCATOR_ARGS...: one simulation per kernel file (its cycles, its DMA queues' busy cycles and the
# reporting clock of its arch preset's timing table) with those arguments, then its checkpoint table and its step
# table.
table() {
  : > "$RESULTS"
  for kernel in $(awk -F'\t' '!/^#/ && $1 != "checkpoint" { print $2 }' "$DIR/published.tsv" | sort -u); do
    json=$("$BUILD/allocsim" run "$DIR/$kernel" "$@" --timing-only --json --quiet)
    cycles=$(printf '%s' "$json" | sed -E 's/.*"stats": \{"cycles": ([0-9]+).*/\1/')
    dma=$(printf '%s' "$json" | grep -o '"busy_cycles": [0-9]*, "peak' | awk '{ s += $2 } END { print s + 0 }')
    arch=$(awk '$1 == "arch" { print $2; exit }' "$DIR/$kernel")
    # Each engine's instruction count and clock (the arch preset's table, else the default one), for the
    # instruction intervals.
    engines=""
    for e in PE ACT DVE POOL; do
      count=$(printf '%s' "$json" | sed -E "s/.*\"$e\": \\{\"instructions\": ([0-9]+).*/\\1/")
      busy=$(printf '%s' "$json" | sed -E "s/.*\"$e\": \\{\"instructions\": [0-9]+, \"busy_cycles\": ([0-9]+).*/\\1/")
      engines="$engines$e=$count:$(setting "$arch" "$(printf '%s' "$e" | tr 'A-Z' 'a-z').clock-ghz"):$busy "
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$kernel" "$cycles" "$dma" "$(setting "$arch" clock-ghz)" "$engines" >> "$RESULTS"
  done
  awk -F'\t' -v pe_clock="$PE_CLOCK" '
  FNR == NR {
    cycles[$1] = $2; dma[$1] = $3; clock[$1] = $4
    ne = split($5, es, " ")  # not n, which counts the rows
    for (i = 1; i <= ne; ++i) {
      split(es[i], f, "[=:]"); count[$1, f[1]] = f[2]; eclock[$1, f[1]] = f[3]; busy[$1, f[1]] = f[4]
    }
    next
  }
  /^#/ || $1 == "checkpoint" { next }
  {
    k = $2; seconds = cycles[k] / (clock[k] * 1e9); relative = 0
    if ($3 == "dma-engine-time") sim = dma[k] / clock[k]  # ns: the transfer spans on the queues
    else if ($3 ~ /-interval$/) {
      # The run time over the number of instructions of the named engine, in ns or in cycles of that engine.
      e = toupper(substr($3, 1, index($3, "-") - 1))
      sim = seconds / count[k, e] * ($5 == "ns" ? 1e9 : eclock[k, e] * 1e9)
    }
    else if ($5 == "relative") { sim = seconds * 1e6; relative = 1 }  # us; compared by its step only
    else if ($3 ~ /-active$/) {
      # The named engine busy, in % of the run time.
      e = toupper(substr($3, 1, index($3, "-") - 1))
      sim = 100 * busy[k, e] / cycles[k]
    }
    else if ($3 ~ /-busy$/) {
      # The named engine busy (the sum of the costs of its instructions), in ms.
      e = toupper(substr($3, 1, index($3, "-") - 1))
      sim = busy[k, e] / (clock[k] * 1e9) * 1e3
    }
    else if ($3 == "pe-tflops") {
      # TensorE while it runs: 2 x 128 x 128 x 512 FLOPs per PE instruction (every one of such a kernel is a
      # [128, 128] x [128, 512] matmul) over its busy time.
      sim = count[k, "PE"] * 2 * 128 * 128 * 512 / (busy[k, "PE"] / (clock[k] * 1e9)) / 1e12
    }
    else if ($5 == "ms") sim = seconds * 1e3
    else if ($5 == "us") sim = seconds * 1e6
    else if ($5 == "ns") sim = seconds * 1e9
    else if ($5 == "%") {
      # PE utilization of a K=8192, M=4096, N=8192 matmul: its FLOPs over the 128x128 array at the PE clock.
      sim = 100 * (2 * 4096 * 8192 * 8192) / (seconds * 2 * 128 * 128 * pe_clock * 1e9)
    }
    ratio = sim / $4
    flag = (ratio > 1.3 || ratio < 1 / 1.3) ? "  outside 1.3x" : ""
    if (relative)
      row[++n] = sprintf("| %s | %s | %.2f us | %g (relative) | - (its step below) | %s line %s (%s), %s |", $1, $3, sim, $4, $7, $9, $8, $6)
    else
      row[++n] = sprintf("| %s | %s | %.2f | %.2f %s | %.2f%s | %s line %s (%s), %s |", $1, $3, sim, $4, $5, ratio, flag, $7, $9, $8, $6)
    name[n] = $1; simv[n] = sim; pub[n] = $4; unit[n] = $5; from[n] = $10; index_of[$1] = n
  }
  END {
    print "| checkpoint | figure | simulated | published | simulated / published | source, instance |"
    print "|---|---|---|---|---|---|"
    for (i = 1; i <= n; ++i) print row[i]
    print ""
    print "| step (latency speed-up of a version over the one it optimizes) | simulated | published | ratio |"
    print "|---|---|---|---|"
    for (i = 1; i <= n; ++i) {
      if (from[i] == "-" || !(from[i] in index_of)) continue
      j = index_of[from[i]]
      # Both latencies in the same unit: published ms or us, simulated in the published unit.
      scale = (unit[j] == unit[i]) ? 1 : (unit[j] == "ms" ? 1000 : 0.001)
      s = simv[j] * scale / simv[i]; p = pub[j] * scale / pub[i]; r = s / p
      flag = (r > 1.3 || r < 1 / 1.3) ? "  outside 1.3x" : ""
      printf "| %s -> %s | %.2fx | %.2fx | %.2f%s |\n", name[j], name[i], s, p, r, flag
    }
  }' "$RESULTS" "$DIR/published.tsv"
}
TABLE="Allocated by the default allocator (\`-O2\`):

$(table)

Every buffer in storage of its own (\`--allocator no-reuse\`):

$(table --allocator no-reuse)"
echo "$TABLE"
# Into docs/simulator.md, between the markers.
awk -v table="$TABLE" '
  /<!-- calibration table begin -->/ { print; print table; skip = 1; next }
  /<!-- calibration table end -->/ { skip = 0 }
  !skip { print }' docs/simulator.md > docs/simulator.md.new
mv docs/simulator.md.new docs/simulator.md
