// The calibration checkpoints as a regression guard: every kernel of bench/calibration/, each buffer in storage of
// its own (-O0, as bench/calibration.sh's second table: the timing model alone), simulated with its arch preset's
// timing table, comes within 1.3x of its published figure in bench/calibration/published.tsv, and every optimization step's
// speed-up within 1.3x of the published one. `bash bench/calibration.sh` prints the same figures as tables.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/driver.h"
#include "ir/parse.h"
#include "sim/simulate.h"
#include "tests/common/files.h"

namespace allocsim {
namespace {

const std::string kDir = std::string(ALLOCSIM_SOURCE_DIR) + "/bench/calibration/";

struct Checkpoint {
  std::string name, kernel, figure, unit, step_from;
  double published = 0;
};

std::vector<Checkpoint> publishedCheckpoints() {
  std::ifstream in(kDir + "published.tsv");
  std::vector<Checkpoint> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("checkpoint\t", 0) == 0) continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string s; std::getline(fields, s, '\t');) f.push_back(s);
    if (f.size() != 10) {
      ADD_FAILURE() << "published.tsv: a row without its 10 columns: " << line;
      continue;
    }
    out.push_back({f[0], f[1], f[2], f[4], f[9], std::stod(f[3])});
  }
  return out;
}

// A kernel's simulated run time and its DMA queues' busy time (the transfers' spans), in seconds of its arch
// preset's reporting clock, and its instruction count per engine.
struct Seconds {
  double run = 0, dma = 0;
  std::map<std::string, uint64_t> instructions;  // by engine: "pe", "act", "dve", "pool"
  std::map<std::string, double> busy;            // each engine's busy time over the run time
};

// The simulated figure in the published unit: latency in ms, us or ns (or in us for a "relative" latency, compared
// by its step only), a DMA engine time (the transfers' spans) in ns, an instruction interval ("ENGINE-interval":
// the run time over the engine's instruction count) in ns or in cycles of that engine, an engine's active time
// ("ENGINE-active": its busy cycles) in % of the run time, an engine's busy time ("ENGINE-busy") in ms, TensorE's rate while it runs ("pe-tflops", in TFLOPS), or
// PE utilization in % of a K=8192, M=4096, N=8192 matmul (its FLOPs over the 128x128 array at the PE clock).
double simulatedFigure(const Checkpoint& c, std::map<std::string, Seconds>& seconds_of) {
  const sim::TimingTable& t = sim::TimingTable::defaults();
  if (!seconds_of.count(c.kernel)) {
    DriverOptions d;
    d.optlevel = 0;
    const Program p = allocate(parseProgram(readFile(kDir + c.kernel)), d).program;
    sim::SimOptions o;
    o.timing_only = true;
    o.record_reads = false;
    const sim::SimStats stats = sim::simulate(p, o).stats;
    const double hz = sim::TimingTable::forPreset(p.arch.name).clock_ghz * 1e9;
    uint64_t dma = 0;
    for (const sim::QueueStats& q : stats.queues) dma += q.busy_cycles;
    Seconds& sec = seconds_of[c.kernel];
    sec = {double(stats.cycles) / hz, double(dma) / hz, {}, {}};
    const char* names[] = {"pe", "act", "dve", "pool"};
    for (size_t e = 0; e < 4; ++e) {
      sec.instructions[names[e]] = stats.engines[e].instructions;
      sec.busy[names[e]] = double(stats.engines[e].busy_cycles) / double(stats.cycles);
    }
  }
  const Seconds& sec = seconds_of[c.kernel];
  const double s = sec.run;
  const std::string interval = "-interval";
  if (c.figure.size() > interval.size() &&
      c.figure.compare(c.figure.size() - interval.size(), interval.size(), interval) == 0) {
    const std::string engine = c.figure.substr(0, c.figure.size() - interval.size());
    EXPECT_TRUE(sec.instructions.count(engine) && sec.instructions.at(engine) > 0) << c.name;
    if (!sec.instructions.count(engine) || sec.instructions.at(engine) == 0) return 0;
    const double per_instruction = s / double(sec.instructions.at(engine));
    if (c.unit == "ns") return per_instruction * 1e9;
    EXPECT_EQ(c.unit, "cycles") << c.name;
    const sim::TimingTable& own = sim::TimingTable::forPreset(parseProgram(readFile(kDir + c.kernel)).arch.name);
    const std::map<std::string, double> clock = {
        {"pe", own.pe_clock_ghz}, {"act", own.act_clock_ghz}, {"dve", own.dve_clock_ghz}, {"pool", own.pool_clock_ghz}};
    return per_instruction * clock.at(engine) * 1e9;
  }
  const std::string active = "-active";
  if (c.figure.size() > active.size() &&
      c.figure.compare(c.figure.size() - active.size(), active.size(), active) == 0) {
    const std::string engine = c.figure.substr(0, c.figure.size() - active.size());
    EXPECT_EQ(c.unit, "%") << c.name;
    EXPECT_TRUE(sec.busy.count(engine)) << c.name;
    return sec.busy.count(engine) ? 100 * sec.busy.at(engine) : 0;
  }
  const std::string busy = "-busy";
  if (c.figure.size() > busy.size() && c.figure.compare(c.figure.size() - busy.size(), busy.size(), busy) == 0) {
    const std::string engine = c.figure.substr(0, c.figure.size() - busy.size());
    EXPECT_EQ(c.unit, "ms") << c.name;
    EXPECT_TRUE(sec.busy.count(engine)) << c.name;
    return sec.busy.count(engine) ? sec.busy.at(engine) * s * 1e3 : 0;
  }
  if (c.figure == "pe-tflops") {
    // TensorE while it runs: 2 x 128 x 128 x 512 FLOPs per PE instruction (every one of such a kernel is a
    // [128, 128] x [128, 512] matmul) over its busy time.
    EXPECT_EQ(c.unit, "TFLOPS") << c.name;
    const double pe_seconds = sec.busy.at("pe") * s;
    return pe_seconds > 0 ? double(sec.instructions.at("pe")) * 2 * 128 * 128 * 512 / pe_seconds / 1e12 : 0;
  }
  if (c.unit == "ns") {
    if (c.figure == "latency") return s * 1e9;
    EXPECT_EQ(c.figure, "dma-engine-time") << c.name;
    return sec.dma * 1e9;
  }
  if (c.unit == "ms") return s * 1e3;
  if (c.unit == "us" || c.unit == "relative") return s * 1e6;
  EXPECT_EQ(c.figure, "pe-utilization") << c.name;
  return 100 * (2.0 * 4096 * 8192 * 8192) / (s * 2 * 128 * 128 * t.pe_clock_ghz * 1e9);
}

bool within(double ratio, double factor) { return ratio <= factor && ratio >= 1 / factor; }

TEST(SimCalibration, EveryCheckpointAndStepWithinOnePointThreeOfThePublishedFigure) {
  const std::vector<Checkpoint> checkpoints = publishedCheckpoints();
  ASSERT_GE(checkpoints.size(), 7u);  // at least the matmul tutorial's four versions and HFU, layernorm's two
  std::map<std::string, Seconds> seconds_of;
  std::map<std::string, double> simulated;
  std::map<std::string, const Checkpoint*> by_name;
  for (const Checkpoint& c : checkpoints) {
    simulated[c.name] = simulatedFigure(c, seconds_of);
    by_name[c.name] = &c;
    if (c.unit == "relative") continue;  // a latency published only relative to another version: its step below
    EXPECT_TRUE(within(simulated[c.name] / c.published, 1.3))
        << c.name << ": simulated " << simulated[c.name] << " " << c.unit << ", published " << c.published;
  }
  int steps = 0;
  for (const Checkpoint& c : checkpoints) {
    if (c.step_from == "-") continue;
    ASSERT_TRUE(by_name.count(c.step_from)) << c.name << " is a step from an unknown checkpoint " << c.step_from;
    const Checkpoint& from = *by_name[c.step_from];
    ASSERT_EQ(from.unit, c.unit) << c.name;
    const double sim_speedup = simulated[from.name] / simulated[c.name], pub_speedup = from.published / c.published;
    EXPECT_TRUE(within(sim_speedup / pub_speedup, 1.3))
        << from.name << " -> " << c.name << ": simulated " << sim_speedup << "x, published " << pub_speedup << "x";
    // The published ranking of the two versions holds.
    EXPECT_EQ(sim_speedup > 1, pub_speedup > 1) << from.name << " -> " << c.name;
    ++steps;
  }
  EXPECT_GE(steps, 4);
}

}  // namespace
}  // namespace allocsim
