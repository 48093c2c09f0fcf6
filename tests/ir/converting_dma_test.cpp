// The converting DMA (docs/format.md "Converting DMA"): f32 -> bf16 rounds to nearest even on bit patterns, bf16 ->
// f32 is exact; the checker accepts that one pair only; DMA optimization never treats it as a byte copy; generated
// programs that contain it allocate, pass the three oracles and simulate to the interpreter's bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "alloc/alloc_error.h"
#include "alloc/dma_opt/dma_scope.h"
#include "alloc/driver.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/check.h"
#include "ir/inputs.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "ir/values.h"
#include "tests/common/program_text.h"
#include "tests/common/sim_checks.h"
#include "tests/common/verify_checks.h"

namespace allocsim {
namespace {

uint16_t toBf16(uint32_t f32bits) {
  uint8_t in[4], out[2];
  std::memcpy(in, &f32bits, 4);
  convertF32Bf16(DType::F32, in, 1, out);
  uint16_t b;
  std::memcpy(&b, out, 2);
  return b;
}

// Worked by hand: the low 16 bits decide, 0x8000 is the tie, the even neighbour wins a tie.
TEST(ConvertingDma, RoundsToNearestEvenOnBits) {
  EXPECT_EQ(toBf16(0x3f808000u), 0x3f80u);  // 1 + 2^-8: tie, 0x3f80 is even
  EXPECT_EQ(toBf16(0x3f818000u), 0x3f82u);  // 1 + 3*2^-8: tie, 0x3f82 is even
  EXPECT_EQ(toBf16(0x3f808001u), 0x3f81u);  // just above the tie
  EXPECT_EQ(toBf16(0x3f807fffu), 0x3f80u);  // just below it
  EXPECT_EQ(toBf16(0x7f7fffffu), 0x7f80u);  // the largest f32 rounds up to infinity
  EXPECT_EQ(toBf16(0x80000000u), 0x8000u);  // -0 stays -0
  EXPECT_EQ(toBf16(0xff800000u), 0xff80u);  // -inf
  EXPECT_EQ(toBf16(0x00000001u), 0x0000u);  // the smallest subnormal rounds to +0
}

// NaN: sign and the 7 high payload bits kept, quiet bit set; never the canonical NaN of arithmetic.
TEST(ConvertingDma, NaNKeepsSignAndHighPayload) {
  EXPECT_EQ(toBf16(0x7f800001u), 0x7fc0u);  // signalling, payload only in the low bits
  EXPECT_EQ(toBf16(0xffa00000u), 0xffe0u);  // negative signalling NaN with payload bit 21
  EXPECT_EQ(toBf16(0x7fc12345u), 0x7fc1u);  // quiet NaN: truncated, not rounded
}

// bf16 -> f32 appends 16 zero bits, for every one of the 65,536 patterns (NaNs included).
TEST(ConvertingDma, Bf16ToF32IsExactForEveryPattern) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = uint16_t(b);
    uint8_t out[4];
    convertF32Bf16(DType::BF16, reinterpret_cast<const uint8_t*>(&h), 1, out);
    uint32_t u;
    std::memcpy(&u, out, 4);
    ASSERT_EQ(u, b << 16) << b;
  }
}

const char* kProgram =
    "arch tiny\n"
    "dram A [4, 16] f32 input\n"
    "dram H [4, 16] bf16 input\n"
    "dram OA [4, 16] bf16 output\n"
    "dram OH [4, 16] f32 output\n"
    "sbuf a [4, 16] f32\n"
    "sbuf ah [4, 16] bf16\n"
    "sbuf h [4, 16] bf16\n"
    "\n"
    "dma ah, A\n"
    "dma OA, ah\n"
    "dma a, H\n"
    "dma OH, a\n";

// On the interpreter's random inputs, against an oracle in double: the nearer of the two bf16 values around x
// (truncated and one up), the even one on a tie.
TEST(ConvertingDma, InterpreterConvertsBothWays) {
  const Program p = parseProgram(kProgram);
  ASSERT_TRUE(checkProgram(p).empty());
  InterpOptions o;
  o.input_seed = 7;
  const InterpResult r = interpret(p, o);
  const std::vector<std::vector<uint8_t>> inputs = makeInputs(p, 7);
  const std::vector<uint8_t>&A = inputs[p.findTensor("A")], &H = inputs[p.findTensor("H")];
  const std::vector<uint8_t>&OA = r.outputs[p.findTensor("OA")], &OH = r.outputs[p.findTensor("OH")];
  ASSERT_EQ(OA.size(), 4u * 16 * 2);
  for (size_t e = 0; e < 64; ++e) {
    uint32_t x;
    std::memcpy(&x, A.data() + 4 * e, 4);
    const uint16_t lo = uint16_t(x >> 16), hi = uint16_t(lo + 1);
    const double v = bitsF32(x), dlo = std::fabs(v - bf16ToF32(lo)), dhi = std::fabs(v - bf16ToF32(hi));
    const uint16_t want = dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi);
    uint16_t got;
    std::memcpy(&got, OA.data() + 2 * e, 2);
    EXPECT_EQ(got, want) << e;
    uint16_t h;
    std::memcpy(&h, H.data() + 2 * e, 2);
    uint32_t wide;
    std::memcpy(&wide, OH.data() + 4 * e, 4);
    EXPECT_EQ(wide, uint32_t(h) << 16) << e;
  }
}

TEST(ConvertingDma, ParsesAndPrintsBack) {
  const Program p = parseProgram(kProgram);
  EXPECT_EQ(printProgram(p), kProgram);
  EXPECT_EQ(parseProgram(printProgram(p)), p);
}

// The checker tests' declarations.
const std::string kCheckHead =
    "arch tiny\ndram A [4, 16] f32 input\nsbuf u [4, 16] u16\nsbuf i [4, 16] i32\n"
    "sbuf h [4, 16] bf16\n";

TEST(ConvertingDma, CheckerAllowsOnlyF32AndBf16) {
  expectDiagnostics(kCheckHead, {
      {"dma h, A\n", ""},
      {"dma i, A\n",
       "t:6:1: dma dtypes differ: destination 'i' is i32, source 'A' is f32; only f32 <-> bf16 converts\n"},
      {"memset h, 1.0\ndma u, h\n",
       "t:7:1: dma dtypes differ: destination 'u' is u16, source 'h' is bf16; only f32 <-> bf16 converts\n"},
  });
}

// A reload that converts is not a byte copy: neither DMA optimization instance may touch it.
TEST(ConvertingDma, DmaOptimizationLeavesItAlone) {
  const Program p = parseProgram(
      "arch tiny\ndram A [4, 16] f32 input\nsbuf h [4, 16] bf16\nsbuf g [4, 16] bf16\nsbuf a [4, 16] f32\n\n"
      "dma h, A !reload\ndma a, h !reload\ndma g, h !reload\n");
  EXPECT_FALSE(isOptimizable(p, p.body[0], DmaOptInstance::Sb));
  EXPECT_FALSE(isOptimizable(p, p.body[1], DmaOptInstance::Sb));
  EXPECT_TRUE(isOptimizable(p, p.body[2], DmaOptInstance::Sb));  // the same dtype: a byte copy
}

// Generated tiny programs (seeds 1-100): those with a converting DMA allocate at O2, pass all three oracles
// against the original, and the simulator gives the interpreter's bits.
TEST(ConvertingDma, GeneratedProgramsAllocateVerifyAndSimulate) {
  const GeneratedChecks r = checkGeneratedPrograms(
      12, instructionsWhere([](const Program& p, const Instruction& i) { return isConvertingDma(p, i); }));
  EXPECT_GE(r.with, 20u);
  EXPECT_GE(r.verified, 15u);
}

}  // namespace
}  // namespace allocsim
