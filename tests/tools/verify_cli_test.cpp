// `allocsim verify` end to end: the worked examples of the README (corpus/allocated/), exit codes and the
// report's first lines, as a user sees them.
#include <gtest/gtest.h>

#include "tests/common/cli_run.h"

#include <algorithm>
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
            "(input seed 1, poison seed 7; reference recovered from the allocated program)\n");
}

TEST(VerifyCli, BrokenAllocationIsNamedByEveryOracle) {
  CliRun r = allocsim("verify corpus/allocated/spill_forgotten.nki.txt --poison-seed 7");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "corpus/allocated/spill_forgotten.nki.txt:16:1: [equivalence] `tt s, x, s, add` reads"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "corpus/allocated/spill_forgotten.nki.txt:16:1: [symbolic] `tt s, x, s, add` reads"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "corpus/allocated/spill_forgotten.nki.txt:14:1: [placement] sbuf tensors 'y' @p0+0 and "
                       "'x' @p0+0 overlap"))
      << r.out;
  EXPECT_TRUE(
      contains(r.out,
               "FAILED: findings by oracle: equivalence 1, symbolic 1, placement 1 (input seed 1, poison "
               "seed 7; reference recovered from the allocated program; rerun with --poison-seed 7 to reproduce)\n"))
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
  EXPECT_TRUE(
      contains(r.out, "{\"oracle\": \"placement\", \"kind\": \"overlap\", \"line\": 14, \"col\": 1, \"step\": 2,"))
      << r.out;
}

// `verify A --original B` compares A's recovered program with B: each of these exits 1 naming the
// first differing instruction, where the recovered-only check (no --original) would pass.
TEST(VerifyCli, OriginalThatDiffersIsAFinding) {
  const std::string dir = ::testing::TempDir();
  const std::string orig = dir + "/allocsim_original.nki.txt";
  const std::string other = dir + "/allocsim_original_other.nki.txt";
  const std::string alloc = "corpus/liveness/attention_psum_shared_tiny.allocated.nki.txt";
  auto write = [](const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  };
  auto read = [](const std::string& path) {
    std::string text;
    FILE* f = std::fopen((std::string(ALLOCSIM_SOURCE_DIR) + "/" + path).c_str(), "r");
    if (!f) return text;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
    return text;
  };
  const std::string kernel = read("corpus/liveness/attention_psum_shared_tiny.nki.txt");
  ASSERT_FALSE(kernel.empty());
  CliRun same = allocsim("verify " + alloc + " --original corpus/liveness/attention_psum_shared_tiny.nki.txt "
                         "--poison-seed 3");
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_NE(same.out.find("reference: the original, matched instruction for instruction"), std::string::npos);

  // An unrelated kernel.
  CliRun unrelated = allocsim("verify " + alloc + " --original corpus/kernels/looped_add_tiny.nki.txt");
  EXPECT_EQ(unrelated.exit_code, 1) << unrelated.out;
  EXPECT_TRUE(contains(unrelated.out, "[equivalence] the recovered program does not declare the original's tensors"))
      << unrelated.out;
  // The original with `add` where the allocated program has `mul` (its first `ts ... mul`).
  std::string changed = kernel;
  changed.replace(changed.find("0.35355339059327373, mul"), 24, "0.35355339059327373, add");
  write(orig, changed);
  CliRun alu = allocsim("verify " + alloc + " --original " + orig);
  EXPECT_EQ(alu.exit_code, 1) << alu.out;
  EXPECT_TRUE(contains(alu.out,
                       "[equivalence] original instruction #12 of the recovered program is `ts p32, s0, "
                       "0.35355339059327373, mul` where the original has `ts p32, s0, 0.35355339059327373, add`"))
      << alu.out;
  // The original with one more instruction at the end.
  write(other, kernel + "memset l_t, 0.0\n");
  CliRun added = allocsim("verify " + alloc + " --original " + other);
  EXPECT_EQ(added.exit_code, 1) << added.out;
  EXPECT_TRUE(contains(added.out, "is the end of the program where the original has `memset l_t, 0.0`")) << added.out;
  std::remove(orig.c_str());
  std::remove(other.c_str());
}

TEST(VerifyCli, BadInputAndUsageExitWithTwo) {
  CliRun unplaced = allocsim("verify corpus/kernels/looped_add_tiny.nki.txt");
  EXPECT_EQ(unplaced.exit_code, 2) << unplaced.out;
  EXPECT_TRUE(contains(unplaced.out, "corpus/kernels/looped_add_tiny.nki.txt:11:6: sbuf tensor 'a0' has no placement"))
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

// One address for 40 tensors: an overlap per pair (780 findings). The text report shows the first 20 groups and
// counts the rest; --all and --json give all of them.
TEST(VerifyCli, ManyFindingsAreCappedAndCountedAndAllOfThemOnRequest) {
  const std::string path = ::testing::TempDir() + "verify_many_overlaps.nki.txt";
  {
    std::string text = "arch tiny\n";
    const int n = 40;
    for (int i = 0; i < n; ++i) text += "sbuf t" + std::to_string(i) + " [8, 4] f32 @p0+0\n";
    for (int i = 0; i < n; ++i) text += "memset t" + std::to_string(i) + ", " + std::to_string(i) + "\n";
    for (int i = 0; i + 1 < n; ++i)
      text += "tt t" + std::to_string(i) + ", t" + std::to_string(i) + ", t" + std::to_string(i + 1) + ", add\n";
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const size_t pairs = 40 * 39 / 2;
  CliRun capped = allocsim("verify " + path + " --poison-seed 5");
  EXPECT_EQ(capped.exit_code, 1);
  size_t shown = 0;  // lines "PATH:LINE:COL: [oracle] ...": a group's first finding
  for (size_t at = 0; at < capped.out.size();) {
    const size_t nl = std::min(capped.out.find('\n', at), capped.out.size());
    const std::string line = capped.out.substr(at, nl - at);
    if (line.rfind(path + ":", 0) == 0 && line.find(": [") != std::string::npos) ++shown;
    at = nl + 1;
  }
  EXPECT_EQ(shown, 20u) << capped.out;
  EXPECT_TRUE(contains(capped.out, "more groups not shown (--all prints every group, --json every finding)"))
      << capped.out;
  EXPECT_TRUE(contains(capped.out, "placement " + std::to_string(pairs) + " ")) << capped.out;

  CliRun all = allocsim("verify " + path + " --poison-seed 5 --all");
  EXPECT_EQ(count(all.out, "[placement] sbuf tensors"), pairs);
  EXPECT_EQ(all.out.find("not shown"), std::string::npos);
  CliRun json = allocsim("verify " + path + " --poison-seed 5 --json");
  EXPECT_EQ(count(json.out, "\"kind\": \"overlap\""), pairs);
  std::remove(path.c_str());
}

TEST(VerifyReport, FindingsOfOneKindAboutTheSameTensorsFormOneGroup) {
  auto overlap = [](uint32_t a, uint32_t b) {
    Finding f;
    f.kind = FindingKind::Overlap;
    f.message = "overlap";
    f.region.kind = FindingRegion::Kind::Sbuf;
    f.region.items = {a, b};
    return f;
  };
  VerifyReport r;
  r.findings = {overlap(1, 2), overlap(2, 1), overlap(1, 3), overlap(1, 2)};
    const std::string text = cli::verifyReportText(r, "f", 1);
  EXPECT_EQ(text.rfind("f: [placement] overlap\n    and 2 more [placement] overlap findings about the same tensors\n"
                       "f: [placement] overlap\nf: FAILED",
                       0),
            0u)
      << text;
  const std::string capped = cli::verifyReportText(r, "f", 1, 1);
  EXPECT_NE(capped.find("f: 1 more finding in 1 more group not shown"), std::string::npos) << capped;
}

TEST(VerifyReport, JsonStringsAreEscaped) {
  EXPECT_EQ(cli::jsonString("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
}

}  // namespace
}  // namespace allocsim
