// The allocator fuzz targets skip an input that decodes to a case their process already ran (fuzz/seen_programs.h,
// fuzz/fuzz_program.h ranBefore). Checked against a plain set of the cases' full text, knob and seed: a skip is
// allowed only for a case that ran before, and with a table large enough to remember them all, every repeat is
// skipped, except an input identical to the one just before it (libFuzzer's leak check reruns an input).
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "fuzz/fuzz_program.h"
#include "fuzz/seen_programs.h"
#include "gen/choices.h"

namespace allocsim {
namespace {

std::vector<uint8_t> randomBytes(SeededChoices& c, size_t n) {
  std::vector<uint8_t> data(n);
  for (uint8_t& b : data) b = uint8_t(c.below(256));
  return data;
}

std::string caseKey(const fuzz::FuzzProgram& in) {
  return printProgram(in.program) + "|" + std::to_string(in.knob) + "|" + std::to_string(in.poison_seed);
}

// Short random inputs and mutations of them (a byte changed, a byte appended: what libFuzzer does), many of which
// decode to the same case.
std::vector<std::vector<uint8_t>> mutatedInputs(uint64_t seed, int n) {
  SeededChoices c(seed);
  std::vector<std::vector<uint8_t>> out;
  for (int i = 0; i < n; ++i) {
    if (out.empty() || c.chance(30)) {
      out.push_back(randomBytes(c, 4 + c.below(60)));
      continue;
    }
    std::vector<uint8_t> m = out[c.below(out.size())];
    if (c.chance(50)) m.push_back(uint8_t(c.below(256)));
    else m[c.below(m.size())] = uint8_t(c.below(256));
    out.push_back(std::move(m));
  }
  return out;
}

TEST(SeenPrograms, SkipsExactlyTheRepeats) {
  const Arch arch = fuzz::fuzzArch({});
  fuzz::SeenPrograms seen(true);
  std::set<std::string> ran;
  int repeats = 0;
  std::vector<uint8_t> previous;
  for (const std::vector<uint8_t>& data : mutatedInputs(20261205, 600)) {
    const fuzz::FuzzProgram in = fuzz::decodeProgram(data.data(), data.size(), arch);
    const bool repeat = !ran.insert(caseKey(in)).second && data != previous;
    repeats += repeat;
    EXPECT_EQ(fuzz::ranBefore(in, seen), repeat) << printProgram(in.program);
    previous = data;
  }
  // The mutations must give both kinds, or this test says nothing.
  EXPECT_GT(repeats, 50);
  EXPECT_GT(int(ran.size()), 200);
  EXPECT_EQ(seen.executions(), 600u);
  EXPECT_EQ(seen.skipped(), uint64_t(repeats));
}

TEST(SeenPrograms, AByteTheDecoderNeverReadsGivesARepeat) {
  const Arch arch = fuzz::fuzzArch({});
  SeededChoices c(7);
  fuzz::SeenPrograms seen(true);
  int checked = 0;
  for (int i = 0; i < 50; ++i) {
    // 512 bytes: more than a program of kFuzzLimits.max_statements statements reads.
    std::vector<uint8_t> data = randomBytes(c, 512);
    const fuzz::FuzzProgram first = fuzz::decodeProgram(data.data(), data.size(), arch);
    data.back() ^= 0x5a;
    const fuzz::FuzzProgram second = fuzz::decodeProgram(data.data(), data.size(), arch);
    if (caseKey(first) != caseKey(second)) continue;  // that byte was read after all
    ++checked;
    EXPECT_FALSE(fuzz::ranBefore(first, seen));
    EXPECT_TRUE(fuzz::ranBefore(second, seen));
  }
  EXPECT_GT(checked, 40);
}

TEST(SeenPrograms, ASmallTableForgetsButNeverSkipsANewCase) {
  const Arch arch = fuzz::fuzzArch({});
  fuzz::SeenPrograms seen(true, /*slot_bits=*/3);
  std::set<std::string> ran;
  int repeats = 0;
  for (const std::vector<uint8_t>& data : mutatedInputs(99, 600)) {
    const fuzz::FuzzProgram in = fuzz::decodeProgram(data.data(), data.size(), arch);
    const bool repeat = !ran.insert(caseKey(in)).second;
    repeats += repeat;
    if (fuzz::ranBefore(in, seen)) {
      EXPECT_TRUE(repeat) << printProgram(in.program);
    }
  }
  // Eight slots remember few of the hundreds of cases: some repeats run again.
  EXPECT_LT(seen.skipped(), uint64_t(repeats));
}

// 512 random bytes (more than a program of kFuzzLimits.max_statements statements reads), and the same with bytes
// appended: two inputs of one case.
struct TwoInputsOfOneCase {
  fuzz::FuzzProgram first, second;
};
TwoInputsOfOneCase twoInputsOfOneCase() {
  const Arch arch = fuzz::fuzzArch({});
  SeededChoices c(11);
  std::vector<uint8_t> data = randomBytes(c, 512);
  TwoInputsOfOneCase out{fuzz::decodeProgram(data.data(), data.size(), arch), {}};
  data.resize(600, 9);
  out.second = fuzz::decodeProgram(data.data(), data.size(), arch);
  return out;
}

TEST(SeenPrograms, TheSameInputAfterARunThatLeftBlocksRunsAgain) {
  const TwoInputsOfOneCase two = twoInputsOfOneCase();
  ASSERT_EQ(caseKey(two.first), caseKey(two.second));
  fuzz::SeenPrograms seen(true);
  EXPECT_FALSE(fuzz::ranBefore(two.first, seen, true));
  EXPECT_FALSE(fuzz::ranBefore(two.first, seen, true));  // libFuzzer's leak check runs it again
  EXPECT_TRUE(fuzz::ranBefore(two.second, seen, true));   // the same case from other bytes
  EXPECT_TRUE(fuzz::ranBefore(two.first, seen, true));    // no longer right after itself
  EXPECT_EQ(seen.skipped(), 2u);
  EXPECT_EQ(seen.leakCheckReruns(), 1u);  // reported by the process: libFuzzer counts them as executions
  EXPECT_EQ(seen.unchangedInputs(), 0u);
}

TEST(SeenPrograms, TheSameInputAfterARunThatFreedEverythingIsARepeat) {
  const TwoInputsOfOneCase two = twoInputsOfOneCase();
  fuzz::SeenPrograms seen(true);
  EXPECT_FALSE(fuzz::ranBefore(two.first, seen, false));
  EXPECT_TRUE(fuzz::ranBefore(two.first, seen, false));  // a mutation that changed nothing: no leak check follows
  EXPECT_FALSE(fuzz::ranBefore(two.first, seen, true));  // the same again, now after a run that left blocks
  EXPECT_EQ(seen.skipped(), 1u);
  EXPECT_EQ(seen.unchangedInputs(), 1u);
  EXPECT_EQ(seen.leakCheckReruns(), 1u);
}

// Without a sanitizer allocator (this test binary) nothing counts the heap: every execution is taken to have left
// blocks, so the input just run always runs again, never a skip that could hide a leak check.
TEST(SeenPrograms, WithoutHeapCountsTheInputJustRunRunsAgain) {
  const TwoInputsOfOneCase two = twoInputsOfOneCase();
  fuzz::SeenPrograms seen(true);
  EXPECT_FALSE(fuzz::ranBefore(two.first, seen));
  EXPECT_FALSE(fuzz::ranBefore(two.first, seen));
  EXPECT_EQ(seen.leakCheckReruns(), 1u);
}

TEST(SeenPrograms, OffRunsEverything) {
  const TwoInputsOfOneCase two = twoInputsOfOneCase();
  fuzz::SeenPrograms seen(false);
  EXPECT_FALSE(fuzz::ranBefore(two.first, seen));
  EXPECT_FALSE(fuzz::ranBefore(two.second, seen));
  EXPECT_FALSE(fuzz::ranBefore(two.first, seen));
  EXPECT_EQ(seen.skipped(), 0u);
}

}  // namespace
}  // namespace allocsim
