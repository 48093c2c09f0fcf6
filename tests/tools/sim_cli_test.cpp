// `allocsim run` as a user types it: the report, the check line, bad timing files, --compare.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/common/cli_run.h"

namespace allocsim {
namespace {

TEST(SimCli, RunPrintsCyclesStallsAndTheCheck) {
  CliRun r = allocsim("run corpus/kernels/matmul_tiled_tiny.nki.txt -O2");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  for (const char* s : {"cycles: ", "PE ", "ACT ", "q0 ", "q1 ", "stall cycles: RAW ", "top stalls:",
                        ": ok: the simulated DRAM outputs and "})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(SimCli, BadTimingFileIsAnInputErrorWithItsLocation) {
  const std::string path = testing::TempDir() + "bad_timing.txt";
  std::ofstream(path) << "# comment\npe.fixed 64\nact.fixed fast\n";
  CliRun r = allocsim("run corpus/kernels/matmul_tiled_tiny.nki.txt --timing " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(path + ":3:11: timing key 'act.fixed' expects a number, got 'fast'"), std::string::npos) << r.out;
  std::ofstream(path) << "pe.speed 3\n";
  r = allocsim("run corpus/kernels/matmul_tiled_tiny.nki.txt --timing " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(path + ":1:1: unknown timing key 'pe.speed'"), std::string::npos) << r.out;
  std::remove(path.c_str());
}

// The cycles of a `run --json` report.
std::string jsonCycles(const CliRun& r) {
  const std::string key = "\"stats\": {\"cycles\": ";
  const size_t at = r.out.find(key);
  if (at == std::string::npos) return "no cycles in: " + r.out;
  return r.out.substr(at + key.size(), r.out.find_first_not_of("0123456789", at + key.size()) - at - key.size());
}

TEST(SimCli, TheTimingTableFollowsTheProgramsArch) {
  const std::string run = "run corpus/kernels/matmul_tiled_tiny.nki.txt -O2 --json --arch gen3";
  const CliRun implicit = allocsim(run), gen3 = allocsim(run + " --timing sim/timing/gen3.txt"),
               gen2 = allocsim(run + " --timing sim/timing/default.txt");
  for (const CliRun* r : {&implicit, &gen3, &gen2}) ASSERT_EQ(r->exit_code, 0) << r->out;
  EXPECT_EQ(jsonCycles(implicit), jsonCycles(gen3));
  EXPECT_NE(jsonCycles(implicit), jsonCycles(gen2));  // every key of the default table replaces gen3's
}

TEST(SimCli, CompareListsEveryLevel) {
  CliRun r = allocsim("run corpus/kernels/pooling_tiny.nki.txt --compare O0,O2,O7");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("-O0    allocation impossible"), std::string::npos) << r.out;  // no reuse cannot fit tiny
  EXPECT_NE(r.out.find("\n-O2 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n-O7 "), std::string::npos) << r.out;
  EXPECT_EQ(allocsim("run corpus/kernels/pooling_tiny.nki.txt --compare O2,fast").exit_code, 2);
}

TEST(SimCli, AllocatedFileIsSimulatedAsGiven) {
  CliRun r = allocsim("run corpus/allocated/spill_reload.nki.txt");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("simulated the allocation in the file"), std::string::npos) << r.out;
  // The forgotten spill: the simulator agrees with the interpreter, and the equivalence check names the bug.
  r = allocsim("run corpus/allocated/spill_forgotten.nki.txt");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("[equivalence]"), std::string::npos) << r.out;
}

// A loop-carried dependence: each iteration's load into `a` goes to the other DMA queue (round robin) and must
// wait for the previous iteration's load into the same bytes (WAW), each a whole transfer (dma.fixed-ns 1300 ns = 1820 cycles
// and more). The pair is one instruction and its earlier iteration: named once, as such.
TEST(SimCli, LoopCarriedStallNamesTheEarlierIteration) {
  const std::string path = testing::TempDir() + "loop_carried.nki.txt";
  std::ofstream(path) << "arch tiny\ndram X [8, 1024] f32 input\ndram Y [8, 128] f32 output\n"
                         "sbuf a [8, 128] f32 @p0+0\nreg n @r0\nloop n = 0, 4, 1 {\n  dma a, X[:, n*128:128]\n}\n"
                         "dma Y, a\n";
  CliRun r = allocsim("run " + path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string line = "WAW: line 7 `dma a, X[:, n*128:128]` waited for itself in an earlier loop iteration";
  const size_t at = r.out.find(line);
  ASSERT_NE(at, std::string::npos) << r.out;
  const uint64_t cycles = std::stoull(r.out.substr(r.out.rfind('\n', at) + 1));
  EXPECT_GE(cycles, 3u * 1820) << r.out;  // three iterations wait for a whole earlier transfer each
  EXPECT_EQ(r.out.find("`dma a, X[:, n*128:128]` waited for line 7"), std::string::npos) << r.out;
  r = allocsim("run " + path + " --json");
  EXPECT_NE(r.out.find("\"cause\": \"WAW\", \"cycles\": " + std::to_string(cycles) +
                       ", \"consumer\": \"line 7 `dma a, X[:, n*128:128]`\", \"producer\": \"line 7 `dma a, "
                       "X[:, n*128:128]`\", \"earlier_iteration\": true"),
            std::string::npos)
      << r.out;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace allocsim
