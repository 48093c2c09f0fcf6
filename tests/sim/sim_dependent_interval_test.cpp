// The minimum dependent interval (docs/simulator.md "Timing", sim/timing/default.txt): a chain of instructions that
// each read the one-element output of the one before runs at the interval the NKI documentation gives, while
// independent instructions keep their engine busy back to back at their cost. The expected cycles are worked out
// here from the published figures, not taken from the model:
//   - ScalarE: back-to-back one-element activations, each reading the previous one's output, start "around 189 ns
//     (264 ScalarE cycles on NC-v2)" apart (NKI performance guide, "Opt #5a"); ScalarE runs at 1.4 GHz, the
//     reporting clock (architecture guide, engine table), so 264 reporting cycles per link;
//   - VectorE: a dependent instruction costs 100 engine cycles more than MIN_II = 64 (architecture guide, "Vector
//     Engine"; ISA cost formulas), 164 VectorE cycles at 1.12 GHz: 164 x 1.4 / 1.12 = 205 reporting cycles;
//   - a one-element instruction on its own costs MIN_II = 64 engine cycles (ISA): 64 reporting cycles on ScalarE;
//   - the memset that writes the chain's first input runs on GpSimd: GPSIMD_START = 150 plus one cycle per element
//     (ISA iota / affine_select), 151 reporting cycles at 1.4 GHz.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/parse.h"
#include "sim/simulate.h"
#include "tests/common/sim_checks.h"

namespace allocsim {
namespace {

constexpr uint64_t kMemset = 150 + 1;        // GpSimd, 1.4 GHz: GPSIMD_START + N, N = 1
constexpr uint64_t kActLink = 264;           // ScalarE, 1.4 GHz: the performance guide's dependent interval
constexpr uint64_t kDveLink = 205;           // VectorE: (64 + 100) cycles at 1.12 GHz, in 1.4 GHz cycles
constexpr uint64_t kActMinII = 64;           // ScalarE: MIN_II
constexpr double kReportGhz = 1.4;           // the reporting clock

// A memset of x, then `n` instructions `op` (act or ts), each reading the output of the one before: x to y, y to
// x, ... Each tensor in a place of its own.
std::string chain(uint32_t n, uint32_t elements, const std::string& op) {
  const std::string shape = " [128, " + std::to_string(elements) + "] f32";
  std::string text = "arch gen2\nsbuf x" + shape + " @p0+0\nsbuf y" + shape + " @p0+4096\nmemset x, 0.5\n";
  for (uint32_t i = 0; i < n; ++i) {
    const char* from = i % 2 ? "y" : "x";
    const char* to = i % 2 ? "x" : "y";
    text += op == "act" ? std::string("act ") + to + ", " + from + ", exp\n"
                        : std::string("ts ") + to + ", " + from + ", 0.5, mul\n";
  }
  return text;
}

struct ChainRun {
  sim::SimResult result;
  std::vector<sim::TraceSlice> slices;  // of engine `track`, in time order
};

ChainRun simulate(const std::string& text, uint32_t track) {
  const Program p = parseProgram(text);
  sim::Trace trace;
  sim::SimOptions o;
  o.trace = &trace;
  ChainRun r{expectSimulatorMatchesInterpreter(p, 1, o), {}};
  for (const sim::TraceSlice& s : trace.slices)
    if (s.track == track) r.slices.push_back(s);
  return r;
}

TEST(SimDependentInterval, OneElementScalarChainRunsAtThePublished189ns) {
  constexpr uint32_t kLinks = 8;
  const ChainRun r = simulate(chain(kLinks, 1, "act"), uint32_t(Engine::ACT));
  ASSERT_EQ(r.slices.size(), kLinks);
  EXPECT_EQ(r.slices[0].start, kMemset);
  for (uint32_t i = 1; i < kLinks; ++i) {
    EXPECT_EQ(r.slices[i].start - r.slices[i - 1].start, kActLink) << "link " << i;
    // Each keeps ScalarE busy for its cost only: MIN_II.
    EXPECT_EQ(r.slices[i].end - r.slices[i].start, kActMinII);
  }
  // The last one's result is complete a dependent interval after its start.
  EXPECT_EQ(r.result.stats.cycles, kMemset + kLinks * kActLink);
  const double link_ns = double(kActLink) / kReportGhz;
  EXPECT_LT(std::abs(link_ns - 189.0), 1.0) << link_ns;
}

TEST(SimDependentInterval, OneElementVectorChainPaysTheStaticOverhead) {
  constexpr uint32_t kLinks = 6;
  const ChainRun r = simulate(chain(kLinks, 1, "ts"), uint32_t(Engine::DVE));
  ASSERT_EQ(r.slices.size(), kLinks);
  EXPECT_EQ(r.slices[0].start, kMemset);
  for (uint32_t i = 1; i < kLinks; ++i) EXPECT_EQ(r.slices[i].start - r.slices[i - 1].start, kDveLink) << i;
  EXPECT_EQ(r.result.stats.cycles, kMemset + kLinks * kDveLink);
}

TEST(SimDependentInterval, IndependentInstructionsRunAtTheirCost) {
  // Six one-element activations of the same source into six destinations: nothing depends on an activation, so
  // ScalarE starts one every MIN_II.
  std::string text = "arch gen2\nsbuf x [128, 1] f32 @p0+0\n";
  for (int i = 0; i < 6; ++i) text += "sbuf y" + std::to_string(i) + " [128, 1] f32 @p0+" + std::to_string(64 * (i + 1)) + "\n";
  text += "memset x, 0.5\n";
  for (int i = 0; i < 6; ++i) text += "act y" + std::to_string(i) + ", x, exp\n";
  const ChainRun r = simulate(text, uint32_t(Engine::ACT));
  ASSERT_EQ(r.slices.size(), 6u);
  for (size_t i = 1; i < r.slices.size(); ++i) EXPECT_EQ(r.slices[i].start - r.slices[i - 1].start, kActMinII);
  // The last one's result completes a dependent interval after its start.
  EXPECT_EQ(r.result.stats.cycles, kMemset + 5 * kActMinII + kActLink);
}

TEST(SimDependentInterval, ALongInstructionHidesIt) {
  // 512 elements per partition: an activation costs max(64, 512) = 512 ScalarE cycles, more than the dependent
  // interval, so a chain of them runs at that cost.
  constexpr uint32_t kLinks = 4;
  const ChainRun r = simulate(chain(kLinks, 512, "act"), uint32_t(Engine::ACT));
  ASSERT_EQ(r.slices.size(), kLinks);
  const uint64_t memset = 150 + 512;  // GPSIMD_START + N
  EXPECT_EQ(r.slices[0].start, memset);
  for (uint32_t i = 1; i < kLinks; ++i) EXPECT_EQ(r.slices[i].start - r.slices[i - 1].start, 512u);
  EXPECT_EQ(r.result.stats.cycles, memset + kLinks * 512);
}

TEST(SimDependentInterval, AnotherEngineWaitsForTheResultToo) {
  // A VectorE ts reading a one-element activation's output starts a ScalarE dependent interval after the
  // activation's start, not when ScalarE is free again.
  const ChainRun r = simulate(
      "arch gen2\nsbuf x [128, 1] f32 @p0+0\nsbuf y [128, 1] f32 @p0+64\nsbuf z [128, 1] f32 @p0+128\n"
      "memset x, 0.5\nact y, x, exp\nts z, y, 0.5, mul\n",
      uint32_t(Engine::DVE));
  ASSERT_EQ(r.slices.size(), 1u);
  EXPECT_EQ(r.slices[0].start, kMemset + kActLink);
  EXPECT_EQ(r.result.stats.cycles, kMemset + kActLink + kDveLink);
}

}  // namespace
}  // namespace allocsim
