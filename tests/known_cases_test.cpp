// The allocator fuzz targets keep the cases they checked in full (fuzz/known_cases.h): an input that differs from one
// of them only in its poison seed runs the allocated program under its own poison against the kept reference run,
// and nothing else. Checked here: what the key holds (everything but the poison), that a hit still runs the
// equivalence oracle under the new seed (a poison-dependent bug is found on a hit), refusals, forgetting, and off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/no_reuse.h"
#include "fuzz/fuzz_program.h"
#include "fuzz/known_cases.h"
#include "gen/choices.h"
#include "ir/parse.h"

namespace allocsim {
namespace {

fuzz::FuzzProgram decoded(uint64_t seed) {
  SeededChoices c(seed);
  std::vector<uint8_t> data(48);
  for (uint8_t& b : data) b = uint8_t(c.below(256));
  return fuzz::decodeProgram(data.data(), data.size(), fuzz::fuzzArch({}));
}

// The same case with another poison seed (and the decisions drawn from it so far drawn again, as a target would).
fuzz::FuzzProgram withPoison(const fuzz::FuzzProgram& in, uint64_t poison) {
  fuzz::FuzzProgram out = in;
  out.poison_seed = poison;
  out.seed_decisions = 0;
  out.keyed = false;
  if (in.seed_decisions & fuzz::FuzzProgram::kPsumHeuristic) out.psumHeuristic();
  if (in.seed_decisions & fuzz::FuzzProgram::kSbufHeuristic) out.sbufHeuristic();
  return out;
}

TEST(KnownCases, TheKeyIsTheProgramKnobAndTheSeedsDecisionsDrawn) {
  const fuzz::FuzzProgram a = decoded(1), b = decoded(2);
  ASSERT_NE(a.program_digest, b.program_digest);
  EXPECT_NE(fuzz::caseKey(a), fuzz::caseKey(b));
  // No decision drawn from the seed: any other poison is the same case.
  EXPECT_EQ(fuzz::caseKey(a), fuzz::caseKey(withPoison(a, a.poison_seed + 1)));
  fuzz::FuzzProgram knob = a;
  knob.knob ^= 1;
  EXPECT_NE(fuzz::caseKey(a), fuzz::caseKey(knob));
  // The PSUM order drawn: seeds that give another order are other cases, those that give the same one are not.
  fuzz::FuzzProgram drawn = decoded(1);
  const uint32_t order = drawn.psumHeuristic();
  int same = 0, other = 0;
  for (uint64_t seed = 1; seed < 200; ++seed) {
    const fuzz::FuzzProgram s = withPoison(drawn, seed);
    const bool equal_order = withPoison(drawn, seed).psumHeuristic() == order;
    EXPECT_EQ(fuzz::caseKey(s) == fuzz::caseKey(drawn), equal_order) << seed;
    (equal_order ? same : other)++;
  }
  EXPECT_GT(same, 10);
  EXPECT_GT(other, 10);
  // Drawing a decision the key has not got would let two allocations share a key: the target aborts.
  fuzz::FuzzProgram late = decoded(3);
  fuzz::caseKey(late);
  EXPECT_DEATH(late.sbufHeuristic(), "after the case key was made");
  fuzz::FuzzProgram again = decoded(3);
  again.psumHeuristic();
  fuzz::caseKey(again);
  again.psumHeuristic();  // one in the key may be drawn again
}

TEST(KnownCases, AnotherPoisonSeedRunsOnlyTheOracleThatDependsOnIt) {
  fuzz::KnownCases known(true);
  fuzz::FuzzProgram in;
  for (uint64_t seed = 1;; ++seed) {  // a program the no-reuse placer fits on tiny
    in = decoded(seed);
    try {
      fuzz::requireCorrect("test", in, placeNoReuse(in.program), known);
      break;
    } catch (const AllocError&) {
      ASSERT_LT(seed, 100u);
    }
  }
  EXPECT_TRUE(fuzz::checkedBefore("test", withPoison(in, in.poison_seed + 1), known));
  EXPECT_TRUE(fuzz::checkedBefore("test", withPoison(in, in.poison_seed + 2), known));
  EXPECT_EQ(known.reruns(), 2u);
  fuzz::FuzzProgram knob = in;
  knob.knob ^= 1;
  knob.keyed = false;
  EXPECT_FALSE(fuzz::checkedBefore("test", knob, known));
  // A refusal is kept too.
  fuzz::FuzzProgram refused = decoded(1000);
  EXPECT_FALSE(fuzz::checkedBefore("test", refused, known));
  fuzz::refused(refused, known);
  EXPECT_TRUE(fuzz::checkedBefore("test", withPoison(refused, 5), known));
  // Off, nothing is kept.
  fuzz::KnownCases off(false);
  fuzz::refused(refused, off);
  EXPECT_FALSE(fuzz::checkedBefore("test", withPoison(refused, 5), off));
}

// A hit runs the allocated program under its own poison: an allocation whose physical run reads bytes nothing wrote
// (a reload that was dropped, its tensor placed on fresh bytes) is found on a hit, as on a full check.
TEST(KnownCases, AHitFindsABugThatDependsOnThePoison) {
  const std::string original = "arch tiny\ndram A [8, 64] u32 input\ndram B [8, 64] u32 input\n"
                               "dram C [8, 64] u32 output\nsbuf a [8, 64] u32\nsbuf b [8, 64] u32\nsbuf c [8, 64] u32\n\n"
                               "dma a, A\ndma b, B\nts c, b, 1, add\ntt c, a, c, add\ndma C, c\n";
  const std::string broken = "arch tiny\ndram A [8, 64] u32 input\ndram B [8, 64] u32 input\n"
                             "dram C [8, 64] u32 output\nsbuf a [8, 64] u32 @p0+0\n"
                             "dram a_spill [8, 64] u32 @0 !spill(a)\nsbuf b [8, 64] u32 @p0+0\n"
                             "sbuf a_Reload1 [8, 64] u32 @p0+1024 !reload(a)\nsbuf c [8, 64] u32 @p0+512\n\n"
                             "dma a, A\ndma a_spill, a !spill\ndma b, B\nts c, b, 1, add\n"
                             "tt c, a_Reload1, c, add\ndma C, c\n";
  fuzz::KnownCases known(true);
  fuzz::FuzzProgram in;
  in.program = parseProgram(original);
  in.program_digest = 42;
  fuzz::KnownCase* c = known.keep(fuzz::caseKey(in));
  ASSERT_NE(c, nullptr);
  c->original = in.program;
  c->allocated = parseProgram(broken);
  c->equivalence = std::make_unique<EquivalenceOracle>(c->allocated, EquivalenceOptions{.original = &c->original});
  c->symbolic_ran = true;
  EXPECT_DEATH(fuzz::checkedBefore("test", withPoison(in, 7), known),
               "test: the oracles found a bug(.|\n)*reads source a 'a_Reload1'(.|\n)*poison seed 7");
}

TEST(KnownCases, ATableForgetsButNeverConfusesTwoKeys) {
  fuzz::KnownCases known(true, /*slot_bits=*/2);
  for (uint64_t key = 1; key <= 64; ++key) known.keep(key)->refused = true;
  int kept = 0;
  for (uint64_t key = 1; key <= 64; ++key) {
    if (fuzz::KnownCase* c = known.find(key)) {
      EXPECT_EQ(c->key, key);
      ++kept;
    }
  }
  EXPECT_LE(kept, 4);
  EXPECT_GE(kept, 1);
  EXPECT_EQ(known.find(65), nullptr);
}

}  // namespace
}  // namespace allocsim
