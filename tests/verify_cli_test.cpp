// `allocsim verify` end to end: the worked examples of the README (corpus/allocated/), exit codes and the
// report's first lines, as a user sees them.
#include <gtest/gtest.h>

#include "tests/cli_run.h"

#include <cstdio>
#include <string>

#include "tools/verify_report.h"

namespace allocsim {
namespace {


TEST(VerifyCli, CorrectHandAllocationPasses) {
  CliRun r = allocsim("verify corpus/allocated/spill_reload.nki.txt --poison-seed 7");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out,
            "corpus/allocated/spill_reload.nki.txt: ok: equivalence, symbolic and placement checks pass "
            "(input seed 1, poison seed 7)\n");
}

TEST(VerifyCli, BrokenAllocationIsNamedByEveryOracle) {
  CliRun r = allocsim("verify corpus/allocated/spill_forgotten.nki.txt --poison-seed 7");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("corpus/allocated/spill_forgotten.nki.txt:16:1: [equivalence] `tt s, x, s, add` reads"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("corpus/allocated/spill_forgotten.nki.txt:16:1: [symbolic] `tt s, x, s, add` reads"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("corpus/allocated/spill_forgotten.nki.txt:14:1: [placement] sbuf tensors 'y' @p0+0 and "
                       "'x' @p0+0 overlap"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAILED: findings by oracle: equivalence 1, symbolic 1, placement 1 (input seed 1, poison "
                       "seed 7; rerun with --poison-seed 7 to reproduce)\n"),
            std::string::npos)
      << r.out;
}

TEST(VerifyCli, JsonReportCarriesTheSameFindings) {
  CliRun r = allocsim("verify corpus/allocated/spill_forgotten.nki.txt --poison-seed 7 --json");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.out.rfind("{\"file\": \"corpus/allocated/spill_forgotten.nki.txt\", \"ok\": false, \"input_seed\": 1, "
                        "\"poison_seed\": 7,",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("{\"oracle\": \"placement\", \"kind\": \"overlap\", \"line\": 14, \"col\": 1, \"step\": 2,"),
            std::string::npos)
      << r.out;
}

TEST(VerifyCli, BadInputAndUsageExitWithTwo) {
  CliRun unplaced = allocsim("verify corpus/kernels/looped_add_tiny.nki.txt");
  EXPECT_EQ(unplaced.exit_code, 2) << unplaced.out;
  EXPECT_NE(unplaced.out.find("corpus/kernels/looped_add_tiny.nki.txt:11:6: sbuf tensor 'a0' has no placement"),
            std::string::npos)
      << unplaced.out;
  EXPECT_EQ(allocsim("verify").exit_code, 2);
  EXPECT_EQ(allocsim("verify corpus/allocated/spill_reload.nki.txt --poison-seed x").exit_code, 2);
  EXPECT_EQ(allocsim("verify corpus/allocated/no_such_file.nki.txt").exit_code, 2);
}

TEST(VerifyCli, PoisonSeedIsPickedAndReportedWhenNotGiven) {
  CliRun r = allocsim("verify corpus/allocated/spill_reload.nki.txt");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("(input seed 1, poison seed "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("poison seed 0)"), std::string::npos) << r.out;
}

TEST(VerifyReport, JsonStringsAreEscaped) {
  EXPECT_EQ(cli::jsonString("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
}

}  // namespace
}  // namespace allocsim
