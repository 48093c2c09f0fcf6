// The simulator's timing invariants (sim/timing_invariants.h): the checker flags overlapping slices on one engine or
// DMA queue and a ring over its slots (traces made by hand), and every tiny corpus kernel's run keeps them.
#include "sim/timing_invariants.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/parse.h"

namespace allocsim {
namespace {

const char kTwoActs[] = R"(arch tiny
dram X [8, 16] f32 input
sbuf a [8, 16] f32 @p0+0
sbuf b [8, 16] f32 @p0+64
act a, a, abs
act b, b, abs
)";

TEST(TimingInvariants, FlagsOverlapOnAnEngineAndAFullRing) {
  const Program p = parseProgram(kTwoActs);
  const Instruction& first = p.body[0];
  const Instruction& second = p.body[1];
  sim::Trace ok;
  ok.slices = {{1, 0, 240, &first}, {1, 240, 480, &second}, {2, 100, 200, &second}};  // ACT in turn; DVE apart
  ok.ring_occupancy = {{0, 10, 1}, {0, 20, 4}, {0, 30, 3}};                       // tiny: 4 slots a ring
  EXPECT_TRUE(sim::timingInvariantViolations(p, ok).empty());

  sim::Trace overlap = ok;
  overlap.slices[1].start = 239;  // the second act starts a cycle before the first ends
  const auto broken = sim::timingInvariantViolations(p, overlap);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_NE(broken[0].find("ACT"), std::string::npos) << broken[0];
  EXPECT_NE(broken[0].find("starts at cycle 239"), std::string::npos) << broken[0];

  sim::Trace full = ok;
  full.ring_occupancy.push_back({1, 40, 5});
  const auto ring = sim::timingInvariantViolations(p, full);
  ASSERT_EQ(ring.size(), 1u);
  EXPECT_NE(ring[0].find("5 transfers on a ring of 4 slots"), std::string::npos) << ring[0];
}

TEST(TimingInvariants, HoldOnEveryTinyCorpusKernel) {
  int runs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels")) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 14 || name.substr(name.size() - 13) != "_tiny.nki.txt") continue;  // the small machine's
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const Program source = parseProgram(ss.str());
    for (int level : {0, 2, 8}) {
      DriverOptions d;
      d.optlevel = level;
      Program allocated;
      try {
        allocated = allocate(source, d).program;
      } catch (const AllocError&) {
        continue;
      }
      sim::Trace trace;
      sim::SimOptions o;
      o.trace = &trace;
      sim::simulate(allocated, o);
      const auto broken = sim::timingInvariantViolations(allocated, trace);
      EXPECT_TRUE(broken.empty()) << entry.path() << " -O" << level << ": " << broken.front();
      ++runs;
    }
  }
  EXPECT_GT(runs, 6);
}

}  // namespace
}  // namespace allocsim
