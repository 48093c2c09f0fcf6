#include "bench/bench_support.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>

namespace allocsim::bench {

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double growthExponent(const std::vector<std::pair<double, double>>& size_seconds) {
  if (size_seconds.size() < 2) return 0;
  double mx = 0, my = 0;
  for (const auto& [n, s] : size_seconds) mx += std::log(n), my += std::log(s);
  mx /= double(size_seconds.size()), my /= double(size_seconds.size());
  double sxy = 0, sxx = 0;
  for (const auto& [n, s] : size_seconds) {
    const double x = std::log(n) - mx, y = std::log(s) - my;
    sxy += x * y, sxx += x * x;
  }
  return sxx > 0 ? sxy / sxx : 0;
}

Program wrapInLoop(Program p, const std::string& register_name, int64_t trips) {
  Register r;
  r.name = register_name;
  p.registers.push_back(r);
  Instruction loop;
  loop.op = Op::Loop;
  loop.rd = RegId(p.registers.size() - 1);
  loop.lo = 0;
  loop.hi = trips;
  loop.step = 1;
  loop.body = std::move(p.body);
  p.body = {std::move(loop)};
  p.renumber();
  return p;
}

int runBenchmarksThen(int argc, char** argv, void (*summary)()) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  summary();
  return 0;
}

}  // namespace allocsim::bench
