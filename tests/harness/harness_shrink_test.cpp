// harness/shrink.h against predicates whose minimal answer is known independently of the shrinker.
#include <gtest/gtest.h>

#include "gen/generate.h"
#include "harness/shrink.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"

namespace allocsim {
namespace {

bool hasOp(const Program& p, Op op) {
  bool found = false;
  forEachInstruction(p.body, [&](const Instruction& i) { found = found || i.op == op; });
  return found;
}

Program generated(uint64_t seed, uint32_t size) {
  SeededChoices c(seed);
  GenOptions o;
  o.arch = *archPreset("tiny");
  o.size = size;
  return generateProgram(c, o);
}

TEST(HarnessShrink, KeepsThePredicateAndWellFormednessAndRemovesTheRest) {
  // "contains a reduce": the smallest well-formed such program writes the reduce's source (a memset) and
  // reduces it: 2 instructions.
  size_t tried = 0;
  for (uint64_t seed = 1; seed < 200 && tried < 3; ++seed) {
    Program p = generated(seed, 25);
    if (!hasOp(p, Op::Reduce) || instructionCount(p) < 10) continue;
    ++tried;
    uint32_t calls = 0;
    ShrinkResult r = shrinkProgram(p, [&](const Program& c) { return ++calls, hasOp(c, Op::Reduce); });
    EXPECT_TRUE(hasOp(r.program, Op::Reduce));
    EXPECT_TRUE(checkProgram(r.program).empty());
    EXPECT_LE(instructionCount(r.program), 2u) << "seed " << seed << ":\n" << printProgram(r.program);
    EXPECT_EQ(r.attempts, calls);
    EXPECT_GT(r.accepted, 0u);
  }
  EXPECT_EQ(tried, 3u);
}

// "contains a ts": the fused reduction and the second op are not needed, so the shrinker drops both (a one-op ts
// without a reduction is what remains), and the result stays well-formed.
TEST(HarnessShrink, DropsAFusedReductionAndASecondTsOp) {
  const Program p = parseProgram(R"(arch tiny
sbuf x [4, 8] f32
sbuf c [4, 1] f32
sbuf y [4, 8] f32
sbuf r [4, 1] f32
memset x, 1.5
memset c, 2.0
ts y, x, 2.0, mul, c, add, reduce=max -> r
act y, y, exp, reduce=add -> r
)");
  ASSERT_TRUE(checkProgram(p).empty());
  const ShrinkResult r = shrinkProgram(p, [&](const Program& c) { return hasOp(c, Op::TS); });
  EXPECT_TRUE(hasOp(r.program, Op::TS));
  EXPECT_TRUE(checkProgram(r.program).empty());
  forEachInstruction(r.program.body, [&](const Instruction& i) {
    EXPECT_FALSE(hasFusedReduce(i)) << printProgram(r.program);
    EXPECT_FALSE(hasSecondOp(i)) << printProgram(r.program);
  });
}

TEST(HarnessShrink, UnwrapsLoopsAndCutsTripCounts) {
  Program p = parseProgram(R"(arch tiny
dram X [8, 256] u32 input
dram Z [8, 256] u32 output
sbuf x [8, 64] u32
reg n
loop n = 0, 4, 1 {
  dma x, X[:, n*64 : 64]
  ts x, x, 3, mul
  dma Z[:, n*64 : 64], x
}
)");
  // "multiplies by a constant inside or outside a loop": no loop is needed, and x can be memset instead of
  // loaded: 2 instructions.
  ShrinkResult r = shrinkProgram(p, [&](const Program& c) { return hasOp(c, Op::TS); });
  EXPECT_FALSE(hasOp(r.program, Op::Loop));
  EXPECT_TRUE(checkProgram(r.program).empty());
  EXPECT_EQ(instructionCount(r.program), 2u);
  // "has a loop": one iteration is enough, and at most one instruction of the body stays.
  ShrinkResult l = shrinkProgram(p, [&](const Program& c) { return hasOp(c, Op::Loop); });
  ASSERT_EQ(l.program.body.size(), 1u);
  EXPECT_EQ(l.program.body[0].hi - l.program.body[0].lo, 1);
  EXPECT_LE(instructionCount(l.program), 2u);
}

TEST(HarnessShrink, AProgramThatNeverFailsAgainStaysAsItWas) {
  Program p = generated(3, 10);
  ShrinkResult r = shrinkProgram(p, [](const Program&) { return false; });
  EXPECT_EQ(r.program, p);
  EXPECT_EQ(r.accepted, 0u);
}

TEST(HarnessShrink, StopsAtItsBudget) {
  Program p = generated(5, 30);
  ShrinkOptions o;
  o.max_attempts = 7;
  ShrinkResult r = shrinkProgram(p, [](const Program&) { return true; }, o);
  EXPECT_EQ(r.attempts, 7u);
  EXPECT_TRUE(r.budget_exhausted);
}

}  // namespace
}  // namespace allocsim
