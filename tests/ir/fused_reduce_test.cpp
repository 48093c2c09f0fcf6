// Fused free-axis reduction on act and ts (docs/format.md "Fused reduction"): DST as without it, and each
// partition's f32 results (before DST's conversion) folded left from element 0 into R [P, 1]; parsed and printed
// back; checked (R overlaps neither DST nor a source); R is a write operand of every pass; generated programs that
// use it allocate, pass the three oracles and simulate to the interpreter's bits.
#include <gtest/gtest.h>

#include <cstring>

#include "alloc/operand_effects.h"
#include "alloc/tensor_accesses.h"
#include "ir/check.h"
#include "ir/inputs.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "ir/values.h"
#include "tests/common/program_text.h"
#include "tests/common/verify_checks.h"
#include "verify/operands.h"

namespace allocsim {
namespace {

// x = [[1, 2, 3], [4, 5, 6]], written element by element.
const std::string kHead =
    "arch tiny\ndram O [2, 1] f32 output\ndram Y [2, 3] f32 output\nsbuf x [2, 3] f32\nsbuf y [2, 3] f32\n"
    "sbuf r [2, 1] f32\n\n"
    "memset x[0:1, 0:1], 1.0\nmemset x[0:1, 1:1], 2.0\nmemset x[0:1, 2:1], 3.0\n"
    "memset x[1:1, 0:1], 4.0\nmemset x[1:1, 1:1], 5.0\nmemset x[1:1, 2:1], 6.0\n";
const std::string kTail = "dma O, r\ndma Y, y\n";

std::vector<uint32_t> floats(std::initializer_list<float> v) {
  std::vector<uint32_t> out;
  for (float f : v) out.push_back(f32Bits(f));
  return out;
}

// Row sums 1 + 2 + 3 = 6 and 4 + 5 + 6 = 15; DST is the plain copy.
TEST(FusedReduce, ActRowSumWorkedByHand) {
  const std::string text = kHead + "act y, x, identity, reduce=add -> r\n" + kTail;
  EXPECT_EQ(outputWords(text), floats({6, 15}));
  EXPECT_EQ(outputWords(text, "Y"), floats({1, 2, 3, 4, 5, 6}));
}

// 2x + 1 = [[3, 5, 7], [9, 11, 13]]: max 7 and 13, min 3 and 9; with act's scale and bias the same values.
TEST(FusedReduce, MaxAndMinOnTsAndAct) {
  EXPECT_EQ(outputWords(kHead + "ts y, x, 2.0, mul, 1.0, add, reduce=max -> r\n" + kTail), floats({7, 13}));
  EXPECT_EQ(outputWords(kHead + "ts y, x, 2.0, mul, 1.0, add, reduce=min -> r\n" + kTail), floats({3, 9}));
  EXPECT_EQ(outputWords(kHead + "act y, x, identity, scale=2.0, bias=1.0, reduce=max -> r\n" + kTail),
            floats({7, 13}));
  EXPECT_EQ(outputWords(kHead + "ts y, x, 2.0, mul, reduce=add -> r\n" + kTail), floats({12, 30}));
}

// The fold is left from element 0, one f32 addition at a time: 2^24 + 1 rounds back to 2^24 (a tie, to even) twice,
// so [2^24, 1, 1] sums to 2^24; adding the two 1s first would give 2^24 + 2.
TEST(FusedReduce, FoldsLeftFromElementZero) {
  const std::string text =
      "arch tiny\ndram O [1, 1] f32 output\nsbuf x [1, 3] f32\nsbuf y [1, 3] f32\nsbuf r [1, 1] f32\n\n"
      "memset x, 1.0\nmemset x[0:1, 0:1], 16777216.0\nact y, x, identity, reduce=add -> r\ndma O, r\n";
  EXPECT_EQ(outputWords(text), floats({16777216.0f}));
}

// The fold takes the f32 values before DST's rounding. x = 1 + 3 * 2^-9 (exact in f32) twice: fused, the f32 sum is
// 2 + 3 * 2^-8 = 0x4000c000; stored to a bf16 DST each rounds up to 1 + 2^-7 (0.75 of an ulp), so act followed by a
// separate reduce of DST gives 2 + 2^-6 = 0x40010000.
TEST(FusedReduce, FoldsTheValuesBeforeTheDestinationsRounding) {
  const std::string head =
      "arch tiny\ndram O [1, 1] f32 output\nsbuf x [1, 2] f32\nsbuf y [1, 2] bf16\nsbuf r [1, 1] f32\n\n"
      "memset x, 1.005859375\n";
  EXPECT_EQ(outputWords(head + "act y, x, identity, reduce=add -> r\ndma O, r\n"), std::vector<uint32_t>{0x4000c000u});
  EXPECT_EQ(outputWords(head + "act y, x, identity\nreduce r, y, add\ndma O, r\n"), std::vector<uint32_t>{0x40010000u});
}

// With an f32 DST, `act d, s, F, reduce=add -> r` is `act d, s, F` then `reduce r, d, add` (docs/format.md): the
// existing reduce is an independent oracle, on random inputs, for exp with a per-partition bias and for a two-op ts.
TEST(FusedReduce, EqualsActThenReduceWithAnF32Destination) {
  const std::string head =
      "arch tiny\ndram A [4, 40] f32 input\ndram O [4, 1] f32 output\nsbuf a [4, 40] f32\nsbuf c [4, 1] f32\n"
      "sbuf y [4, 40] f32\nsbuf r [4, 1] f32\n\ndma a, A\nreduce c, a, min\n";
  const char* ops[] = {"act y, a, exp, scale=0.25, bias=c", "ts y, a, c, sub, 3.0, mul", "act y, a, tanh"};
  const char* reds[] = {"add", "max", "min"};
  for (const char* op : ops)
    for (const char* red : reds) {
      const std::string fused = head + op + ", reduce=" + red + " -> r\ndma O, r\n";
      const std::string unfused = head + op + "\nreduce r, y, " + red + "\ndma O, r\n";
      EXPECT_EQ(outputWords(fused), outputWords(unfused)) << op << " " << red;
    }
}

// R bf16: the f32 fold is converted once. 1 + 2 + 3 + 4 = 10 (0x4120), exact in bf16; and the row [1, 2^-8, 2^-8]
// sums in f32 to 1 + 2^-7, which bf16 holds; folding in bf16 would round 1 + 2^-8 (a tie) to 1 twice and give 1.
TEST(FusedReduce, Bf16ResultIsConvertedOnce) {
  const std::string text =
      "arch tiny\ndram O [1, 1] bf16 output\nsbuf x [1, 3] f32\nsbuf y [1, 3] f32\nsbuf r [1, 1] bf16\n\n"
      "memset x, 0.00390625\nmemset x[0:1, 0:1], 1.0\nact y, x, identity, reduce=add -> r\ndma O, r\n";
  EXPECT_EQ(outputWords(text), std::vector<uint32_t>{0x3f81u});
}

TEST(FusedReduce, ParsesAndPrintsBack) {
  const std::string text =
      "arch tiny\nsbuf x [2, 4] f32\nsbuf y [2, 4] f32\nsbuf r [2, 2] f32\nsbuf b [2, 1] f32\nreg n\n\n"
      "memset x, 1.0\nmemset b, 1.0\n"
      "act y, x, exp, reduce=add -> r[:, 0:1]\n"
      "act y, x, identity, scale=0.5, bias=b, reduce=max -> r[:, 1:1]\n"
      "ts y, x, 2.0, mul, reduce=min -> r[:, 0:1]\n"
      "ts y, x, b, add, 3.0, div, reduce=add -> r[:, 1:1]\n"
      "loop n = 0, 2, 1 {\n"
      "  act y[n:1, :], x[n:1, :], tanh, reduce=add -> r[n:1, 0:1]\n"
      "}\n";
  const Program p = printedBack(text);
  EXPECT_TRUE(hasFusedReduce(p.body[2]));
  EXPECT_EQ(p.body[3].reduce_alu, AluOp::Max);
  EXPECT_EQ(p.body[3].rare->bias.kind, ScalarOperand::Kind::Tensor);
  EXPECT_TRUE(hasSecondOp(p.body[5]) && hasFusedReduce(p.body[5]));
  EXPECT_FALSE(hasFusedReduce(p.body[1]));
}

// The parse error tests' declarations.
const std::string kParseHead = "arch tiny\nsbuf x [2, 4] f32\nsbuf y [2, 4] f32\nsbuf r [2, 1] f32\n\n";

TEST(FusedReduce, ParseErrorsAreLocated) {
  expectParseErrors(kParseHead, {
      {"act y, x, exp, reduce=add r",
       "t:6:27: expected '->' and the reduction's [P, 1] destination after reduce=add\n"},
      {"act y, x, exp, reduce=add - > r",
       "t:6:27: expected '->' and the reduction's [P, 1] destination after reduce=add\n"},
      {"act y, x, exp, reduce=add -> r, bias=1.0", "t:6:31: nothing may follow the fused reduction's destination\n"},
      {"ts y, x, 1.0, add, reduce add -> r", "t:6:27: expected '=' after reduce\n"},
  });
}

// The checker tests' declarations (and the instructions that define their sources).
const std::string kCheckHead =
    "arch tiny\ndram D [2, 1] f32 input\nsbuf x [2, 2] f32\nsbuf i [2, 2] u32\nsbuf y [2, 2] f32\n"
    "sbuf r [2, 1] f32\nsbuf u [2, 1] u32\nsbuf j [2, 2] u32\nreg n\n\nmemset x, 1.0\nmemset i, 1\n";

TEST(FusedReduce, CheckerErrorsAreLocated) {
  expectDiagnostics(kCheckHead, {
      {"act y, x, exp, reduce=add -> r\nts y, x, 1.0, add, reduce=min -> r\n", ""},
      {"act y, x, exp, reduce=mul -> r\n", "t:13:30: a fused reduction takes add, max or min, not mul\n"},
      {"act j, i, identity, reduce=add -> r\n",
       "t:13:8: act with a fused reduction computes in f32 and needs a float source; 'i' is u32\n"},
      {"act y, x, exp, reduce=add -> x\n",
       "t:13:30: reduction destination 'x' view [2, 2] must be [2, 1] (one value per partition)\n"},
      {"act y, x, exp, reduce=add -> u\n", "t:13:30: reduction destination 'u' must be f32 or bf16, not u32\n"},
      {"act y, x, exp, reduce=add -> D\n", "t:13:30: ACT cannot access DRAM tensor 'D'; move it with dma\n"},
      // Overlaps, checked on every execution: the destination, a source, and a register-indexed one in a loop.
      {"act y, x, exp, reduce=add -> y[:, 1:1]\n",
       "t:13:30: reduction destination y[0:2, 1:1] overlaps the destination 'y'; it must be a tensor range of "
       "its own\n"},
      {"ts y, x, 2.0, mul, reduce=add -> x[:, 0:1]\n",
       "t:13:34: reduction destination x[0:2, 0:1] overlaps the source 'x'; it must be a tensor range of its "
       "own\n"},
      {"loop n = 0, 2, 1 {\n  act y[:, 0:1], x[:, 1:1], exp, reduce=add -> y[:, n:1]\n}\n",
       "t:14:48: reduction destination y[0:2, 0:1] overlaps the destination 'y'; it must be a tensor range of "
       "its own (n = 0)\n"},
  });
}

// R is a write operand: tensor accesses, operand effects (liveness), the operand views the precise liveness walks,
// and the register operands of its address.
TEST(FusedReduce, ReductionDestinationIsAWriteOperand) {
  const Program p = parseProgram(
      "arch tiny\nsbuf x [2, 4] f32\nsbuf y [2, 4] f32\nsbuf r [2, 2] f32\nreg n\n\nmemset x, 1.0\nli n, 1\n"
      "act y, x, exp, reduce=add -> r[:, n:1]\n");
  const Instruction& act = p.body[2];
  const TensorAccessList acc = tensorAccesses(p, act, Space::Sbuf);
  ASSERT_EQ(acc.size(), 3u);
  EXPECT_EQ(acc[2].operand, Operand::ReduceDst);
  EXPECT_TRUE(acc[2].write);
  EXPECT_FALSE(acc[2].read);
  EXPECT_EQ(operandOf(act, Operand::ReduceDst).tensor, p.findTensor("r"));
  const OperandEffects e = operandEffects(p, act);
  ASSERT_EQ(e.tensor_writes.size(), 2u);
  EXPECT_EQ(e.tensor_writes[1].tensor, p.findTensor("r"));
  EXPECT_EQ(e.tensor_writes[1].cover, WriteCover::Partial);  // one column of two
  EXPECT_EQ(e.tensor_reads, std::vector<TensorId>{p.findTensor("x")});
  EXPECT_EQ(e.reg_reads, std::vector<RegId>{p.findRegister("n")});
  const OperandViews v = operandViews(act);
  EXPECT_EQ(v.reduce_write, &act.rare->reduce_dst);
  const std::vector<RegisterOperand> regs = registerOperands(p, act);
  ASSERT_EQ(regs.size(), 1u);
  EXPECT_EQ(regs[0].role, "address of reduction destination 'r[:, n:1]'");
}

// A hand kernel (softmax's row sum: exp with the negated row max as bias, summed by the same act) with R indexed by
// a loop register, allocated at O2: the oracles pass and the simulator gives the interpreter's bits.
TEST(FusedReduce, AllocatesAndSimulatesToTheInterpretersBits) {
  const Program p = parseProgram(
      "arch tiny\ndram A [4, 8] f32 input\ndram O [4, 8] f32 output\nsbuf a [4, 8] f32\nsbuf m [4, 1] f32\n"
      "sbuf s [4, 1] f32\nsbuf e [4, 8] f32\nreg n\n\n"
      "dma a, A\nreduce m, a, max\nts m, m, -1.0, mul\n"
      "loop n = 0, 4, 1 {\n  act e[n:1, :], a[n:1, :], exp, bias=m[n:1, 0:1], reduce=add -> s[n:1, 0:1]\n}\n"
      "ts e, e, s, div, 2.0, mul, reduce=max -> m\ndma O, e\n");
  ASSERT_TRUE(checkProgram(p).empty());
  expectEveryLevelCorrectAndSimulated(p, {2}, 11);
}

// Generated tiny programs (seeds 1-100, size 30) with a fused reduction.
TEST(FusedReduce, GeneratedProgramsAllocateVerifyAndSimulate) {
  const GeneratedChecks r = checkGeneratedPrograms(
      30, instructionsWhere([](const Program&, const Instruction& i) { return hasFusedReduce(i); }));
  // The bounds sit a little below what these seeds give: a change of the generator's mix moves every later draw, so
  // they bound the counts from below rather than pin them.
  EXPECT_GE(r.with, 14u);
  EXPECT_GE(r.verified, r.with * 3 / 4);
}

}  // namespace
}  // namespace allocsim
