// The one implementation of the activation functions (ir/transcendental.h) against an independent oracle, the
// host's libm in double precision rounded once to f32 (allowed to differ by at most one f32 ulp, since neither
// side is guaranteed correctly rounded), plus the special values docs/format.md "Activation functions" states.
// Integer and float `div` (docs/format.md "Semantics") against values worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "gen/stats.h"
#include "ir/check.h"
#include "ir/inputs.h"
#include "ir/interp.h"
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

// The activation functions NKI kernels use beyond the first thirteen: log sin cos erf softplus gelu_apprx_tanh sign
// arctan mish, against libm in double (one f32 ulp), their special values, and through the parser, printer, checker
// and interpreter.

TEST(ActivationFunctions, WithinOneUlpOfLibmInDouble) {
  int checked = 0;
  sweep(60.0f, 6001, [&](float x) {
    const double d = x;
    EXPECT_LE(ulps(sinF32(x), float(std::sin(d))), 1) << "sin " << x;
    EXPECT_LE(ulps(cosF32(x), float(std::cos(d))), 1) << "cos " << x;
    EXPECT_LE(ulps(erfF32(x), float(std::erf(d))), 1) << "erf " << x;
    EXPECT_LE(ulps(softplusF32(x), float(std::max(d, 0.0) + std::log1p(std::exp(-std::fabs(d))))), 1) << "softplus " << x;
    // 0.5 d (1 + tanh z) = d / (1 + e^(-2z)): the textbook form where 1 + tanh z keeps its digits (|x| <= 3), the
    // other beyond, both with libm's functions.
    const double z = std::sqrt(2.0 / M_PI) * (d + 0.044715 * d * d * d);
    const double gelu = std::fabs(d) <= 3 ? 0.5 * d * (1.0 + std::tanh(z)) : d / (1.0 + std::exp(-2.0 * z));
    EXPECT_LE(ulps(geluTanhF32(x), float(gelu)), 1) << "gelu_apprx_tanh " << x;
    EXPECT_LE(ulps(atanF32(x), float(std::atan(d))), 1) << "arctan " << x;
    EXPECT_LE(ulps(mishF32(x), float(d * std::tanh(std::log1p(std::exp(d))))), 1) << "mish " << x;
    if (x > 0) {
      EXPECT_LE(ulps(logF32(x), float(std::log(d))), 1) << "log " << x;
    }
    ++checked;
  });
  EXPECT_EQ(checked, 6002 + 8);
  // log over the whole positive range, subnormals included; sin and cos up to 2^19.
  for (float x = 1e-44f; x < 3e38f; x *= 1.37f) EXPECT_LE(ulps(logF32(x), float(std::log(double(x)))), 1) << x;
  for (float x = 0.001f; x < 524288.0f; x *= 1.013f) {
    EXPECT_LE(ulps(sinF32(x), float(std::sin(double(x)))), 1) << "sin " << x;
    EXPECT_LE(ulps(cosF32(x), float(std::cos(double(x)))), 1) << "cos " << x;
  }
}

TEST(ActivationFunctions, DoubleKernelsAgreeWithLibm) {
  for (double x = 1e-300; x < 1e300; x *= 3.7) EXPECT_NEAR(logDouble(x), std::log(x), std::fabs(std::log(x)) * 4e-16);
  for (double t = 0; t <= 1; t += 1.0 / 64) EXPECT_NEAR(log1pDouble(t), std::log1p(t), 3e-16) << t;
  for (double x = -50; x <= 50; x += 0.0625) EXPECT_NEAR(atanDouble(x), std::atan(x), 3e-16) << x;
}

TEST(ActivationFunctions, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const uint32_t qnan = f32Bits(quietNaN());
  EXPECT_EQ(logF32(1.0f), 0.0f);
  EXPECT_EQ(logF32(0.0f), -inf);
  EXPECT_EQ(logF32(-0.0f), -inf);
  EXPECT_EQ(logF32(inf), inf);
  EXPECT_EQ(f32Bits(logF32(-1.0f)), qnan);
  EXPECT_EQ(f32Bits(sinF32(-0.0f)), f32Bits(-0.0f));
  EXPECT_EQ(cosF32(0.0f), 1.0f);
  EXPECT_EQ(f32Bits(sinF32(inf)), qnan);
  EXPECT_EQ(f32Bits(cosF32(-inf)), qnan);
  EXPECT_EQ(erfF32(inf), 1.0f);
  EXPECT_EQ(erfF32(-inf), -1.0f);
  EXPECT_EQ(f32Bits(erfF32(-0.0f)), f32Bits(-0.0f));
  EXPECT_EQ(softplusF32(inf), inf);
  EXPECT_EQ(f32Bits(softplusF32(-inf)), f32Bits(0.0f));
  EXPECT_EQ(softplusF32(100.0f), 100.0f);  // 100 + e^-100 rounds to 100
  EXPECT_EQ(geluTanhF32(inf), inf);
  EXPECT_EQ(f32Bits(geluTanhF32(-inf)), f32Bits(-0.0f));
  EXPECT_EQ(geluTanhF32(0.0f), 0.0f);
  EXPECT_EQ(signF32(3.5f), 1.0f);
  EXPECT_EQ(signF32(-1e-40f), -1.0f);
  EXPECT_EQ(signF32(-inf), -1.0f);
  EXPECT_EQ(f32Bits(signF32(-0.0f)), f32Bits(-0.0f));
  EXPECT_EQ(f32Bits(signF32(0.0f)), f32Bits(0.0f));
  EXPECT_EQ(atanF32(inf), float(M_PI / 2));
  EXPECT_EQ(atanF32(-inf), -float(M_PI / 2));
  EXPECT_EQ(atanF32(1.0f), float(M_PI / 4));
  EXPECT_EQ(f32Bits(atanF32(-0.0f)), f32Bits(-0.0f));
  EXPECT_EQ(mishF32(inf), inf);
  EXPECT_EQ(mishF32(50.0f), 50.0f);
  EXPECT_EQ(f32Bits(mishF32(-inf)), f32Bits(-0.0f));
  for (float r : {logF32(nan), sinF32(nan), cosF32(nan), erfF32(nan), softplusF32(nan), geluTanhF32(nan), signF32(nan),
                  atanF32(nan), mishF32(nan)})
    EXPECT_EQ(f32Bits(r), qnan);
}

// Beyond 2^19, sin and cos reduce by fmod with the double nearest 2 pi first: the value is that of the reduced
// argument, whatever the platform.
TEST(ActivationFunctions, LargeArgumentsReduceByTheDoubleTwoPi) {
  for (float x : {1e6f, -3e7f, 1e20f, 3e38f}) {
    const double r = std::fmod(double(x), 6.28318530717958623200);
    EXPECT_LE(ulps(sinF32(x), float(std::sin(r))), 1) << x;
    EXPECT_LE(ulps(cosF32(x), float(std::cos(r))), 1) << x;
    EXPECT_LE(std::fabs(sinF32(x)), 1.0f);
  }
}

const ActFunc kNew[] = {ActFunc::Log,      ActFunc::Sin,  ActFunc::Cos,    ActFunc::Erf, ActFunc::Softplus,
                        ActFunc::GeluTanh, ActFunc::Sign, ActFunc::Arctan, ActFunc::Mish};

TEST(ActivationFunctions, NamesParsePrintAndCheck) {
  const char* names[] = {"log", "sin", "cos", "erf", "softplus", "gelu_apprx_tanh", "sign", "arctan", "mish"};
  for (size_t k = 0; k < std::size(kNew); ++k) {
    EXPECT_EQ(parseAct(names[k]), kNew[k]);
    EXPECT_STREQ(actName(kNew[k]), names[k]);
    EXPECT_TRUE(actIsFloatOnly(kNew[k])) << names[k];
    const std::string text = std::string("arch tiny\nsbuf a [8, 16] f32\nsbuf b [8, 16] bf16\nsbuf i [8, 16] u32\n\n") +
                             "memset a, 0.5\nact b, a, " + names[k] + ", scale=2.0, bias=-1.0\n";
    Program p = parseProgram(text);
    EXPECT_EQ(printProgram(p), text);
    EXPECT_TRUE(checkProgram(p).empty()) << names[k];
    auto d = checkProgram(parseProgram(text + "memset i, 1\nact i, i, " + names[k] + "\n"));
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(formatDiagnostic("t", d.front()),
              std::string("t:9:8: act ") + names[k] + " needs a float source; 'i' is u32");
  }
}

// The interpreter writes f(x) converted to the destination's dtype, for every element of a DRAM input.
TEST(ActivationFunctions, InterpreterAppliesTheOneImplementation) {
  for (ActFunc f : kNew) {
    const std::string text = std::string("arch tiny\ndram A [8, 32] f32 input\ndram B [8, 32] bf16 output\n") +
                             "sbuf a [8, 32] f32\nsbuf b [8, 32] bf16\ndma a, A\nact b, a, " + actName(f) +
                             "\ndma B, b\n";
    Program p = parseProgram(text);
    ASSERT_TRUE(checkProgram(p).empty());
    auto inputs = makeInputs(p, 11);
    InterpOptions o;
    o.input_seed = 11;
    InterpResult r = interpret(p, o);
    const std::vector<uint8_t>& out = r.outputs.at(p.findTensor("B"));
    ASSERT_EQ(out.size(), 8u * 32 * 2);
    for (size_t e = 0; e < 8 * 32; ++e) {
      float x;
      std::memcpy(&x, inputs[0].data() + 4 * e, 4);
      uint16_t got;
      std::memcpy(&got, out.data() + 2 * e, 2);
      EXPECT_EQ(got, f32ToBf16(actF32(f, x))) << actName(f) << " " << x;
    }
  }
}

}  // namespace
}  // namespace allocsim
