// How `allocsim verify` (each oracle and all three) and `allocsim gen` grow with the program,
// against the reference interpreter on the same programs, in one process:
//   BM_Interp/N        the interpreter on the allocated program (the baseline)
//   BM_Equivalence/N, BM_Symbolic/N, BM_Placement/N, BM_Verify/N   the oracles, and verifyAllocated
//   BM_Gen/S           generateProgram at --size S on the tiny machine (its DRAM limit raised)
// N is the allocated program's instruction count: copies of one small allocated program
// (bench/repeated_program.h). After the runs, each family's growth exponent (the slope of log time over log N,
// least squares, on CPU time) and each verifier's time as a multiple of the interpreter's at the same N are printed.
//
//   verify_scaling --write N OUT [ORIGINAL]   writes the N-instruction program (for /usr/bin/time -v on the command
//                                  line; bench/verify_scaling.sh), and with ORIGINAL the unallocated program it
//                                  stands for (for `verify OUT --original ORIGINAL`)
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/repeated_program.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/interp.h"
#include "ir/print.h"
#include "verify/equivalence.h"
#include "verify/placement.h"
#include "verify/symbolic.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

const Program& programOf(int64_t n) {
  static std::map<int64_t, Program> cache;
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, scaledAllocatedProgram(uint64_t(n))).first;
  return it->second;
}

template <typename F>
void measure(benchmark::State& state, F&& run) {
  const Program& p = programOf(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(run(p));
  state.counters["instructions"] = double(instructionCount(p));
  state.SetComplexityN(state.range(0));
}

void BM_Interp(benchmark::State& state) {
  measure(state, [](const Program& p) {
    InterpOptions o;
    o.record_reads = false;
    o.release_dead = true;  // as `allocsim interp` runs it
    return interpret(p, o).steps;
  });
}
void BM_Equivalence(benchmark::State& state) {
  measure(state, [](const Program& p) { return checkEquivalence(p, EquivalenceOptions{1, 1}).size(); });
}
void BM_Symbolic(benchmark::State& state) {
  measure(state, [](const Program& p) { return checkSymbolic(p).size(); });
}
void BM_Placement(benchmark::State& state) {
  measure(state, [](const Program& p) { return checkPlacement(p).size(); });
}
void BM_Verify(benchmark::State& state) {
  measure(state, [](const Program& p) {
    VerifyOptions o;
    o.poison_seed = 1;
    return verifyAllocated(p, o).findings.size();
  });
}

void BM_Gen(benchmark::State& state) {
  GenOptions o;
  o.arch = *archPreset("tiny");
  o.arch.dram_limit = uint64_t(1) << 34;
  o.size = uint32_t(state.range(0));
  uint64_t n = 0;
  for (auto _ : state) {
    SeededChoices c(1);
    n = instructionCount(generateProgram(c, o));
  }
  state.counters["instructions"] = double(n);
  state.SetComplexityN(state.range(0));
}

// Least-squares slope of log(time) over log(N), per family.
class ExponentReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.complexity_n <= 0) continue;
      // CPU time: the machine is shared, and wall time counts other jobs' turns. Family "BM_X" of "allocsim::BM_X/N".
      const std::string name = r.benchmark_name();
      const size_t from = name.find("BM_");
      times_[name.substr(from, name.find('/') - from)].push_back({double(r.complexity_n), r.GetAdjustedCPUTime()});
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void summary() const {
    for (const auto& [family, points] : times_) {
      if (points.size() < 2) continue;
      double sx = 0, sy = 0, sxx = 0, sxy = 0;
      for (auto [n, t] : points) {
        const double x = std::log(n), y = std::log(t);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
      }
      const double k = double(points.size());
      std::printf("%-16s CPU time grows as N^%.2f (%zu sizes, %.0f..%.0f)\n", family.c_str(),
                  (k * sxy - sx * sy) / (k * sxx - sx * sx), points.size(), points.front().first, points.back().first);
    }
    auto interp = times_.find("BM_Interp");
    if (interp == times_.end()) return;
    for (const char* family : {"BM_Equivalence", "BM_Symbolic", "BM_Placement", "BM_Verify"}) {
      auto it = times_.find(family);
      if (it == times_.end()) continue;
      for (auto [n, t] : it->second)
        for (auto [m, base] : interp->second)
          if (m == n) std::printf("%-16s N=%.0f: %.1fx the interpreter's CPU time\n", family, n, t / base);
    }
  }

 private:
  std::map<std::string, std::vector<std::pair<double, double>>> times_;
};

}  // namespace
}  // namespace allocsim

#define SIZES ->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond)
BENCHMARK(allocsim::BM_Interp) SIZES;
BENCHMARK(allocsim::BM_Equivalence) SIZES;
BENCHMARK(allocsim::BM_Symbolic) SIZES;
BENCHMARK(allocsim::BM_Placement) SIZES;
BENCHMARK(allocsim::BM_Verify) SIZES;
BENCHMARK(allocsim::BM_Gen)->RangeMultiplier(10)->Range(100, 10000)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  if ((argc == 4 || argc == 5) && std::strcmp(argv[1], "--write") == 0) {
    allocsim::Program original;
    std::ofstream(argv[3]) << allocsim::printProgram(
        allocsim::scaledAllocatedProgram(std::stoull(argv[2]), argc == 5 ? &original : nullptr));
    if (argc == 5) std::ofstream(argv[4]) << allocsim::printProgram(original);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  allocsim::ExponentReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.summary();
  benchmark::Shutdown();
  return 0;
}
