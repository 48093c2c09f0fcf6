// The simulator's speed, in one process, on one generated program:
//   BM_FullModel   the SystemC model of sim/ (scoreboard, data through the interpreter's code, DMA rings, stats)
//   BM_BareModel   the same threads doing nothing but wait(latency) per instruction (bench/bare_model.h), on the
//                  latencies the full model measured: the SystemC kernel's own ceiling for this program
// Both report simulated instructions per host second ("items_per_second"); the closing line prints the full model
// as a fraction of the ceiling: the share of the SystemC kernel's own speed that the model keeps (the target is at
// least 30% of the ceiling and at least 1M simulated instructions per second).
//   BM_MillionInstructions   a 1,000,000-instruction run (operand hashes not kept), with the process's peak RSS
//                            before and after: memory is bounded by the machine, not by the program's length.
//
// The program: bench/data/sim_speed.nki.txt, a generated program (`allocsim gen`, seeded, tiny machine) wrapped
// in a loop of 200 iterations and allocated at -O2, kept as a file so that the figures of two commits are measured
// on the same program (generating it anew followed every change of the generator and the allocators).
// `sim_speed --print-generated` writes it again from the generator and allocator as they are.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "bench/bench_support.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "bench/bare_model.h"
#include "sim/simulate.h"

namespace allocsim {
namespace {

// A generated program whose body runs `iterations` times, allocated at -O2; the first seed that allocates.
Program benchProgram(uint32_t iterations) {
  for (uint64_t seed = 1;; ++seed) {
    Arch arch = *archPreset("tiny");
    arch.sp_registers = 16;
    GenOptions o;
    o.arch = arch;
    o.size = 30;
    o.pressure = 80;
    SeededChoices choices(seed);
    const Program p = bench::wrapInLoop(generateProgram(choices, o), "bench_iteration", iterations);
    DriverOptions d;
    d.optlevel = 2;
    try {
      Program allocated = allocate(p, d).program;
      sim::simulate(allocated);  // runs (a generated program may not survive the wrapping: try the next seed)
      return allocated;
    } catch (const std::exception&) {
    }
  }
}

// The committed program with its outer loop (the one benchProgram wraps around the body) run `iterations` times.
Program withIterations(Program p, uint32_t iterations) {
  if (p.body.size() != 1 || p.body[0].op != Op::Loop) throw std::runtime_error("sim_speed: the program is not one loop");
  p.body[0].hi = iterations;
  return p;
}

const Program& program() {
  static const Program p = [] {
    const std::string path = std::string(ALLOCSIM_SOURCE_DIR) + "/bench/data/sim_speed.nki.txt";
    const std::string text = bench::readFile(path);
    if (text.empty()) throw std::runtime_error("sim_speed: cannot read " + path);
    Program q = parseProgram(text);
    sim::simulate(q);  // checked once (the timed runs skip the interpreter's pre-check)
    return q;
  }();
  return p;
}

// A kernel file allocated as bench/calibration.sh does (every buffer in storage of its own: -O0, the no-reuse
// allocator); kept for the process.
const Program& kernelProgram(const std::string& path) {
  static Program p;
  const std::string text = bench::readFile(path);
  if (text.empty()) throw std::runtime_error("sim_speed: cannot read " + path);
  DriverOptions d;
  d.optlevel = 0;
  p = allocate(parseProgram(text), d).program;
  return p;
}

double g_full = 0, g_bare = 0, g_timing = 0;

// Instructions per second over the timed loop.
void reportRate(benchmark::State& state, uint64_t instructions) {
  state.SetItemsProcessed(int64_t(instructions));
  state.counters["instr_per_s"] = benchmark::Counter(double(instructions), benchmark::Counter::kIsRate);
}

// The SystemC model on the program, which ran once in program() (so the timed runs skip the interpreter's
// pre-check); `timing_only` (SimOptions::timing_only): no tensor data path.
void timeModel(benchmark::State& state, bool timing_only) {
  sim::SimOptions o;
  o.record_reads = false;
  o.prevalidate = false;
  o.timing_only = timing_only;
  const Program& p = program();  // built outside the timed loop
  uint64_t n = 0;
  for (auto _ : state) n += sim::simulate(p, o).exec.steps;
  reportRate(state, n);
}

void BM_TimingOnlyModel(benchmark::State& state) { timeModel(state, true); }

void BM_FullModel(benchmark::State& state) { timeModel(state, false); }

void BM_BareModel(benchmark::State& state) {
  sim::Trace trace;
  sim::SimOptions o;
  o.trace = &trace;
  sim::simulate(program(), o);
  const auto tracks = bench::bareTracks(trace);
  uint64_t n = 0;
  for (auto _ : state) n += bench::simulateBare(tracks);
  reportRate(state, n);
}

// The reference interpreter alone on the same program: what executing the data costs without any timing model.
void BM_Interpreter(benchmark::State& state) {
  InterpOptions o;
  o.record_reads = false;
  const Program& p = program();
  uint64_t n = 0;
  for (auto _ : state) n += interpret(p, o).steps;
  reportRate(state, n);
}

long peakRssKiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

void BM_MillionInstructions(benchmark::State& state) {
  const Program& small = program();
  uint64_t per_iteration = sim::simulate(small).exec.steps / 200;
  static const Program big = withIterations(small, uint32_t(1'000'000 / per_iteration + 1));
  sim::SimOptions o;
  o.record_reads = false;
  o.prevalidate = false;
  const long before = peakRssKiB();
  uint64_t steps = 0;
  for (auto _ : state) steps = sim::simulate(big, o).exec.steps;
  state.counters["instructions"] = double(steps);
  state.counters["peak_rss_before_MiB"] = double(before) / 1024;
  state.counters["peak_rss_after_MiB"] = double(peakRssKiB()) / 1024;
}

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      // With --benchmark_repetitions the median stands for the repetitions (the mean, stddev and cv rows are not
      // rates: cv is a percentage).
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      auto it = r.counters.find("instr_per_s");
      if (it == r.counters.end()) continue;
      if (r.benchmark_name().find("BM_FullModel") != std::string::npos) g_full = it->second;
      if (r.benchmark_name().find("BM_BareModel") != std::string::npos) g_bare = it->second;
      if (r.benchmark_name().find("BM_TimingOnlyModel") != std::string::npos) g_timing = it->second;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace
}  // namespace allocsim

// The model runs on a kernel thread of its own (sim/kernel_thread.h) while the benchmark's thread waits: rates are
// per CPU second of the whole process (the main thread's own CPU time would be nearly zero).
BENCHMARK(allocsim::BM_FullModel)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(allocsim::BM_BareModel)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(allocsim::BM_TimingOnlyModel)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(allocsim::BM_Interpreter)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(allocsim::BM_MillionInstructions)->Unit(benchmark::kMillisecond)->Iterations(1);

int main(int argc, char** argv) {
  // `sim_speed --profile full|timing|bare|interp N`: N runs of one model and nothing else, for a profiler
  // (valgrind --tool=cachegrind, perf): the difference between two N is the cost of the runs alone.
  if (argc == 2 && std::string(argv[1]) == "--print-generated") {
    std::fputs(allocsim::printProgram(allocsim::benchProgram(200)).c_str(), stdout);
    return 0;
  }
  // `sim_speed --profile timing|bare N FILE`: the same for a kernel file, allocated as `--kernel` does.
  if ((argc == 4 || argc == 5) && std::string(argv[1]) == "--profile") {
    const std::string what = argv[2];
    const long n = std::stol(argv[3]);
    const allocsim::Program& p = argc == 5 ? allocsim::kernelProgram(argv[4]) : allocsim::program();
    allocsim::sim::SimOptions o;
    o.record_reads = false;
    o.prevalidate = false;
    o.timing_only = what == "timing";
    allocsim::sim::Trace trace;
    allocsim::sim::SimOptions traced;
    traced.trace = &trace;
    traced.timing_only = true;  // the same trace as the full model's (a property), without its data path
    if (what == "bare") allocsim::sim::simulate(p, traced);
    const auto tracks = allocsim::bench::bareTracks(trace);
    allocsim::InterpOptions io;
    io.record_reads = false;
    uint64_t steps = 0;
    for (long i = 0; i < n; ++i) {
      if (what == "full" || what == "timing") steps += allocsim::sim::simulate(p, o).exec.steps;
      else if (what == "bare") steps += allocsim::bench::simulateBare(tracks);
      else steps += allocsim::interpret(p, io).steps;
    }
    std::printf("%s: %ld runs, %llu steps\n", what.c_str(), n, (unsigned long long)steps);
    return 0;
  }
  // `sim_speed --kernel FILE [N]`: FILE allocated as bench/calibration.sh does (every buffer in storage of its own:
  // -O0, the no-reuse allocator), simulated N times (default 3) in timing-only mode and
  // on the bare model of its own trace; the best of each, in instructions per second and as a ratio.
  if ((argc == 3 || argc == 4) && std::string(argv[1]) == "--kernel") {
    const long n = argc == 4 ? std::stol(argv[3]) : 3;
    const allocsim::Program& p = allocsim::kernelProgram(argv[2]);
    allocsim::sim::Trace trace;
    allocsim::sim::SimOptions o;
    o.record_reads = false;
    o.timing_only = true;
    o.trace = &trace;
    const uint64_t steps = allocsim::sim::simulate(p, o).exec.steps;
    o.trace = nullptr;
    const auto tracks = allocsim::bench::bareTracks(trace);
    trace = {};
    double best_timing = 0, best_bare = 0;
    for (long i = 0; i < n; ++i) {
      const double t0 = allocsim::bench::cpuSeconds();
      allocsim::sim::simulate(p, o);
      const double t1 = allocsim::bench::cpuSeconds();
      const uint64_t waits = allocsim::bench::simulateBare(tracks);
      const double t2 = allocsim::bench::cpuSeconds();
      best_timing = std::max(best_timing, double(steps) / (t1 - t0));
      best_bare = std::max(best_bare, double(waits) / (t2 - t1));
    }
    std::printf("%s: %llu instructions; timing-only %.2fM instructions/s, bare SystemC ceiling %.2fM waits/s: %.1f%%\n",
                argv[2], (unsigned long long)steps, best_timing / 1e6, best_bare / 1e6, 100 * best_timing / best_bare);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  allocsim::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  if (allocsim::g_full > 0 && allocsim::g_bare > 0)
    std::printf("full model: %.2fM instructions/s = %.1f%% of the bare SystemC ceiling (%.2fM/s) on the same program\n",
                allocsim::g_full / 1e6, 100.0 * allocsim::g_full / allocsim::g_bare, allocsim::g_bare / 1e6);
  if (allocsim::g_timing > 0 && allocsim::g_bare > 0)
    std::printf("timing-only model: %.2fM instructions/s = %.1f%% of the bare SystemC ceiling on the same program\n",
                allocsim::g_timing / 1e6, 100.0 * allocsim::g_timing / allocsim::g_bare);
  benchmark::Shutdown();
  return 0;
}
