// The comparison ALU operations eq ne lt le gt ge and keep (docs/format.md "Comparisons"): 1 or 0 in the operation's
// class, IEEE comparisons on floats, the first source's signedness on integers; keep gives the first source where the
// second is nonzero and the additive identity elsewhere, so that two kept tiles added select exactly. Parsed and
// printed back, refused where the format says, allocated, verified and simulated to the interpreter's bits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "ir/values.h"
#include "tests/common/program_text.h"
#include "tests/common/verify_checks.h"

namespace allocsim {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

TEST(AluCompare, FloatComparisonsFollowIeee) {
  EXPECT_EQ(aluF32(AluOp::Gt, 2.0f, 1.0f), 1.0f);
  EXPECT_EQ(aluF32(AluOp::Gt, 1.0f, 1.0f), 0.0f);
  EXPECT_EQ(aluF32(AluOp::Ge, 1.0f, 1.0f), 1.0f);
  EXPECT_EQ(aluF32(AluOp::Lt, -kInf, -3.0f), 1.0f);
  EXPECT_EQ(aluF32(AluOp::Le, 2.0f, 1.0f), 0.0f);
  EXPECT_EQ(aluF32(AluOp::Eq, -0.0f, 0.0f), 1.0f);  // the zeros are equal
  EXPECT_EQ(aluF32(AluOp::Ne, -0.0f, 0.0f), 0.0f);
  for (AluOp op : {AluOp::Eq, AluOp::Lt, AluOp::Le, AluOp::Gt, AluOp::Ge}) {
    EXPECT_EQ(aluF32(op, kNaN, 1.0f), 0.0f) << aluName(op);  // a NaN compares unequal to everything
    EXPECT_EQ(aluF32(op, kNaN, kNaN), 0.0f) << aluName(op);
  }
  EXPECT_EQ(aluF32(AluOp::Ne, kNaN, kNaN), 1.0f);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Lt, 1.0f, 2.0f)), 0x3f800000u);  // +1.0 and +0.0 exactly
  EXPECT_EQ(f32Bits(aluF32(AluOp::Gt, 1.0f, 2.0f)), 0u);
}

TEST(AluCompare, IntegersCompareInTheFirstSourcesSignedness) {
  const NumClass s = NumClass::Signed, u = NumClass::Unsigned;
  EXPECT_EQ(aluInt(AluOp::Lt, 0xffffffffu, 1, s), 1u);  // -1 < 1
  EXPECT_EQ(aluInt(AluOp::Lt, 0xffffffffu, 1, u), 0u);  // 4294967295 > 1
  EXPECT_EQ(aluInt(AluOp::Ge, 0x80000000u, 0x7fffffffu, s), 0u);
  EXPECT_EQ(aluInt(AluOp::Ge, 0x80000000u, 0x7fffffffu, u), 1u);
  EXPECT_EQ(aluInt(AluOp::Eq, 7, 7, s), 1u);
  EXPECT_EQ(aluInt(AluOp::Ne, 7, 7, u), 0u);
  EXPECT_EQ(aluInt(AluOp::Le, 3, 3, s), 1u);
  EXPECT_EQ(aluInt(AluOp::Gt, 3, 3, u), 0u);
  EXPECT_FALSE(aluIsIntegerOnly(AluOp::Gt));
  EXPECT_TRUE(aluIsComparison(AluOp::Ge));
  EXPECT_FALSE(aluIsComparison(AluOp::Keep));
}

TEST(AluCompare, KeepGivesTheAdditiveIdentityWhereTheSecondIsZero) {
  EXPECT_EQ(f32Bits(aluF32(AluOp::Keep, -0.0f, 1.0f)), 0x80000000u);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Keep, kInf, 0.0f)), 0x80000000u);  // an infinity dropped, not inf * 0
  EXPECT_EQ(f32Bits(aluF32(AluOp::Keep, kNaN, -0.0f)), 0x80000000u);
  EXPECT_EQ(aluF32(AluOp::Keep, -kInf, 2.0f), -kInf);
  EXPECT_EQ(aluF32(AluOp::Keep, 1.5f, kNaN), 1.5f);  // a NaN second source is nonzero
  EXPECT_TRUE(std::isnan(aluF32(AluOp::Keep, kNaN, 1.0f)));
  EXPECT_EQ(aluInt(AluOp::Keep, 0xdeadbeefu, 2, NumClass::Unsigned), 0xdeadbeefu);
  EXPECT_EQ(aluInt(AluOp::Keep, 0xdeadbeefu, 0, NumClass::Signed), 0u);
}

const std::string kHead =
    "arch tiny\ndram O [2, 4] f32 output\ndram M [2, 4] f32 output\nsbuf x [2, 4] f32\nsbuf y [2, 4] f32\n"
    "sbuf c [2, 4] f32\nsbuf m [2, 4] f32\nsbuf a [2, 4] f32\nsbuf b [2, 4] f32\n\n";

// x = [1, -0, inf, NaN] in both partitions (iota-free: memsets of single columns), y = -2 everywhere, the condition
// c = x > 0.5 computed on the tile: 1 for 1 and inf, 0 for -0 and NaN. where(c, x, y) by keep + add gives
// [1, -2, inf, -2]: the infinity and the NaN are exact where kept and vanish where not.
const std::string kSelect =
    "memset x[:, 0:1], 1.0\nmemset x[:, 1:1], -0.0\nmemset x[:, 2:1], inf\nmemset x[:, 3:1], nan\nmemset y, -2.0\n"
    "ts c, x, 0.5, gt\nts m, c, 0.0, eq\ntt a, x, c, keep\ntt b, y, m, keep\ntt a, a, b, add\ndma O, a\ndma M, c\n";

TEST(AluCompare, KeepSelectsExactly) {
  const std::vector<uint32_t> o = outputWords(kHead + kSelect);
  const uint32_t row[] = {0x3f800000u, f32Bits(-2.0f), 0x7f800000u, f32Bits(-2.0f)};
  for (size_t i = 0; i < o.size(); ++i) EXPECT_EQ(o[i], row[i % 4]) << i;
  const std::vector<uint32_t> c = outputWords(kHead + kSelect, "M");
  const uint32_t mask[] = {0x3f800000u, 0u, 0x3f800000u, 0u};
  for (size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i], mask[i % 4]) << i;
}

// A comparison into an integer destination stores 1 / 0 (of floats too); a u32 first source compares unsigned.
TEST(AluCompare, IntegerDestinationsAndSources) {
  const std::string text =
      "arch tiny\ndram O [2, 2] i32 output\nsbuf x [2, 2] u32\nsbuf f [2, 2] f32\nsbuf y [2, 2] i32\n\n"
      "memset x, 4294967295\nmemset f, 2.5\nts y[:, 0:1], x[:, 0:1], 1, gt\ntt y[:, 1:1], f[:, 0:1], f[:, 1:1], ge\n"
      "dma O, y\n";
  EXPECT_EQ(outputWords(text), (std::vector<uint32_t>{1, 1, 1, 1}));
}

TEST(AluCompare, ParsesPrintsAndIsRefusedWhereTheFormatSays) {
  const std::string text = kHead + "memset x, 1.0\nmemset y, 2.0\ntt c, x, y, le\nts m, x, 1.0, ne, 2.0, mul\n"
                                   "tt a, x, c, keep\n";
  const Program p = printedBack(text);
  EXPECT_EQ(p.body[2].alu, AluOp::Le);
  EXPECT_EQ(p.body[3].alu, AluOp::Ne);
  EXPECT_EQ(p.body[4].alu, AluOp::Keep);
  const std::string decl = "arch tiny\nsbuf x [2, 4] f32\nsbuf r [2, 1] f32\nsbuf y [2, 4] f32\n\nmemset x, 1.0\n";
  EXPECT_EQ(firstErrorOf(decl + "reduce r, x, gt\n"),
            "t:7:1: reduce cannot use gt; it reduces with add mul max min and or xor");
  EXPECT_EQ(firstErrorOf(decl + "tt_scan y, x, x, 0.0, keep, add\n"),
            "t:7:1: tt_scan cannot use keep; its operations are add sub mul max min div");
  EXPECT_EQ(firstErrorOf(decl + "ts y, x, 1.0, add, reduce=ge -> r\n"),
            "t:7:33: a fused reduction takes add, max or min, not ge");
}

// The selection in a loop over partitions, allocated at O0 and O2: the three oracles pass and the simulator computes
// the interpreter's bits.
TEST(AluCompare, AllocatesVerifiesAndSimulates) {
  const Program p = checkedProgram(
      "arch tiny\ndram X [4, 8] f32 input\ndram Y [4, 8] f32 input\ndram O [4, 8] f32 output\n"
      "sbuf x [4, 8] f32\nsbuf y [4, 8] f32\nsbuf c [4, 8] f32\nsbuf a [4, 8] f32\nreg n\n\n"
      "dma x, X\ndma y, Y\n"
      "loop n = 0, 4, 1 {\n  tt c[n:1, :], x[n:1, :], y[n:1, :], lt\n  ts c[n:1, :], c[n:1, :], 0.0, eq, 1.0, keep\n}\n"
      "tt a, x, c, keep\nts c, c, 0.0, eq\ntt c, y, c, keep\ntt a, a, c, add\ndma O, a\n");
  expectEveryLevelCorrectAndSimulated(p, {0, 2}, 11);
}

}  // namespace
}  // namespace allocsim
