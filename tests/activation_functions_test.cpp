// The activation functions NKI kernels use beyond the first thirteen (docs/format.md "Activation functions"):
// log sin cos erf softplus gelu_apprx_tanh sign arctan mish. Each against an independent oracle, the host's libm
// in double precision rounded once to f32 (at most one f32 ulp apart: neither side is guaranteed correctly
// rounded), plus the special values the table states, and through the parser, printer, checker and interpreter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

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
int64_t ulps(float a, float b) {
  if (a != a || b != b) return (a != a) == (b != b) ? 0 : INT64_MAX;
  return std::llabs(orderedBits(a) - orderedBits(b));
}

template <typename F>
void sweep(float span, int steps, F&& f) {
  for (int k = 0; k <= steps; ++k) f(-span + 2 * span * float(k) / float(steps));
  for (float x : {1e-30f, -1e-30f, 1e-7f, -1e-7f, 0.0f, -0.0f, 3e4f, -3e4f}) f(x);
}

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
