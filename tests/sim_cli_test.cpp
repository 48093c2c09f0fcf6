// `allocsim run` as a user types it: the report, the check line, bad timing files, --compare.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/cli_run.h"

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

}  // namespace
}  // namespace allocsim
