// Code that never runs (alloc/conditional_runs.h, neverRunBodies): an `if` whose condition holds on no iteration of
// its loops and a loop whose register bound lets no iteration run are found by counting through the loops by hand;
// the linear order marks their positions as not executing, and nothing they mention is live there. A body that can
// run, or one whose condition names a register no loop sets, still counts.
#include "alloc/conditional_runs.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "alloc/liveness.h"
#include "ir/parse.h"

namespace allocsim {
namespace {

// Lines 1-9; instructions start on line 10.
const char* const kDecls =
    "arch tiny\n"
    "dram A [8, 64] u32 input\n"
    "dram O [8, 64] u32 output\n"
    "sbuf a [8, 64] u32\n"
    "sbuf b [8, 64] u32\n"
    "sbuf c [8, 64] u32\n"
    "reg i\n"
    "reg j\n"
    "reg k\n";

// The constructs (ifs and loops) by the line of their header.
const Instruction* constructOn(const Program& p, uint32_t line) {
  const Instruction* found = nullptr;
  forEachInstruction(p.body, [&](const Instruction& i) {
    if (hasBody(i.op) && i.loc.line == line) found = &i;
  });
  EXPECT_NE(found, nullptr) << "no if or loop on line " << line;
  return found;
}

// The position of the instruction or loop header on `line` (not a loop end).
uint32_t positionOn(const LinearOrder& order, uint32_t line) {
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& at = order.positions[pos];
    if (at.inst && at.inst->loc.line == line && at.kind != LinearPosition::Kind::LoopEnd) return pos;
  }
  ADD_FAILURE() << "no position on line " << line;
  return kNone;
}

TEST(NeverRunBodies, CountsThroughTheLoopsAroundEachBody) {
  const Program p = parseProgram(std::string(kDecls) +
                                 "dma a, A\n"                    // 10
                                 "loop i = 0, 1, 1 {\n"          // 11: i = 0 only
                                 "  if i % 2 != 0 {\n"           // 12: 0 % 2 = 0: never
                                 "    memset b, 1\n"             // 13
                                 "  }\n"                         // 14
                                 "  if i // 2 >= 0 {\n"          // 15: 0 // 2 = 0 >= 0: runs
                                 "    memset b, 2\n"             // 16
                                 "  }\n"                         // 17
                                 "  loop j = 0, i, 1 {\n"        // 18: bound 0: no iteration
                                 "    memset c, 3\n"             // 19
                                 "  }\n"                         // 20
                                 "}\n"                           // 21
                                 "loop i = 0, 3, 1 {\n"          // 22: i = 0, 1, 2
                                 "  if i % 2 != 0 {\n"           // 23: holds at i = 1
                                 "    memset b, 4\n"             // 24
                                 "  }\n"                         // 25
                                 "  loop j = 0, i, 1 {\n"        // 26: runs for i = 1, 2
                                 "    if i + j == 4 {\n"         // 27: at most 2 + 1 = 3: never
                                 "      memset c, 5\n"           // 28
                                 "    }\n"                       // 29
                                 "  }\n"                         // 30
                                 "}\n"                           // 31
                                 "li k, 3\n"                     // 32
                                 "loop i = 0, 2, 1 {\n"          // 33
                                 "  if k == 4 {\n"               // 34: k is no loop's register: not evaluated
                                 "    memset c, 6\n"             // 35
                                 "  }\n"                         // 36
                                 "}\n"                           // 37
                                 "copy c, b\n"                   // 38
                                 "dma O, a\n");                  // 39
  const std::unordered_set<const Instruction*> never = neverRunBodies(p);
  EXPECT_EQ(never, (std::unordered_set<const Instruction*>{constructOn(p, 12), constructOn(p, 18),
                                                           constructOn(p, 27)}));
}

// The instruction without a body on `line`.
const Instruction* instructionOn(const Program& p, uint32_t line) {
  const Instruction* found = nullptr;
  forEachInstruction(p.body, [&](const Instruction& i) {
    if (!hasBody(i.op) && i.loc.line == line) found = &i;
  });
  EXPECT_NE(found, nullptr) << "no instruction on line " << line;
  return found;
}

// skips_last, counted through the loops by hand: bit 0 for i (i = 0..3, last 3), bit 1 for j (j = 0..2, last 2).
TEST(ConditionalRuns, SkipsTheLastIterationOfTheLoopsWhoseLastNeverRunsIt) {
  const Program p = parseProgram(std::string(kDecls) +
                                 "loop i = 0, 4, 1 {\n"          // 10
                                 "  if i == 1 {\n"               // 11: i = 1 only
                                 "    memset a, 1\n"             // 12: skips i's last
                                 "  }\n"                         // 13
                                 "  if i >= 3 {\n"               // 14: i = 3 only
                                 "    memset b, 1\n"             // 15: runs on i's last
                                 "  }\n"                         // 16
                                 "  loop j = 0, 3, 1 {\n"        // 17
                                 "    if i + j == 2 {\n"         // 18: (0, 2), (1, 1), (2, 0)
                                 "      memset c, 1\n"           // 19: skips i's last; j's last at (0, 2)
                                 "    }\n"                       // 20
                                 "    if j < 2 {\n"              // 21: j = 0, 1 on every i
                                 "      memset c, 2\n"           // 22: skips j's last, runs on i's last
                                 "    }\n"                       // 23
                                 "  }\n"                         // 24
                                 "  loop k = 0, i, 1 {\n"        // 25: k = 0 .. i - 1: its last is k = i - 1
                                 "    memset a, 3\n"             // 26: runs on i's last and k's last
                                 "  }\n"                         // 27
                                 "}\n"                           // 28
                                 "dma O, a\n");                  // 29
  const auto runs = conditionalRuns(p);
  auto skips = [&](uint32_t line) {
    auto it = runs.find(instructionOn(p, line));
    EXPECT_NE(it, runs.end()) << line;
    return it == runs.end() ? ~uint64_t(0) : it->second.skips_last;
  };
  EXPECT_EQ(skips(12), 1u);
  EXPECT_EQ(skips(15), 0u);
  EXPECT_EQ(skips(19), 1u);
  EXPECT_EQ(skips(22), 2u);
  EXPECT_EQ(skips(26), 0u);
}

// only_last, counted through the loops by hand: bit 0 for i (i = 0..3, last 3), bit 1 for j (j = 0..2, last 2) or for
// the register-bounded k, whose last is k = trips - 1 on each of its runs.
TEST(ConditionalRuns, RunsOnlyOnTheLastIterationOfTheLoopsWhoseOtherIterationsNeverRunIt) {
  const Program p = parseProgram(std::string(kDecls) +
                                 "loop i = 0, 4, 1 {\n"          // 10
                                 "  if i == 3 {\n"               // 11
                                 "    memset a, 1\n"             // 12: i = 3 only: i's last
                                 "  }\n"                         // 13
                                 "  loop j = 0, 3, 1 {\n"        // 14
                                 "    if i + j == 5 {\n"         // 15: (3, 2) only
                                 "      memset b, 1\n"           // 16: i's last and j's last
                                 "    }\n"                       // 17
                                 "    if j == 2 {\n"             // 18: j = 2 on every i
                                 "      memset c, 1\n"           // 19: j's last only
                                 "    }\n"                       // 20
                                 "    if i == 1 {\n"             // 21: i = 1, j = 0..2
                                 "      memset c, 2\n"           // 22: neither
                                 "    }\n"                       // 23
                                 "  }\n"                         // 24
                                 "  loop k = 0, i%3, 1 {\n"      // 25: i = 1: k = 0; i = 2: k = 0, 1
                                 "    memset a, 2\n"             // 26: k = 0 on i = 2 is not k's last: neither
                                 "  }\n"                         // 27
                                 "  loop k = 0, i//3, 1 {\n"     // 28: i = 3 only: k = 0
                                 "    memset a, 3\n"             // 29: i's last and k's last
                                 "  }\n"                         // 30
                                 "}\n"                           // 31
                                 "dma O, a\n");                  // 32
  const auto runs = conditionalRuns(p);
  auto only = [&](uint32_t line) {
    auto it = runs.find(instructionOn(p, line));
    EXPECT_NE(it, runs.end()) << line;
    return it == runs.end() ? ~uint64_t(0) : it->second.only_last;
  };
  EXPECT_EQ(only(12), 1u);
  EXPECT_EQ(only(16), 3u);
  EXPECT_EQ(only(19), 2u);
  EXPECT_EQ(only(22), 0u);
  EXPECT_EQ(only(26), 0u);
  EXPECT_EQ(only(29), 3u);
}

TEST(NeverRunBodies, ABodyInsideOneThatNeverRunsDoesNotRunEither) {
  const Program p = parseProgram(std::string(kDecls) +
                                 "loop i = 0, 2, 1 {\n"        // 10
                                 "  if i > 1 {\n"              // 11: i is 0 or 1: never
                                 "    loop j = 0, 4, 1 {\n"    // 12
                                 "      memset b, 1\n"         // 13
                                 "    }\n"                     // 14
                                 "    copy c, b\n"             // 15
                                 "  }\n"                       // 16
                                 "}\n"                         // 17
                                 "dma a, A\n"                  // 18
                                 "dma O, a\n");                // 19
  const LinearOrder order = linearize(p);
  EXPECT_TRUE(order.positions[positionOn(order, 11)].executes);  // the if's condition is evaluated
  for (uint32_t line : {12u, 13u, 15u}) EXPECT_FALSE(order.positions[positionOn(order, line)].executes) << line;
  const LinearLoop& inner = order.loops[1];
  EXPECT_FALSE(inner.body_runs);
  EXPECT_FALSE(order.positions[inner.end].executes);
  EXPECT_TRUE(order.positions[order.loops[0].end].executes);
}

// a is loaded (10) and read (11); a loop over i of `trips` iterations (12) writes a under `if i % 2 != 0` (13; the
// memset on 14), b is read (16) and after the loop a is written whole (18), and read (19).
std::string guardedRewrite(int trips) {
  return std::string(kDecls) +
         "dma a, A\n"                                     // 10
         "copy b, a\n"                                    // 11
         "loop i = 0, " + std::to_string(trips) + ", 1 {\n"  // 12
         "  if i % 2 != 0 {\n"                            // 13
         "    memset a, 1\n"                              // 14
         "  }\n"                                          // 15
         "  copy c, b\n"                                  // 16
         "}\n"                                            // 17
         "memset a, 2\n"                                  // 18
         "dma O, a\n";                                    // 19
}

// a's range for guardedRewrite(trips), as segments between source lines.
struct GuardedCase {
  const char* name;
  int trips;
  std::vector<std::pair<uint32_t, uint32_t>> segments;
};

void PrintTo(const GuardedCase& c, std::ostream* os) { *os << c.name; }

class NeverRunBodies : public ::testing::TestWithParam<GuardedCase> {};

TEST_P(NeverRunBodies, AWriteCountsOnlyWhereItMayRun) {
  const GuardedCase& c = GetParam();
  const Program p = parseProgram(guardedRewrite(c.trips));
  const Liveness live = computeLiveness(p);
  LiveRange expected;
  for (const auto& [first, last] : c.segments) expected.add({positionOn(live.order, first), positionOn(live.order, last)});
  EXPECT_EQ(live.tensors[p.findTensor("a")], expected);
}

INSTANTIATE_TEST_SUITE_P(
    ConditionalRuns, NeverRunBodies,
    ::testing::Values(
        // One iteration (i = 0): the memset on 14 never runs. a's first value dies at its read on 11; the memset on
        // 18 starts the second, read on 19. Nothing holds a in the loop.
        GuardedCase{"AWriteThatNeverRunsDoesNotExtendItsTensorsRange", 1, {{10, 11}, {18, 19}}},
        // Two iterations: the memset on 14 runs at i = 1. Nothing reads what it writes (the memset on 18 replaces a
        // whole): a dead store after the first value's last read (11), sharing no loop with it, live at its own
        // position; the memset on 18 starts the second value.
        GuardedCase{"AWriteThatMayRunStillCounts", 2, {{10, 11}, {14, 14}, {18, 19}}}),
    [](const ::testing::TestParamInfo<GuardedCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace allocsim
