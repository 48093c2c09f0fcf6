// allocsim gen's default mix: without --conditionals the programs hold `if` blocks and loops bounded by the
// enclosing loops' registers, and gen --stats counts them as the programs themselves show.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "ir/parse.h"
#include "tests/common/cli_run.h"

namespace allocsim {
namespace {

constexpr int kSeeds = 20;

// The percentage gen --stats prints on the line of `feature` ("op if   35.0%   0.40").
double statsPercent(const std::string& table, const std::string& feature) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(feature + " ", 0) == 0) {
      const size_t pct = line.find('%');
      const size_t start = line.find_last_of(' ', pct) + 1;
      return std::stod(line.substr(start, pct - start));
    }
  ADD_FAILURE() << "no line for '" << feature << "' in\n" << table;
  return -1;
}

TEST(CliGen, DefaultMixHasIfBlocksAndRegisterBoundedLoopsAsStatsCount) {
  int with_if = 0, with_bound = 0;
  for (int seed = 0; seed < kSeeds; ++seed) {
    const CliRun g = allocsim("gen --seed " + std::to_string(seed) + " --size 30", "2>/dev/null");
    ASSERT_EQ(g.exit_code, 0) << "seed " << seed;
    const Program p = parseProgram(g.out);
    bool has_if = false, has_bound = false;
    forEachInstruction(p.body, [&](const Instruction& i) {
      has_if = has_if || i.op == Op::If;
      has_bound = has_bound || hasRegisterBound(i);
    });
    with_if += has_if;
    with_bound += has_bound;
  }
  // A fifth of the statements in loops draw a conditional form: most programs of 30 statements hold each kind.
  EXPECT_GE(with_if * 4, kSeeds) << with_if << " of " << kSeeds << " programs with an if block";
  EXPECT_GE(with_bound * 4, kSeeds) << with_bound << " of " << kSeeds << " programs with a register-bounded loop";
  const CliRun stats = allocsim("gen --stats --seeds " + std::to_string(kSeeds) + " --size 30", "2>/dev/null");
  ASSERT_EQ(stats.exit_code, 0);
  EXPECT_DOUBLE_EQ(statsPercent(stats.out, "op if"), 100.0 * with_if / kSeeds);
  EXPECT_DOUBLE_EQ(statsPercent(stats.out, "loops with a register bound"), 100.0 * with_bound / kSeeds);
  // --conditionals 0 gives the programs of earlier versions: none of either.
  const CliRun none = allocsim("gen --stats --seeds " + std::to_string(kSeeds) + " --size 30 --conditionals 0",
                               "2>/dev/null");
  EXPECT_DOUBLE_EQ(statsPercent(none.out, "op if"), 0.0);
  EXPECT_DOUBLE_EQ(statsPercent(none.out, "loops with a register bound"), 0.0);
}

}  // namespace
}  // namespace allocsim
