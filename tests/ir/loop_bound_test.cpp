// Loops whose upper bound names enclosing loops' registers (`loop j = 0, i+1, 1`, `loop j = 0, i//2+1, 1`,
// docs/format.md "Loops with register bounds"): parsed and printed back, errors located, the largest value the
// static passes take, values worked out here from the definition (or from the same program written with an `if`),
// and programs that use them allocate at every level, pass the three oracles and simulate to the interpreter's bits.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "alloc/driver.h"
#include "alloc/liveness.h"
#include "ir/check.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/common/program_text.h"
#include "tests/common/sim_checks.h"
#include "tests/common/verify_checks.h"

namespace allocsim {
namespace {

Program checked(const std::string& text) { return checkedProgram(text); }
std::string firstError(const std::string& text) { return firstErrorOf(text); }

const char* kHeader = "arch tiny\ndram O [1, 32] u32 output\nsbuf a [1, 32] u32\nreg i\nreg j\n\n";

// Adds 1 at element i*4+j for every (i, j) the nest visits: the expected vector is built from the bound's
// definition (Python's range(lo, bound, step) with the bound evaluated as Python evaluates it).
std::vector<uint32_t> expected(int outer, int lo, int step, int (*bound)(int)) {
  std::vector<uint32_t> want(32, 0);
  for (int i = 0; i < outer; ++i)
    for (int j = lo; j < bound(i); j += step) ++want[size_t(i * 4 + j)];
  return want;
}

std::string nest(int outer, const std::string& lo, const std::string& bound, const std::string& step) {
  return std::string(kHeader) + "memset a, 0\nloop i = 0, " + std::to_string(outer) + ", 1 {\n  loop j = " + lo +
         ", " + bound + ", " + step + " {\n    ts a[0:1, i*4+j:1], a[0:1, i*4+j:1], 1, add\n  }\n}\ndma O, a\n";
}

TEST(LoopBound, TriangularAndDivModBoundsVisitWhatPythonWould) {
  EXPECT_EQ(outputWords(nest(4, "0", "i+1", "1")), expected(4, 0, 1, [](int i) { return i + 1; }));
  EXPECT_EQ(outputWords(nest(8, "0", "i%3", "1")), expected(8, 0, 1, [](int i) { return i % 3; }));
  EXPECT_EQ(outputWords(nest(8, "1", "i//2+2", "2")), expected(8, 1, 2, [](int i) { return i / 2 + 2; }));
  EXPECT_EQ(outputWords(nest(8, "0", "4-i//2", "1")), expected(8, 0, 1, [](int i) { return 4 - i / 2; }));
  // 3-i is 3, 2, 1, 0: from i = 2 on it is at or below the start, 1, and the inner loop runs no iteration.
  EXPECT_EQ(outputWords(nest(4, "1", "3-i", "1")), expected(4, 1, 1, [](int i) { return 3 - i; }));
}

// The same triangle written as an if on a full-length loop gives the same bits, and the loop register leaves the
// nest with the first value at or above the bound, as with a constant bound.
TEST(LoopBound, MatchesTheIfForm) {
  const std::string tail = "dma O, a\n";
  const std::string bounded = std::string(kHeader) +
                              "memset a, 0\nloop i = 0, 5, 1 {\n  loop j = 0, i//2+1, 1 {\n"
                              "    ts a[0:1, i*4+j:1], a[0:1, i*4+j:1], 1, add\n  }\n"
                              "  ts a[0:1, i+24:1], a[0:1, i+24:1], j, add\n}\n" +
                              tail;
  const std::string with_if = std::string(kHeader) +
                              "memset a, 0\nloop i = 0, 5, 1 {\n  loop j = 0, 3, 1 {\n    if j <= i//2 {\n"
                              "      ts a[0:1, i*4+j:1], a[0:1, i*4+j:1], 1, add\n    }\n  }\n"
                              "}\n" +
                              tail;
  std::vector<uint32_t> a = outputWords(bounded), b = outputWords(with_if);
  // Elements 24..28: j after the inner loop is i//2+1 (1, 1, 2, 2, 3).
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a[size_t(24 + i)], uint32_t(i / 2 + 1)) << i;
  a.resize(24);
  b.resize(24);
  EXPECT_EQ(a, b);
}

TEST(LoopBound, LargestValueOverTheEnclosingLoops) {
  const Program p = checked(
      "arch tiny\nsbuf a [1, 64] u32\nreg i\nreg j\nreg k\n\n"
      "loop i = 0, 6, 1 {\n"
      "  loop j = 0, i+1, 1 {\n"          // i <= 5: 6
      "    loop k = 0, j%3*2+i//4, 1 {\n"  // j%3 <= 2, i//4 <= 1: 5
      "      memset a[0:1, k:1], 1\n"
      "    }\n"
      "  }\n"
      "  loop j = 0, 9-i*2, 1 {\n"  // smallest i: 9
      "    memset a[0:1, j:1], 2\n"
      "  }\n"
      "}\n");
  const Instruction& outer = p.body.at(0);
  EXPECT_EQ(outer.body.at(0).hi, 6);
  EXPECT_EQ(outer.body.at(0).body.at(0).hi, 5);
  EXPECT_EQ(outer.body.at(1).hi, 9);
  EXPECT_TRUE(hasRegisterBound(outer.body.at(0)));
  EXPECT_FALSE(hasRegisterBound(outer));
}

TEST(LoopBound, ParsesAndPrintsBack) {
  const std::string text =
      "arch tiny\nsbuf a [1, 8] u32\nreg i\nreg j\n\n"
      "loop i = 0, 4, 1 {\n"
      "  loop j = 0, 1+i//2, 1 !copy {\n"
      "    memset a[0:1, j:1], 1\n"
      "  }\n"
      "  loop j = 1, 8 - i%3*2, 2 {\n"
      "  }\n"
      "}\n";
  const std::string printed = printProgram(parseProgram(text));
  EXPECT_EQ(printed,
            "arch tiny\nsbuf a [1, 8] u32\nreg i\nreg j\n\n"
            "loop i = 0, 4, 1 {\n"
            "  loop j = 0, i//2+1, 1 !copy {\n"
            "    memset a[:, j:1], 1\n"
            "  }\n"
            "  loop j = 1, i%3*-2+8, 2 {\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(printProgram(parseProgram(printed)), printed);
}

TEST(LoopBound, ErrorsAreLocated) {
  const std::string h = "arch tiny\ndram O [1, 8] u32 output\nsbuf a [1, 8] u32\nreg i\nreg j\nreg n\n\n";
  EXPECT_EQ(firstError(h + "li n, 3\nloop j = 0, n+1, 1 {\n}\n"),
            "t:9:13: loop bound uses register 'n', which no enclosing loop counts with; a bound is on the registers "
            "of enclosing loops");
  EXPECT_EQ(firstError(h + "loop j = 0, j+1, 1 {\n}\n"),
            "t:8:13: loop bound uses register 'j', which no enclosing loop counts with; a bound is on the registers "
            "of enclosing loops");
  const std::string no_output = "arch tiny\nsbuf a [1, 8] u32\nreg i\nreg j\n\n";
  EXPECT_EQ(firstError(no_output + "loop i = 0, 4, 1 {\n  loop j = 0, i*1000000000, 1 {\n  }\n}\n"),
            "t:7:3: loop end's largest value must be <= 2147483648, got 3000000000");
  // Views are checked on the iterations that run: j < i <= 7 stays inside a.
  EXPECT_EQ(firstError(h + "memset a, 0\nloop i = 0, 8, 1 {\n  loop j = 0, i, 1 {\n    memset a[0:1, j+1:1], 1\n"
                           "  }\n}\ndma O, a\n"),
            "");
  EXPECT_EQ(firstError(h + "memset a, 0\nloop i = 0, 8, 1 {\n  loop j = 0, i+1, 1 {\n    memset a[0:1, j+1:1], 1\n"
                           "  }\n}\ndma O, a\n"),
            "t:11:12: a[0:1, 8:1] is out of bounds of tensor 'a' [1, 8] (j = 7, i = 7)");
  // A program built in code must record the bound's largest value (setLoopBoundMaxima).
  Program p = parseProgram(no_output + "loop i = 0, 4, 1 {\n  loop j = 0, i+1, 1 {\n  }\n}\n");
  p.body[0].body[0].hi = 3;
  const std::vector<Diagnostic> diags = checkProgram(p);
  ASSERT_FALSE(diags.empty());
  EXPECT_EQ(formatDiagnostic("t", diags[0]),
            "t:7:3: loop bound's largest value is 4, but the loop records 3 (setLoopBoundMaxima)");
  EXPECT_TRUE(setLoopBoundMaxima(p));
  EXPECT_TRUE(checkProgram(p).empty());
}

// A full write inside a register-bounded loop may not run (the loop may run no iteration): it does not end the
// value before it. `w` is written before the nest and again in some inner iterations, and read in every outer one.
TEST(LoopBound, AWriteInsideIsNoKill) {
  const std::string text =
      "arch tiny\ndram O [1, 8] u32 output\nsbuf w [1, 8] u32\nsbuf o [1, 8] u32\nreg i\nreg j\n\n"
      "memset w, 1\nmemset o, 0\n"
      "loop i = 0, 4, 1 {\n"
      "  loop j = 0, i%2, 1 {\n"
      "    memset w, 2\n"
      "  }\n"
      "  tt o, o, w, add\n"
      "}\n"
      "dma O, o\n";
  const Program p = checked(text);
  const Liveness live = computeLiveness(p);
  const LiveRange w = live.tensors[p.findTensor("w")];
  EXPECT_LE(w.first, live.order.loops.at(0).header);  // live around the whole i loop
  EXPECT_GE(w.last, live.order.loops.at(0).end);
  // o = w summed over i = 0..3: w is 1, then 2 from i = 1 on (the inner loop runs once when i is odd): 1+2+2+2.
  EXPECT_EQ(outputWords(text), std::vector<uint32_t>(8, 7));
}

// Causal attention with a triangular key loop: every level that places by itself allocates it under pressure, and
// the allocation passes the three oracles and simulates to the interpreter's bits.
TEST(LoopBound, AllocatesAtEveryLevelAndPassesTheOracles) {
  const std::string text = causalAttention("loop j = 0, i+1, 1", "");
  const Program p = checked(text);
  expectEveryLevelCorrectAndSimulated(p, {1, 2, 3, 6, 8}, 1);
  DriverOptions o;
  o.optlevel = 2;
  const Program allocated = allocate(p, o).program;  // prints and parses back, register bound included
  EXPECT_EQ(printProgram(parseProgram(printProgram(allocated))), printProgram(allocated));
}

// Bounds with a remainder and a floor division, end to end: the interpreter visits what Python would (above), and
// each level's allocation passes the three oracles and simulates to the interpreter's bits.
TEST(LoopBound, DivModBoundsAllocateAtEveryLevelAndPassTheOracles) {
  for (const auto& [lo, bound, step] : {std::tuple<std::string, std::string, std::string>{"0", "i%3", "1"},
                                        {"1", "i//2+2", "2"}}) {
    const Program p = checked(nest(8, lo, bound, step));
    SCOPED_TRACE(bound);
    expectEveryLevelCorrectAndSimulated(p, {1, 2, 3, 6, 8}, 1);
  }
}

// GenOptions::conditionals makes register-bounded loops too; those programs allocate at -O2, pass the three oracles
// and simulate to the interpreter's bits.
TEST(LoopBound, GeneratedProgramsUseThemAndVerify) {
  const GeneratedChecks bounded = checkGeneratedPrograms(
      12,
      instructionsWhere([](const Program&, const Instruction& i) { return hasRegisterBound(i); }),
      40);
  EXPECT_GE(bounded.with, 10u);
  EXPECT_GE(bounded.verified, 8u);
}

}  // namespace
}  // namespace allocsim
