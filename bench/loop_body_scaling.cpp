// How allocation grows when a kernel's whole body sits in one loop (a tile loop around everything), against the same
// body unwrapped. Liveness asks iteration coverage (alloc/iteration_coverage.h) about every tensor whose mentions
// share a loop, and each such decision plans and walks that loop's body: wrapped, every tensor's decision costs the
// whole program, so the time grows with tensors x body. BM_LoopBody allocates a generated tiny program of N top-level
// statements (pressure 60 %, 64 SP registers so that REG does not refuse; dram-limit raised so that N is honoured)
// at -O2, as generated and wrapped in `loop wrap = 0, 2, 1 { ... }`, reports the CPU time and the instructions, and
// the closing lines print the growth exponent of the CPU time in the instruction count for each. A refusal
// (AllocError) is timed too and counted.
//
// Usage: build/bench/loop_body_scaling [--benchmark_filter=...]     (one run per size: Iterations(1))
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "alloc/alloc_error.h"
#include "bench/bench_support.h"
#include "alloc/driver.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"
#include "ir/check.h"

namespace allocsim {
namespace {

Program generated(int64_t statements) {
  Arch arch = *archPreset("tiny");
  applyArchOverride(arch, "sp-registers", "64");
  applyArchOverride(arch, "dram-limit", "1073741824");
  SeededChoices c(11);
  return generateProgram(c, GenOptions{arch, uint32_t(statements), 60});
}

Program wrapped(const Program& p) {
  Program w = bench::wrapInLoop(p, "wrap", 2);
  requireWellFormed(w);
  return w;
}

size_t instructions(const Program& p) {
  size_t n = 0;
  forEachInstruction(p.body, [&](const Instruction&) { ++n; });
  return n;
}

// (wrapped, instructions) -> CPU seconds
std::map<std::pair<bool, size_t>, double>& seconds() {
  static std::map<std::pair<bool, size_t>, double> s;
  return s;
}

void BM_LoopBody(benchmark::State& state) {
  const bool wrap = state.range(0) != 0;
  const Program p = wrap ? wrapped(generated(state.range(1))) : generated(state.range(1));
  DriverOptions o;
  o.optlevel = 2;
  bool refused = false;
  for (auto _ : state) {
    const double t0 = bench::cpuSeconds();
    try {
      allocate(p, o);
    } catch (const AllocError&) {
      refused = true;
    }
    seconds()[{wrap, instructions(p)}] = bench::cpuSeconds() - t0;
  }
  state.counters["instructions"] = double(instructions(p));
  state.counters["refused"] = refused ? 1 : 0;
}

BENCHMARK(BM_LoopBody)
    ->ArgsProduct({{0, 1}, {50, 100, 200, 400}})
    ->ArgNames({"wrapped", "statements"})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void printExponents() {
  for (bool wrap : {false, true}) {
    std::vector<std::pair<double, double>> pts;  // (instructions, seconds)
    for (const auto& [key, s] : seconds())
      if (key.first == wrap && s > 0) pts.push_back({double(key.second), s});
    if (pts.size() < 2) continue;
    std::printf("%s: CPU time ~ instructions^%.2f (least squares over %.0f..%.0f instructions)\n",
                wrap ? "wrapped in one loop" : "as generated", bench::growthExponent(pts), pts.front().first,
                pts.back().first);
  }
}

}  // namespace
}  // namespace allocsim

int main(int argc, char** argv) { return allocsim::bench::runBenchmarksThen(argc, argv, allocsim::printExponents); }
