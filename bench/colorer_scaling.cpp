// How the coloring levels grow with the number of tensors under capacity pressure (the goal: O2 under pressure
// grows no faster than N^1.3 from 1,000 to 100,000 buffers). The workload is minimalloc's problem
// (ir/minimalloc_import.h) generated at scale: N buffers with lifetimes spread over a horizon that grows with N, so
// that about kLiveAtOnce buffers are live at any time whatever N is (as in a long kernel, not a denser one), sizes
// 4..16384 bytes; the capacity is 3/4 of the max live bytes, so every size spills. BM_ColoringUnderPressure
// allocates it at -O<level> (the whole pipeline: PSUM, SBUF, DMA optimization, REG) and reports the time, the
// tensors spilled, spill bytes and spill rounds per run; the closing lines
// print the growth exponent of its CPU time between successive sizes and over the whole range (least squares of
// log time on log N).
//
// Usage: build/bench/colorer_scaling [--benchmark_filter=...]     (one run per size: Iterations(1))
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <random>
#include <string>

#include "alloc/driver.h"
#include "bench/bench_support.h"
#include "ir/minimalloc_import.h"

namespace allocsim {
namespace {

constexpr int64_t kLiveAtOnce = 40;  // mean buffers live at a time

MinimallocProblem pressuredProblem(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t horizon = n * 8;  // mean lifetime kLiveAtOnce * 8 ticks -> about kLiveAtOnce live at once
  std::uniform_int_distribution<int64_t> start(0, horizon - 1), life(1, 2 * kLiveAtOnce * 8), words(1, 4096);
  MinimallocProblem p;
  for (int64_t i = 0; i < n; ++i) {
    MinimallocBuffer b;
    b.id = std::to_string(i);
    b.lower = start(rng);
    b.upper = b.lower + life(rng);
    b.size = 4 * words(rng);
    p.buffers.push_back(b);
  }
  return p;
}

std::map<std::pair<int, int64_t>, double>& seconds() {
  static std::map<std::pair<int, int64_t>, double> s;
  return s;
}

void BM_ColoringUnderPressure(benchmark::State& state) {
  const int level = int(state.range(0));
  const int64_t n = state.range(1);
  const MinimallocProblem mp = pressuredProblem(n, 20261201);
  const uint64_t capacity = maxLiveBytes(mp) * 3 / 4;
  // Without the importer's `li tick` fillers (in the time slots without events, for the exact search's widths): a
  // definition and a last use per buffer, 2N instructions, so the figure is the colorer's, not the fillers'
  // (imported with them, 100,000 buffers would be up to 6.4 million instructions).
  const Program p = importMinimalloc(mp, capacity, false);
  DriverOptions o;
  o.optlevel = level;
  for (auto _ : state) {
    const double t0 = bench::cpuSeconds();
    DriverResult r = allocate(p, o);
    seconds()[{level, n}] = bench::cpuSeconds() - t0;
    if (const SbufStats* s = findStep<SbufStats>(r)) {
      state.counters["spilled"] = double(s->outcome.tensors_spilled);
      state.counters["spill_bytes"] = double(s->spill_bytes);
      state.counters["rounds"] = double(s->outcome.rounds);
    }
  }
  state.counters["buffers"] = double(n);
}

BENCHMARK(BM_ColoringUnderPressure)
    ->ArgsProduct({{2}, {1000, 3000, 10000, 30000, 100000}})
    ->ArgNames({"O", "buffers"})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void printExponents() {
  std::map<int, std::vector<std::pair<double, double>>> by_level;  // level -> (log n, log seconds)
  for (const auto& [key, s] : seconds()) by_level[key.first].push_back({std::log(double(key.second)), std::log(s)});
  for (const auto& [level, pts] : by_level) {
    if (pts.size() < 2) continue;
    std::printf("O%d growth exponent (time ~ N^k):", level);
    for (size_t i = 1; i < pts.size(); ++i)
      std::printf(" %.0f->%.0f: %.2f", std::exp(pts[i - 1].first), std::exp(pts[i].first),
                  (pts[i].second - pts[i - 1].second) / (pts[i].first - pts[i - 1].first));
    std::vector<std::pair<double, double>> size_seconds;
    for (const auto& [x, y] : pts) size_seconds.push_back({std::exp(x), std::exp(y)});
    std::printf("; least squares over %.0f..%.0f: %.2f\n", std::exp(pts.front().first), std::exp(pts.back().first),
                bench::growthExponent(size_seconds));
  }
}

}  // namespace
}  // namespace allocsim

int main(int argc, char** argv) { return allocsim::bench::runBenchmarksThen(argc, argv, allocsim::printExponents); }
