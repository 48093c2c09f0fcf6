// A timing-only run (SimOptions::timing_only) gives exactly the cycles, busy time, stalls, stall pairs and traces
// of the full run, on every corpus program that allocates at -O2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/parse.h"
#include "tests/common/files.h"
#include "sim/simulate.h"
#include "tests/common/sim_checks.h"

namespace allocsim {
namespace {

TEST(SimTimingOnly, EveryCorpusProgramHasTheFullRunsTiming) {
  int compared = 0;
  for (const std::filesystem::path& path : programFiles(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus", true)) {
    const std::string name = path.string();
    Program allocated;
    try {
      DriverOptions o;
      o.optlevel = 2;
      allocated = allocate(parseProgram(readFile(path)), o).program;
    } catch (const std::exception&) {
      continue;  // the allocator refuses it (the broken corpus)
    }
    std::string difference;
    try {
      difference = timingOnlyDifference(allocated);
    } catch (const InputError&) {
      EXPECT_THROW(sim::simulate(allocated), InputError) << name << ": only the timing-only run rejects it";
      continue;  // a program that cannot run has no timing to compare
    }
    EXPECT_EQ(difference, "") << name;
    ++compared;
  }
  EXPECT_GE(compared, 60);
}

TEST(SimTimingOnly, LeavesTheDataUncomputed) {
  DriverOptions d;
  d.optlevel = 2;
  const std::string text = readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/looped_add.nki.txt");
  const Program p = allocate(parseProgram(text), d).program;
  ASSERT_TRUE(sim::timingSkipsData(p));
  sim::SimOptions o;
  const sim::SimResult full = sim::simulate(p, o);
  o.timing_only = true;
  const sim::SimResult fast = sim::simulate(p, o);
  size_t full_bytes = 0, fast_bytes = 0;
  for (const auto& out : full.exec.outputs) full_bytes += out.size();
  for (const auto& out : fast.exec.outputs) fast_bytes += out.size();
  EXPECT_GT(full_bytes, 0u);
  EXPECT_EQ(fast_bytes, 0u);
  EXPECT_EQ(fast.stats.cycles, full.stats.cycles);
}

}  // namespace
}  // namespace allocsim
