// What several benchmarks share: the process's CPU time (allocation and verification are single-threaded, and on a
// shared machine wall time measures the load), a file read whole, the least-squares growth exponent of a time in a
// size, a program's body wrapped in one loop, and a main that runs the registered benchmarks and then prints a
// summary.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/program.h"

namespace allocsim::bench {

double cpuSeconds();

// The whole file at `path`; empty when it cannot be read.
std::string readFile(const std::string& path);

// k in time ~ size^k, fitted over (size, seconds) points by least squares of log time on log size; 0 with fewer than
// two points.
double growthExponent(const std::vector<std::pair<double, double>>& size_seconds);

// `p` with its whole body inside `loop REGISTER = 0, trips, 1 { ... }` (a new register of that name), renumbered.
Program wrapInLoop(Program p, const std::string& register_name, int64_t trips);

// The body of a benchmark program's main: runs the benchmarks its command line selects (Google Benchmark's own
// flags), then `summary` (a figure computed over all of them, such as a growth exponent). 1 on an unknown flag.
int runBenchmarksThen(int argc, char** argv, void (*summary)());

}  // namespace allocsim::bench
