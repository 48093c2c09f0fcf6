// The one implementation of the activation functions (ir/transcendental.h) against an independent oracle, the
// host's libm in double precision rounded once to f32 (allowed to differ by at most one f32 ulp, since neither
// side is guaranteed correctly rounded), plus the special values docs/format.md "Activation functions" states.
// Integer and float `div` (docs/format.md "Semantics") against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "gen/stats.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "ir/transcendental.h"
#include "ir/values.h"

namespace allocsim {
namespace {

int64_t orderedBits(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
}
// Distance in f32 ulps (the representable floats between a and b); NaN == NaN.
int64_t ulps(float a, float b) {
  if (a != a || b != b) return (a != a) == (b != b) ? 0 : INT64_MAX;
  return std::llabs(orderedBits(a) - orderedBits(b));
}

// x from -span to span in `steps` steps, plus the tiny and the huge.
template <typename F>
void sweep(float span, int steps, F&& f) {
  for (int k = 0; k <= steps; ++k) f(-span + 2 * span * float(k) / float(steps));
  for (float x : {1e-30f, -1e-30f, 1e-7f, -1e-7f, 0.0f, -0.0f, 3e4f, -3e4f}) f(x);
}

TEST(Transcendental, WithinOneUlpOfLibmInDouble) {
  int checked = 0;
  sweep(80.0f, 4001, [&](float x) {
    const double d = x;
    EXPECT_LE(ulps(expF32(x), float(std::exp(d))), 1) << "exp " << x;
    EXPECT_LE(ulps(tanhF32(x), float(std::tanh(d))), 1) << "tanh " << x;
    EXPECT_LE(ulps(sigmoidF32(x), float(1.0 / (1.0 + std::exp(-d)))), 1) << "sigmoid " << x;
    EXPECT_LE(ulps(siluF32(x), float(d / (1.0 + std::exp(-d)))), 1) << "silu " << x;
    EXPECT_LE(ulps(geluF32(x), float(0.5 * d * std::erfc(-d / std::sqrt(2.0)))), 1) << "gelu " << x;
    if (x > 0) {
      EXPECT_LE(ulps(rsqrtF32(x), float(1.0 / std::sqrt(d))), 1) << "rsqrt " << x;
    }
    ++checked;
  });
  EXPECT_EQ(checked, 4002 + 8);
}

TEST(Transcendental, DoubleKernelsAgreeWithLibm) {
  for (double x = -30; x <= 30; x += 0.0625) {
    EXPECT_NEAR(expDouble(x), std::exp(x), std::exp(x) * 1e-15) << x;
    EXPECT_NEAR(expm1Double(x * 0.01), std::expm1(x * 0.01), std::fabs(std::expm1(x * 0.01)) * 1e-15) << x;
  }
  for (double x = -6; x <= 6; x += 0.03125) {
    EXPECT_NEAR(erfDouble(x), std::erf(x), 1e-15) << x;
    EXPECT_NEAR(erfcDouble(x), std::erfc(x), std::erfc(x) * 1e-13 + 1e-300) << x;
  }
}

TEST(Transcendental, CorrectlyRoundedOnesAreExact) {
  sweep(1000.0f, 2001, [&](float x) {
    EXPECT_EQ(f32Bits(sqrtF32(std::fabs(x))), f32Bits(std::sqrt(std::fabs(x)))) << x;
    EXPECT_EQ(f32Bits(reciprocalF32(x)), f32Bits(1.0f / x)) << x;
  });
}

TEST(Transcendental, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(expF32(0), 1.0f);
  EXPECT_EQ(expF32(1000), inf);
  EXPECT_EQ(expF32(-1000), 0.0f);
  EXPECT_EQ(tanhF32(inf), 1.0f);
  EXPECT_EQ(tanhF32(-inf), -1.0f);
  EXPECT_EQ(f32Bits(tanhF32(-0.0f)), f32Bits(-0.0f));
  EXPECT_EQ(sigmoidF32(0), 0.5f);
  EXPECT_EQ(sigmoidF32(-inf), 0.0f);
  EXPECT_EQ(sigmoidF32(inf), 1.0f);
  EXPECT_EQ(f32Bits(siluF32(-inf)), f32Bits(-0.0f));
  EXPECT_EQ(siluF32(inf), inf);
  EXPECT_EQ(geluF32(0), 0.0f);
  EXPECT_EQ(geluF32(inf), inf);
  EXPECT_EQ(f32Bits(geluF32(-inf)), f32Bits(-0.0f));
  EXPECT_EQ(sqrtF32(4), 2.0f);
  EXPECT_EQ(rsqrtF32(4), 0.5f);
  EXPECT_EQ(rsqrtF32(0.0f), inf);
  EXPECT_EQ(rsqrtF32(-0.0f), -inf);
  EXPECT_EQ(reciprocalF32(-0.0f), -inf);
  EXPECT_EQ(reciprocalF32(4), 0.25f);
  for (float bad : {nan, -1.0f})
    for (float r : {sqrtF32(bad), rsqrtF32(bad)}) EXPECT_EQ(f32Bits(r), f32Bits(quietNaN())) << bad;
  for (float r : {expF32(nan), tanhF32(nan), sigmoidF32(nan), siluF32(nan), geluF32(nan), reciprocalF32(nan)})
    EXPECT_EQ(f32Bits(r), f32Bits(quietNaN()));
}

TEST(Transcendental, ActivationsGoThroughTheOneImplementation) {
  for (float x : {-3.5f, -0.25f, 0.0f, 0.75f, 9.0f}) {
    EXPECT_EQ(f32Bits(actF32(ActFunc::Exp, x)), f32Bits(expF32(x)));
    EXPECT_EQ(f32Bits(actF32(ActFunc::Tanh, x)), f32Bits(tanhF32(x)));
    EXPECT_EQ(f32Bits(actF32(ActFunc::Sigmoid, x)), f32Bits(sigmoidF32(x)));
    EXPECT_EQ(f32Bits(actF32(ActFunc::Silu, x)), f32Bits(siluF32(x)));
    EXPECT_EQ(f32Bits(actF32(ActFunc::Gelu, x)), f32Bits(geluF32(x)));
    EXPECT_EQ(f32Bits(actF32(ActFunc::Sqrt, x)), f32Bits(sqrtF32(x)));
    EXPECT_EQ(f32Bits(actF32(ActFunc::Rsqrt, x)), f32Bits(rsqrtF32(x)));
    EXPECT_EQ(f32Bits(actF32(ActFunc::Reciprocal, x)), f32Bits(reciprocalF32(x)));
  }
  for (ActFunc f : {ActFunc::Silu, ActFunc::Gelu, ActFunc::Sqrt, ActFunc::Rsqrt, ActFunc::Reciprocal}) {
    EXPECT_TRUE(actIsFloatOnly(f)) << actName(f);
    EXPECT_EQ(parseAct(actName(f)), f);
  }
}

TEST(Divide, IntegerByHand) {
  const NumClass s = NumClass::Signed, u = NumClass::Unsigned;
  EXPECT_EQ(aluInt(AluOp::Div, 7, 2, s), 3u);
  EXPECT_EQ(aluInt(AluOp::Div, uint32_t(-7), 2, s), uint32_t(-3));  // toward zero
  EXPECT_EQ(aluInt(AluOp::Div, 7, uint32_t(-2), s), uint32_t(-3));
  EXPECT_EQ(aluInt(AluOp::Div, 0xfffffffeu, 2, u), 0x7fffffffu);
  EXPECT_EQ(aluInt(AluOp::Div, 0xfffffffeu, 2, s), 0xffffffffu);  // -2 / 2
  EXPECT_EQ(aluInt(AluOp::Div, 5, 0, s), 0xffffffffu);
  EXPECT_EQ(aluInt(AluOp::Div, 5, 0, u), 0xffffffffu);
  EXPECT_EQ(aluInt(AluOp::Div, 0x80000000u, 0xffffffffu, s), 0x80000000u);
  EXPECT_EQ(aluInt(AluOp::Div, 0x80000000u, 0xffffffffu, u), 0u);
  EXPECT_FALSE(aluIsIntegerOnly(AluOp::Div));
  EXPECT_TRUE(aluIsIntegerOnly(AluOp::Shr));
  EXPECT_EQ(aluClass(AluOp::Div, DType::F32), NumClass::Float);
}

TEST(Divide, FloatIsTheIeeeQuotient) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(aluF32(AluOp::Div, 1.0f, 4.0f), 0.25f);
  EXPECT_EQ(aluF32(AluOp::Div, 1.0f, 3.0f), 1.0f / 3.0f);
  EXPECT_EQ(aluF32(AluOp::Div, -1.0f, 0.0f), -inf);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Div, 0.0f, 0.0f)), f32Bits(quietNaN()));
}

const char* const kProgram =
    "arch tiny\n"
    "dram A [8, 16] f32 input\n"
    "dram C [8, 16] f32 output\n"
    "sbuf a [8, 16] f32\n"
    "sbuf c [8, 16] f32\n"
    "sbuf i [8, 16] i32\n"
    "\n"
    "dma a, A\n"
    "act c, a, gelu\n"
    "act c, c, silu\n"
    "act c, c, rsqrt\n"
    "act c, c, reciprocal\n"
    "act c, c, sqrt\n"
    "tt c, c, a, div\n"
    "ts c, c, 3, div\n"
    "memset i, 7\n"
    "ts i, i, -2, div\n"
    "dma C, c\n";

TEST(NewOps, ParsePrintRoundTripAndWellFormed) {
  Program p = parseProgram(kProgram);
  EXPECT_EQ(printProgram(p), kProgram);
  EXPECT_TRUE(checkProgram(p).empty());
}

TEST(NewOps, GenStatsCountsThem) {
  uint64_t seen = 0;
  for (const ShapeFeature& f : measureShape(parseProgram(kProgram))) {
    const uint64_t want = f.name == "div (tt, ts)" ? 3
                          : f.name == "act gelu" || f.name == "act silu" || f.name == "act rsqrt" ||
                                  f.name == "act reciprocal" || f.name == "act sqrt"
                              ? 1
                          : f.name.rfind("act ", 0) == 0 ? 0
                                                          : f.count;
    EXPECT_EQ(f.count, want) << f.name;
    seen += f.name == "div (tt, ts)" || f.name.rfind("act ", 0) == 0;
  }
  EXPECT_EQ(seen, 23u);  // 22 functions and div
}

TEST(NewOps, CheckerLocatesMisuse) {
  std::string base =
      "arch tiny\nsbuf a [8, 16] f32\nsbuf i [8, 16] u32\nsbuf r [8, 1] f32\nmemset a, 1\nmemset i, 1\n";
  auto first = [&](const std::string& line) {
    auto d = checkProgram(parseProgram(base + line + "\n"));
    return d.empty() ? std::string("none") : formatDiagnostic("t", d.front());
  };
  EXPECT_EQ(first("act i, i, rsqrt"), "t:7:8: act rsqrt needs a float source; 'i' is u32");
  EXPECT_EQ(first("act i, i, gelu"), "t:7:8: act gelu needs a float source; 'i' is u32");
  EXPECT_EQ(first("reduce r, a, div"), "t:7:1: reduce cannot use div; it reduces with add mul max min and or xor");
  EXPECT_EQ(first("tt i, i, i, div"), "none");  // integer division is defined for every input
}

}  // namespace
}  // namespace allocsim
