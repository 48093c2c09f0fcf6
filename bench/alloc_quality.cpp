// Allocation quality figures: for every corpus kernel and three generated programs, and for each
// allocator path — O0 (no reuse), greedy (alloc/greedy_placer.h, no spilling) and O2 (the coloring pipeline of
// alloc/driver.h) and O8 (the linear-scan allocator with the best-fit manager, alloc/lsa/) — how much memory the
// allocation takes against what any allocation must take, and how long it takes:
//   SBUF peak      the highest byte any SBUF placement reaches in a partition (offset + bytes per partition)
//   max-live bound the most SBUF data live at one position of the input's linear order (alloc/liveness.h), as
//                  bytes per partition (partition-bytes / partitions, rounded up), or the largest single tensor if
//                  that is more: no allocation without spilling fits in less
//   PSUM banks     distinct banks holding a live PSUM tensor, against the most banks live at one position
//   spill bytes    the bytes of the spill slots the allocator inserted (tensors of origin spill)
//   time           Google Benchmark's CPU time per allocation
// and, from the same run, linear scan against graph coloring (O8 over O2) in SBUF peak, spill bytes and time.
// The figures are computed once per (program, path), outside the timed loop; the timed loop only allocates.
//
//   alloc_quality [benchmark flags] [--markdown FILE]   FILE gets the report of docs/quality.md
//   alloc_quality --reg-only                           prints the REG sections only (bench/reg_quality.h)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/greedy_placer.h"
#include "alloc/liveness.h"
#include "bench/bench_support.h"
#include "bench/reg_quality.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/parse.h"
#include "verify/liveness_precision.h"
#include "verify/memory_bounds.h"

namespace allocsim {
namespace {

struct Subject {
  std::string name;
  Program program;
};

enum class Path { O0, Greedy, O2, O8 };
const char* pathName(Path p) {
  switch (p) {
    case Path::O0: return "O0";
    case Path::Greedy: return "greedy";
    case Path::O2: return "O2";
    case Path::O8: return "O8";
  }
  return "?";
}

Program allocateBy(Path path, const Program& p) {
  if (path == Path::Greedy) return placeGreedy(p);
  DriverOptions o;
  o.optlevel = path == Path::O0 ? 0 : path == Path::O8 ? 8 : 2;
  return allocate(p, o).program;
}

struct Figures {
  bool ok = false;
  std::string error;
  uint64_t sbuf_peak = 0, sbuf_bound = 0, psum_banks = 0, psum_demand = 0, spill_bytes = 0;
  double cpu_ns = 0;  // filled from the benchmark run
};

Figures measure(Path path, const Program& input) {
  Figures f;
  const MemoryBounds b = maxLiveBounds(input);
  f.sbuf_bound = b.sbuf_bytes;
  f.psum_demand = b.psum_banks;
  Program out;
  try {
    out = allocateBy(path, input);
  } catch (const AllocError& e) {
    f.error = e.what();
    return f;
  }
  f.ok = true;
  const MemoryUse u = memoryUse(out);
  f.sbuf_peak = u.sbuf_peak;
  f.psum_banks = u.psum_banks;
  f.spill_bytes = u.spill_bytes;
  return f;
}

std::vector<Subject> subjects() {
  std::vector<Subject> out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels"))
    if (e.path().string().ends_with(".nki.txt")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::string name = path.filename().string();
    out.push_back({name.substr(0, name.size() - 8), parseProgram(bench::readFile(path))});
  }
  // Three generated sizes on gen2, sized to fill it (pressure 100%): small, medium, large. (Generated programs on
  // tiny's 4 SP registers: bench/reg_quality.h.)
  for (auto [label, size] : {std::pair{"gen_small", 10u}, std::pair{"gen_medium", 40u}, std::pair{"gen_large", 160u}}) {
    SeededChoices c(42);
    out.push_back({label, generateProgram(c, GenOptions{*archPreset("gen2"), size, 100})});
  }
  return out;
}

// (subject, path) -> figures, in registration order.
std::vector<std::pair<std::string, Path>>& rows() {
  static std::vector<std::pair<std::string, Path>> r;
  return r;
}
std::map<std::string, Figures>& figures() {
  static std::map<std::string, Figures> f;
  return f;
}
std::string key(const std::string& subject, Path p) { return subject + "/" + pathName(p); }

// Passes every run to the console reporter and keeps the CPU time per allocation of each.
class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      std::string name = r.benchmark_name();
      auto it = figures().find(name.substr(0, name.find("/iterations")));
      if (it != figures().end() && r.run_type == Run::RT_Iteration && !r.error_occurred)
        it->second.cpu_ns = r.GetAdjustedCPUTime() * (r.time_unit == benchmark::kMillisecond   ? 1e6
                                                      : r.time_unit == benchmark::kMicrosecond ? 1e3
                                                                                               : 1.0);
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

std::string ratio(double a, double b) {
  if (b <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", a / b);
  return buf;
}

// Linear scan (O8) against graph coloring (O2), program by program, from the same run: SBUF peak and PSUM banks
// over O2's, spill bytes side by side, CPU time over O2's; then the totals and the geometric mean of the time ratio
// over the programs both allocate.
std::string lsaVersusColoring() {
  std::string out =
      "\n## Linear scan against graph coloring\n\n"
      "O8 (linear scan, best fit) over O2 (PSUM then SBUF colorer) on the same programs, from the same run. Peak ratios\n"
      "above 1 mean linear scan needs more SBUF (or PSUM banks) than the colorer; spill bytes are the spill slots\n"
      "each inserted; time is CPU time per allocation.\n\n"
      "| program | SBUF peak O8 / O2 | PSUM banks O8 / O2 | spill bytes O8 | spill bytes O2 | time O8 / O2 |\n"
      "|---|---:|---:|---:|---:|---:|\n";
  double log_time = 0, spill_lsa = 0, spill_col = 0;
  int both = 0, lsa_only_refused = 0, peak_higher = 0, peak_equal = 0, peak_lower = 0;
  for (const auto& [subject, path] : rows()) {
    if (path != Path::O8) continue;
    const Figures& l = figures()[key(subject, Path::O8)];
    const Figures& c = figures()[key(subject, Path::O2)];
    if (!l.ok || !c.ok) {
      lsa_only_refused += !l.ok && c.ok;
      out += "| " + subject + " | " + (l.ok ? "" : "*O8 does not fit*") + (c.ok ? "" : " *O2 does not fit*") +
             " | | | | |\n";
      continue;
    }
    ++both;
    log_time += std::log(l.cpu_ns / std::max(c.cpu_ns, 1e-9));
    spill_lsa += double(l.spill_bytes);
    spill_col += double(c.spill_bytes);
    peak_higher += l.sbuf_peak > c.sbuf_peak;
    peak_equal += l.sbuf_peak == c.sbuf_peak;
    peak_lower += l.sbuf_peak < c.sbuf_peak;
    out += "| " + subject + " | " + ratio(double(l.sbuf_peak), double(c.sbuf_peak)) + " | " +
           ratio(double(l.psum_banks), double(c.psum_banks)) + " | " + std::to_string(l.spill_bytes) + " | " +
           std::to_string(c.spill_bytes) + " | " + ratio(l.cpu_ns, c.cpu_ns) + " |\n";
  }
  char summary[512];
  std::snprintf(summary, sizeof summary,
                "\nOver the %d programs both allocate: linear scan's SBUF peak is higher on %d, equal on %d, lower on "
                "%d; its spill slots total %.0f bytes against the colorer's %.0f; its time is %.2fx the colorer's "
                "(geometric mean). Programs only the colorer allocates: %d.\n",
                both, peak_higher, peak_equal, peak_lower, spill_lsa, spill_col,
                both ? std::exp(log_time / both) : 0.0, lsa_only_refused);
  return out + summary;
}

// The liveness precision figure: static max-live (alloc/liveness.h) over dynamic max-live (what one interpreted run
// observes, verify/dynamic_liveness.h), per corpus kernel and liveness acceptance kernel (corpus/liveness/), with
// how the back-edge rule was decided. Deterministic; not timed.
std::string livenessPrecisionTable() {
  std::string out =
      "\n## Liveness precision\n\n"
      "Static max-live (the allocators' live ranges, `alloc/liveness.h`) over dynamic max-live (what the interpreter\n"
      "observes in one run, `verify/dynamic_liveness.h`), per partition for SBUF, in banks for PSUM. A tensor counts\n"
      "whole while live. Soundness (static contains dynamic) is the property `Liveness.StaticRangesContainTheDynamicOnes`;\n"
      "1.00 is exact. *back edges*: the (tensor, loop) questions of the back-edge rule, decided from the views as\n"
      "per iteration / loop-carried / undecidable (the last kept live over the loop). A tensor's live range is a set\n"
      "of segments, one per value (a full write after the last read starts a new one), so a buffer used in two\n"
      "separate phases of an iteration (attention_psum_shared's p and pT, once per head) is not live between them.\n"
      "Above 1.00 remains where a static position stands for every iteration of its loop: a value written in each\n"
      "iteration and read after the loop is live over the whole loop.\n\n"
      "| kernel | SBUF static | SBUF dynamic | ratio | PSUM static | PSUM dynamic | ratio | back edges (per iteration / carried / undecidable) |\n"
      "|---|---:|---:|---:|---:|---:|---:|---|\n";
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"/corpus/kernels", "/corpus/liveness"})
    for (const auto& e : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + dir)) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(".nki.txt") && !name.ends_with(".allocated.nki.txt")) files.push_back(e.path());
    }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const Program p = parseProgram(bench::readFile(path));
    const LivenessPrecision lp = livenessPrecision(p);
    const LivenessStats s = computeLiveness(p).stats;
    std::string name = path.parent_path().filename().string() + "/" + path.filename().string();
    out += "| " + name.substr(0, name.size() - 8) + " | " + std::to_string(lp.static_sbuf_bytes) + " | " +
           std::to_string(lp.dynamic_sbuf_bytes) + " | " +
           ratio(double(lp.static_sbuf_bytes), double(lp.dynamic_sbuf_bytes)) + " | " +
           std::to_string(lp.static_psum_banks) + " | " + std::to_string(lp.dynamic_psum_banks) + " | " +
           ratio(double(lp.static_psum_banks), double(lp.dynamic_psum_banks)) + " | " +
           std::to_string(s.per_iteration) + " / " + std::to_string(s.carried) + " / " +
           std::to_string(s.undecidable) + " |\n";
  }
  return out;
}

std::string markdown() {
  std::string out =
      "# Allocation quality\n\n"
      "Generated by `bench/quality_report.sh` (the Google Benchmark program `bench/alloc_quality.cpp`); do not edit.\n"
      "Per corpus kernel (`corpus/kernels/`) and three generated programs (`gen_small`, `gen_medium`, `gen_large`:\n"
      "`allocsim gen --seed 42 --arch gen2 --pressure 100 --size 10 / 40 / 160`), for each allocator path:\n\n"
      "- **O0**: no reuse (`allocsim alloc -O0`); **greedy**: first fit in live-range order, no spilling\n"
      "  (`alloc/greedy_placer.h`); **O2**: the default pipeline (`allocsim alloc -O2`: PSUM colorer, then SBUF,\n"
      "  then registers; see `alloc/driver.h` for which SBUF allocator is wired); **O8**: the linear-scan allocator\n"
      "  with the best-fit manager (`allocsim alloc -O8`, `alloc/lsa/`).\n"
      "- **SBUF peak / bound**: the highest byte an SBUF placement reaches in a partition, over the max-live lower\n"
      "  bound (the most SBUF data live at one position of the input, per partition, or the largest tensor). 1.00 is\n"
      "  optimal; below 1 the allocator spilled to get under it.\n"
      "- **PSUM banks / demand**: banks holding a live PSUM tensor, over the most banks live at one position.\n"
      "  Above 1.00 where the colorer rotates a loop's PSUM tensors through banks free at that point, so a matmul\n"
      "  need not wait for the last reader of its bank (`docs/design.md`); the banks live at once never exceed the demand.\n"
      "- **spill bytes**: the size of the spill slots the allocator inserted.\n"
      "- **time vs greedy**: CPU time per allocation over the greedy placer's on the same program (absolute times\n"
      "  depend on the machine; the ratio much less).\n"
      "- *does not fit*: the allocator refused the program (the first words of its diagnostic).\n\n"
      "| program | path | SBUF peak (B/partition) | bound | peak / bound | PSUM banks | demand | banks / demand | "
      "spill bytes | time vs greedy |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& [subject, path] : rows()) {
    const Figures& f = figures()[key(subject, path)];
    const Figures& greedy = figures()[key(subject, Path::Greedy)];
    out += "| " + subject + " | " + pathName(path) + " | ";
    if (!f.ok) {
      std::string why = f.error.substr(0, f.error.find(':'));
      if (why.size() > 90) why = why.substr(0, 87) + "...";
      out += "*does not fit*: " + why + " | " + std::to_string(f.sbuf_bound) + " | | | " +
             std::to_string(f.psum_demand) + " | | | |\n";
      continue;
    }
    out += std::to_string(f.sbuf_peak) + " | " + std::to_string(f.sbuf_bound) + " | " +
           ratio(double(f.sbuf_peak), double(f.sbuf_bound)) + " | " + std::to_string(f.psum_banks) + " | " +
           std::to_string(f.psum_demand) + " | " + ratio(double(f.psum_banks), double(f.psum_demand)) + " | " +
           std::to_string(f.spill_bytes) + " | " + (greedy.ok ? ratio(f.cpu_ns, greedy.cpu_ns) : "-") + " |\n";
  }
  return out + lsaVersusColoring() + livenessPrecisionTable() + regQualityTables(ALLOCSIM_SOURCE_DIR);
}

}  // namespace
}  // namespace allocsim

int main(int argc, char** argv) {
  using namespace allocsim;
  std::string markdown_out;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--markdown" && i + 1 < argc) markdown_out = argv[++i];
    else if (a == "--reg-only") {  // the REG sections alone (deterministic), to standard output
      std::fputs(regQualityTables(ALLOCSIM_SOURCE_DIR).c_str(), stdout);
      return 0;
    }
    else args.push_back(argv[i]);
  }
  int n = int(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;

  static const std::vector<Subject> all = subjects();
  for (const Subject& s : all)
    for (Path path : {Path::O0, Path::Greedy, Path::O2, Path::O8}) {
      const std::string name = key(s.name, path);
      rows().push_back({s.name, path});
      Figures f = measure(path, s.program);
      const bool ok = f.ok;
      const std::string error = f.error;
      figures()[name] = f;
      benchmark::RegisterBenchmark(name.c_str(), [&s, path, ok, error, name](benchmark::State& st) {
        if (!ok) {
          st.SkipWithError(error.c_str());
          return;
        }
        for (auto _ : st) benchmark::DoNotOptimize(allocateBy(path, s.program));
        const Figures& f = figures()[name];
        st.counters["sbuf_peak"] = double(f.sbuf_peak);
        st.counters["sbuf_bound"] = double(f.sbuf_bound);
        st.counters["psum_banks"] = double(f.psum_banks);
        st.counters["psum_demand"] = double(f.psum_demand);
        st.counters["spill_bytes"] = double(f.spill_bytes);
      });
    }
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::Shutdown();
  if (!markdown_out.empty()) {
    std::ofstream out(markdown_out, std::ios::binary);
    out << markdown();
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", markdown_out.c_str());
      return 2;
    }
  }
  return 0;
}
