// gen/reg_set.h against a std::set model, and the generator's DRAM budget (gen --size beyond it is an error).
#include "gen/reg_set.h"

#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>

#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/check.h"

namespace allocsim::gen {
namespace {

TEST(RegSet, KthAndSizeAgreeWithAnOrderedSet) {
  std::mt19937_64 rng(5);
  RegSet s;
  std::set<RegId> model;
  for (int op = 0; op < 20000; ++op) {
    const RegId r = RegId(rng() % (op < 10000 ? 100 : 3000));  // growth past the first capacity too
    const bool member = rng() % 3 != 0;
    s.set(r, member);
    if (member) model.insert(r);
    else model.erase(r);
    ASSERT_EQ(s.size(), model.size());
    ASSERT_EQ(s.contains(r), member);
    if (!model.empty() && op % 7 == 0) {
      const uint32_t k = uint32_t(rng() % model.size());
      ASSERT_EQ(s.kth(k), *std::next(model.begin(), k));
      ASSERT_EQ(s.last(), *model.rbegin());
    }
  }
}

}  // namespace
}  // namespace allocsim::gen

namespace allocsim {
namespace {

TEST(GenDramBudget, ReachedOnlyWhenTheSizeDoesNotFit) {
  GenOptions o;
  o.arch = *archPreset("tiny");
  o.size = 20;
  GenOutcome outcome;
  outcome.dram_budget_reached = true;
  SeededChoices a(1);
  generateProgram(a, o, outcome);
  EXPECT_FALSE(outcome.dram_budget_reached);
  o.size = 5000;  // tiny's 16 MiB dram-limit holds about 1,000 statements (a quarter of it is the budget)
  for (uint64_t seed : {1, 2}) {  // seed 1 once stopped at statement 787 whatever the size, short of the budget
    SeededChoices b(seed);
    generateProgram(b, o, outcome);
    EXPECT_TRUE(outcome.dram_budget_reached) << "seed " << seed;
  }
}

// Sharing DRAM tensors (fit_dram) fits a size whose fresh tensors would need many times the budget: the program is
// well-formed, its DRAM tensors stay under a quarter of dram-limit, and it has the N/2 top-level statements a long
// program is promised.
TEST(GenDramBudget, SharedTensorsFitAnySize) {
  GenOptions o;
  o.arch = *archPreset("tiny");
  o.arch.dram_limit = uint64_t(4) << 20;  // a quarter of the preset's: about 250 statements of fresh tensors
  o.size = 3000;
  o.reuse = 25;
  o.fit_dram = true;
  for (uint64_t seed : {1, 2}) {
    GenOutcome outcome;
    SeededChoices c(seed);
    Program p = generateProgram(c, o, outcome);
    EXPECT_FALSE(outcome.dram_budget_reached) << "seed " << seed;
    EXPECT_GE(outcome.top_level_statements, o.size / 2) << "seed " << seed;
    uint64_t dram = 0;
    for (const Tensor& t : p.tensors)
      if (t.space == Space::Dram) dram += t.totalBytes();
    EXPECT_LT(dram, o.arch.dram_limit / 4) << "seed " << seed;
    EXPECT_TRUE(checkProgram(p).empty()) << "seed " << seed << ": " << checkProgram(p).front().message;
  }
}

}  // namespace
}  // namespace allocsim
