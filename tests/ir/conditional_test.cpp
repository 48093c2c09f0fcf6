// Floor division and remainder of registers in indexes (`i//2`, `i%2*64`) and conditional blocks (`if q >= k { }`),
// docs/format.md "Access patterns" and "Conditional blocks": parsed and printed back, errors located, values worked
// out here from the definitions (or from the same program unrolled by hand), and programs that use them allocate at
// every level, pass the three oracles and simulate to the interpreter's bits.
#include <gtest/gtest.h>

#include <string>
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

std::string firstError(const std::string& text) { return firstErrorOf(text); }

const char* kHeader = "arch tiny\ndram O [1, 24] u32 output\nsbuf a [1, 24] u32\nreg i\nreg j\n\n";

// Each iteration adds 1 at element i%3*8 + i//3 (i = 0..7): elements 0,1,2 (i = 0,3,6), 8,9,10 (i = 1,4,7) and
// 16,17 (i = 2,5) get 1, the rest stay 0.
TEST(DivMod, IndexTermsAddressTheElementsPythonWould) {
  const std::vector<uint32_t> o = outputWords(std::string(kHeader) +
                                              "memset a, 0\n"
                                              "loop i = 0, 8, 1 {\n"
                                              "  ts a[0:1, i%3*8+i//3:1], a[0:1, i%3*8+i//3:1], 1, add\n"
                                              "}\n"
                                              "dma O, a\n");
  std::vector<uint32_t> want(24, 0);
  for (size_t e : {0, 1, 2, 8, 9, 10, 16, 17}) want[e] = 1;
  EXPECT_EQ(o, want);
}

// `i//2%2*4 + i%2` on i = 0..7 visits 0,1,4,5,0,1,4,5 (i//2 is 0,0,1,1,2,2,3,3; %2 is 0,0,1,1,0,0,1,1): each of
// those elements is incremented twice.
TEST(DivMod, DivisionThenRemainderInOneTerm) {
  const std::vector<uint32_t> o = outputWords(std::string(kHeader) +
                                              "memset a, 0\n"
                                              "loop i = 0, 8, 1 {\n"
                                              "  ts a[0:1, i//2%2*4+i%2:1], a[0:1, i//2%2*4+i%2:1], 1, add\n"
                                              "}\n"
                                              "dma O, a\n");
  std::vector<uint32_t> want(24, 0);
  for (size_t e : {0, 1, 4, 5}) want[e] = 2;
  EXPECT_EQ(o, want);
}

// The causal pattern: for i, j in 0..3, add 1 at element i*4+j when i >= j (the lower triangle with its diagonal),
// and 10 at element 16+i when i%2 == 0 (i = 0, 2).
TEST(Conditional, BodyRunsExactlyWhereTheConditionHolds) {
  const std::vector<uint32_t> o = outputWords(std::string(kHeader) +
                                              "memset a, 0\n"
                                              "loop i = 0, 4, 1 {\n"
                                              "  loop j = 0, 4, 1 {\n"
                                              "    if i >= j {\n"
                                              "      ts a[0:1, i*4+j:1], a[0:1, i*4+j:1], 1, add\n"
                                              "    }\n"
                                              "  }\n"
                                              "  if i%2 == 0 {\n"
                                              "    ts a[0:1, i+16:1], a[0:1, i+16:1], 10, add\n"
                                              "  }\n"
                                              "}\n"
                                              "dma O, a\n");
  std::vector<uint32_t> want(24, 0);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j <= i; ++j) want[size_t(i * 4 + j)] = 1;
  want[16] = want[18] = 10;
  EXPECT_EQ(o, want);
}

// Every comparison against the same two registers: with i = 0..2 and j = 1, element 3*k + i gets 1 where comparison
// k holds: >= (i = 1, 2), > (2), == (1), != (0, 2), <= (0, 1), < (0).
TEST(Conditional, EveryComparison) {
  const char* cmps[6] = {">=", ">", "==", "!=", "<=", "<"};
  std::string body;
  for (int k = 0; k < 6; ++k)
    body += std::string("  if i ") + cmps[k] + " j {\n    memset a[0:1, i+" + std::to_string(3 * k) + ":1], 1\n  }\n";
  const std::vector<uint32_t> o =
      outputWords(std::string(kHeader) + "memset a, 0\nli j, 1\nloop i = 0, 3, 1 {\n" + body + "}\ndma O, a\n");
  const bool holds[6][3] = {{false, true, true},  {false, false, true}, {false, true, false},
                            {true, false, true},  {true, true, false},  {true, false, false}};
  std::vector<uint32_t> want(24, 0);
  for (int k = 0; k < 6; ++k)
    for (int i = 0; i < 3; ++i) want[size_t(3 * k + i)] = holds[k][i] ? 1 : 0;
  EXPECT_EQ(o, want);
}

// An accumulation over the lower triangle only: start@first / stop@last inside a block still name the enclosing
// loop. Row q of the f32 result is sum over k <= q of W^T X_k, the same program unrolled by hand gives the same bits.
TEST(Conditional, MatchesTheProgramUnrolledByHand) {
  const std::string decls =
      "arch tiny\ndram X [4, 64] f32 input\ndram W [4, 4] f32 input\ndram O [4, 64] f32 output\n"
      "sbuf x [2] [4, 16] f32\nsbuf w [4, 4] f32\nsbuf o [4, 64] f32\npsum acc [4, 16] f32\n";
  const std::string rolled = decls +
                             "reg q\nreg k\n\n"
                             "dma w, W\n"
                             "loop q = 0, 4, 1 {\n"
                             "  loop k = 0, 4, 1 {\n"
                             "    dma x{k%2}, X[:, k*16:16]\n"
                             "    if q >= k {\n"
                             "      matmul acc, w, x{k%2}, start@first\n"
                             "    }\n"
                             "  }\n"
                             "  matmul acc, w, x{1}, stop\n"
                             "  copy o[:, q*16:16], acc\n"
                             "}\n"
                             "dma O, o\n";
  std::string unrolled = decls + "\ndma w, W\n";
  for (int q = 0; q < 4; ++q) {
    for (int k = 0; k < 4; ++k) {
      unrolled += "dma x{" + std::to_string(k % 2) + "}, X[:, " + std::to_string(k * 16) + ":16]\n";
      if (q >= k)
        unrolled += std::string("matmul acc, w, x{") + std::to_string(k % 2) + "}" + (k == 0 ? ", start" : "") + "\n";
    }
    unrolled += "matmul acc, w, x{1}, stop\ncopy o[:, " + std::to_string(q * 16) + ":16], acc\n";
  }
  unrolled += "dma O, o\n";
  const Program a = checkedProgram(rolled), b = checkedProgram(unrolled);
  const InterpResult ra = interpret(a), rb = interpret(b);
  EXPECT_EQ(ra.outputs[a.findTensor("O")], rb.outputs[b.findTensor("O")]);
}

TEST(Conditional, ParsesAndPrintsBack) {
  const std::string text =
      "arch tiny\nsbuf a [2] [1, 8] u32\nreg i\nreg j\n\n"
      "loop i = 0, 4, 1 {\n"
      "  loop j = 0, 4, 1 {\n"
      "    if i - j >= 0 {\n"
      "      memset a{i%2}[0:1, j//2*2+j%2:1], 1\n"
      "    }\n"
      "    if 2*i < j + 3 !copy {\n"
      "      memset a[0:1, i//2%2*-1+j+1:1], 2\n"
      "    }\n"
      "    if 0 != i%2 - 1 {\n"
      "    }\n"
      "  }\n"
      "}\n";
  const Program p = parseProgram(text);
  const std::string printed = printProgram(p);
  EXPECT_EQ(printed,
            "arch tiny\nsbuf a [2] [1, 8] u32\nreg i\nreg j\n\n"
            "loop i = 0, 4, 1 {\n"
            "  loop j = 0, 4, 1 {\n"
            "    if i >= j {\n"
            "      memset a{i%2}[:, j%2+j//2*2:1], 1\n"
            "    }\n"
            "    if i*2 < j+3 !copy {\n"
            "      memset a[:, i//2%2*-1+j+1:1], 2\n"
            "    }\n"
            "    if 1 != i%2 {\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(printProgram(parseProgram(printed)), printed);
  // `i%2` and `i` are different terms; `i%2 + i%2` is one.
  const Program q = parseProgram("arch tiny\nsbuf a [1, 8] u32\nreg i\n\nli i, 1\nmemset a[0:1, i%2+i%2+i:1], 1\n");
  EXPECT_EQ(printAccessPattern(q, q.body[1].dst), "a[:, i+i%2*2:1]");
}

TEST(Conditional, ParseErrorsAreLocated) {
  const std::string h = "arch tiny\nsbuf a [1, 8] u32\nreg i\n\n";
  EXPECT_EQ(firstError(h + "li i, 0\nmemset a[0:1, i%0:1], 1\n"),
            "t:6:17: the modulus 0 must be from 1 to 4294967295");
  EXPECT_EQ(firstError(h + "li i, 0\nmemset a[0:1, i/2:1], 1\n"),
            "t:6:16: expected '//' (floor division); an index has no '/'");
  EXPECT_EQ(firstError(h + "li i, 0\nmemset a[0:1, i%4//2:1], 1\n"),
            "t:6:18: write the floor division before the remainder (n//2%4), at most one of each");
  EXPECT_EQ(firstError(h + "li i, 0\nmemset a[0:1, 2*i%2:1], 1\n"),
            "t:6:18: write the scale last: n%2*128 (Python reads 128*n%2 as (128*n)%2)");
  EXPECT_EQ(firstError(h + "li i, 0\nmemset a[0:1, -i%2:1], 1\n"),
            "t:6:16: a leading '-' before a floor division or remainder is ambiguous (Python reads -n%2 as (-n)%2); "
            "write the scale last: n%2*-1");
  EXPECT_EQ(firstError(h + "li i, 0\nif i => 1 {\n}\n"),
            "t:6:6: expected a comparison (>= > == != <= <) after the condition's left side, got '='");
  EXPECT_EQ(firstError(h + "li i, 0\nif i > = 1 {\n}\n"), "t:6:8: expected the condition's right side (an integer or "
                                                         "a register term such as n*512)");
  EXPECT_EQ(firstError(h + "li i, 0\nif i >= 1\n}\n"), "t:6:10: expected '{' to open the if body");
  EXPECT_EQ(firstError(h + "li i, 0\nif i >= 1 {\nmemset a, 1\n"), "t:8:1: expected '}' to close the if at 6:1");
}

TEST(Conditional, CheckerErrorsAreLocated) {
  const std::string h = "arch tiny\ndram O [1, 8] u32 output\nsbuf a [1, 8] u32\nreg i\nreg n\n\n";
  // Read before written.
  EXPECT_EQ(firstError(h + "memset a, 0\nif n >= 1 {\n  memset a, 1\n}\ndma O, a\n"),
            "t:8:1: register 'n' is read before it is written");
  // A value loaded from memory decides no condition.
  EXPECT_EQ(firstError(h + "memset a, 0\nreg_load n, a[0:1, 0:1]\nif n >= 1 {\n  memset a, 1\n}\ndma O, a\n"),
            "t:9:1: if condition uses register 'n', whose value was loaded from memory; a condition is on loop "
            "registers and values computed from them");
  // A view checked on the executions that happen: i = 8 would be out of bounds, but the block skips it.
  EXPECT_EQ(firstError(h + "memset a, 0\nloop i = 0, 9, 1 {\n  if i < 8 {\n    memset a[0:1, i:1], 1\n  }\n}\n"
                           "dma O, a\n"),
            "");
  EXPECT_EQ(firstError(h + "memset a, 0\nloop i = 0, 9, 1 {\n  if i <= 8 {\n    memset a[0:1, i:1], 1\n  }\n}\n"
                           "dma O, a\n"),
            "t:10:12: a[0:1, 8:1] is out of bounds of tensor 'a' [1, 8] (i = 8)");
  // An output written only under a condition that never holds is not written.
  EXPECT_EQ(firstError(h + "loop i = 0, 4, 1 {\n  if i > 5 {\n    memset a, 1\n    dma O, a\n  }\n}\n"),
            "t:2:6: output tensor 'O' is not fully written: element [0, 0] is never written");
  // The loop register may not be written inside a block inside its loop.
  EXPECT_EQ(firstError(h + "memset a, 0\nloop i = 0, 4, 1 {\n  if i > 1 {\n    li i, 0\n  }\n}\ndma O, a\n"),
            "t:10:5: register 'i' is written inside the loop it controls (loop at 8:1)");
}

// A full write inside a block does not end the value before it: `w` written in full before the loop and again in
// some iterations is read in every one, so it is live around the whole loop.
TEST(Conditional, AWriteInsideABlockIsNoKill) {
  const std::string text =
      "arch tiny\ndram O [1, 8] u32 output\nsbuf w [1, 8] u32\nsbuf o [1, 8] u32\nreg i\n\n"
      "memset w, 1\nmemset o, 0\n"
      "loop i = 0, 4, 1 {\n"
      "  if i%2 == 1 {\n"
      "    memset w, 2\n"
      "  }\n"
      "  tt o, o, w, add\n"
      "}\n"
      "dma O, o\n";
  const Program p = checkedProgram(text);
  const Liveness live = computeLiveness(p);
  const LinearLoop& loop = live.order.loops.at(0);
  const LiveRange w = live.tensors[p.findTensor("w")];
  EXPECT_LE(w.first, loop.header);
  EXPECT_GE(w.last, loop.end);
  // o = 1 + 1 + 2 + ... : iterations 0..3 add w = 1, 2, 2, 2 (w stays 2 once written)
  EXPECT_EQ(outputWords(text), std::vector<uint32_t>(8, 7));
}

// Every level that places by itself allocates a causal-attention-style program under pressure that makes it spill
// inside the blocks (-O0 reuses nothing and refuses; -O7 keeps given placements), and the allocation passes the three
// oracles and simulates to the interpreter's bits.
TEST(Conditional, AllocatesAtEveryLevelAndPassesTheOracles) {
  const std::string text = causalAttention("loop j = 0, 4, 1", "i >= j");
  const Program p = checkedProgram(text);
  for (int level : {1, 2, 3, 6, 8}) {
    DriverOptions o;
    o.optlevel = level;
    const DriverResult r = allocate(p, o);
    const std::string what = "-O" + std::to_string(level);
    // q and o do not fit beside the tiles (320 bytes a partition): they spill, and their reloads go inside the block
    uint32_t reloads_in_blocks = 0;
    forEachInstruction(r.program.body, [&](const Instruction& i) {
      if (i.op != Op::If) return;
      for (const Instruction& b : i.body) reloads_in_blocks += b.origin == Origin::Reload;
    });
    EXPECT_GE(reloads_in_blocks, 1u) << what;
    EXPECT_EQ(printProgram(parseProgram(printProgram(r.program))), printProgram(r.program)) << what;
    expectCorrectAllocation(p, r.program, what, 1);
    SCOPED_TRACE(what);
    expectSimulatorMatchesInterpreter(r.program, 1);
  }
}

// GenOptions::conditionals makes both constructs; the programs are well-formed and print and parse back, and those
// that contain them allocate at -O2, pass the three oracles and simulate to the interpreter's bits.
TEST(Conditional, GeneratedProgramsUseBothAndVerify) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededChoices c(seed);
    GenOptions g{*archPreset("tiny"), 12, 80};
    g.conditionals = 40;
    const Program p = generateProgram(c, g);
    const std::vector<Diagnostic> diags = checkProgram(p);
    ASSERT_TRUE(diags.empty()) << "seed " << seed << ": " << formatDiagnostic("gen", diags[0]);
    ASSERT_EQ(printProgram(parseProgram(printProgram(p))), printProgram(p)) << "seed " << seed;
  }
  const GeneratedChecks ifs = checkGeneratedPrograms(
      12,
      instructionsWhere([](const Program&, const Instruction& i) { return i.op == Op::If; }),
      40);
  EXPECT_GE(ifs.with, 25u);
  EXPECT_GE(ifs.verified, 20u);
  const GeneratedChecks div_mod = checkGeneratedPrograms(
      12,
      instructionsWhere([](const Program&, const Instruction& i) {
        for (const AccessPattern* ap : {&i.dst, &i.a, &i.b})
          if (!ap->offset.isAffine() || !ap->partition.isAffine()) return true;
        return false;
      }),
      40);
  EXPECT_GE(div_mod.with, 25u);
  EXPECT_GE(div_mod.verified, 20u);
}

}  // namespace
}  // namespace allocsim
