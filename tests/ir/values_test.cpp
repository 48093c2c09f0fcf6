#include "ir/values.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/hash.h"
#include "ir/kernels.h"

namespace allocsim {
namespace {

uint16_t bf16Of(uint32_t f32bits) { return f32ToBf16(bitsF32(f32bits)); }

// Round to nearest even computed the slow way: the two bf16 neighbours and their distances in double.
uint16_t referenceBf16(float x) {
  uint32_t u = f32Bits(x);
  uint32_t down = u & 0xffff0000u;
  uint32_t up = down + 0x10000u;
  double dd = std::fabs(double(x) - double(bitsF32(down)));
  double du = std::fabs(double(bitsF32(up)) - double(x));
  if (dd < du) return uint16_t(down >> 16);
  if (du < dd) return uint16_t(up >> 16);
  return uint16_t(((down >> 16) & 1) ? up >> 16 : down >> 16);
}

TEST(Bf16, RoundsToNearestWithTiesToEven) {
  EXPECT_EQ(bf16Of(0x3f800000u), 0x3f80);  // 1.0 exact
  EXPECT_EQ(bf16Of(0x3f808000u), 0x3f80);  // tie, even below
  EXPECT_EQ(bf16Of(0x3f818000u), 0x3f82);  // tie, odd below: up
  EXPECT_EQ(bf16Of(0x3f808001u), 0x3f81);  // just above the tie
  EXPECT_EQ(bf16Of(0x3f807fffu), 0x3f80);  // just below
  EXPECT_EQ(bf16Of(0xbf808000u), 0xbf80);  // negative tie
  EXPECT_EQ(bf16Of(0xbf818000u), 0xbf82);
  EXPECT_EQ(bf16Of(0x00018000u), 0x0002);  // subnormal tie
  EXPECT_EQ(bf16Of(0x3fffffffu), 0x4000);  // carries into the exponent
}

TEST(Bf16, InfinityOverflowAndNaN) {
  EXPECT_EQ(bf16Of(0x7f800000u), 0x7f80);
  EXPECT_EQ(bf16Of(0xff800000u), 0xff80);
  EXPECT_EQ(bf16Of(0x7f7fffffu), 0x7f80);  // FLT_MAX overflows to inf
  EXPECT_EQ(bf16Of(0x7f7f8000u), 0x7f80);  // tie above the largest bf16 (odd): up to inf
  EXPECT_EQ(bf16Of(0x7f7f7fffu), 0x7f7f);  // largest finite bf16
  EXPECT_EQ(bf16Of(0xff7fffffu), 0xff80);
  EXPECT_EQ(bf16Of(0x7fc00000u), 0x7fc0);  // quiet NaN kept
  EXPECT_EQ(bf16Of(0x7f800001u), 0x7fc0);  // signalling NaN whose payload would vanish: still a NaN, quiet
  EXPECT_EQ(bf16Of(0x7fa00000u), 0x7fe0);  // top payload kept, quiet bit set
  EXPECT_EQ(bf16Of(0xffc00000u), 0xffc0);  // sign kept
}

TEST(Bf16, MatchesSlowReferenceOnManyValues) {
  uint64_t s = 12345;
  for (int n = 0; n < 200000; ++n) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t u = uint32_t(s >> 32);
    float x = bitsF32(u);
    if (std::isnan(x) || std::isinf(x) || (u & 0x7fffffffu) >= 0x7f7f8000u) continue;
    ASSERT_EQ(f32ToBf16(x), referenceBf16(x)) << std::hex << u;
  }
}

TEST(Bf16, EveryBf16ValueRoundTripsThroughF32) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = bf16ToF32(uint16_t(b));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(bf16ToF32(f32ToBf16(f))));
      continue;
    }
    ASSERT_EQ(f32ToBf16(f), b);
  }
}

TEST(Bf16, IntegersRoundOnce) {
  EXPECT_EQ(intToBf16(0), 0x0000);
  EXPECT_EQ(intToBf16(256), 0x4380);
  EXPECT_EQ(intToBf16(257), 0x4380);   // tie: 256 is even
  EXPECT_EQ(intToBf16(259), 0x4382);   // tie: 260 is even
  EXPECT_EQ(intToBf16(-257), 0xc380);
  EXPECT_EQ(intToBf16(INT64_MIN), 0xdf00);  // -2^63
  // 2^24 + 2^16 + 1 is just above a bf16 tie; via f32 it would round to the tie first and then to even (down).
  EXPECT_EQ(intToBf16((int64_t(1) << 24) + (1 << 16) + 1), 0x4b81);
  for (int64_t v = -70000; v <= 70000; ++v) {
    // exact in f32 here, so the f32 reference rounds once too
    ASSERT_EQ(intToBf16(v), referenceBf16(float(v))) << v;
  }
}

TEST(Conversions, FloatToIntTruncatesAndSaturates) {
  EXPECT_EQ(floatToI32Bits(1e10f), uint32_t(INT32_MAX));
  EXPECT_EQ(floatToI32Bits(-1e10f), uint32_t(INT32_MIN));
  EXPECT_EQ(floatToI32Bits(-1.9f), uint32_t(-1));
  EXPECT_EQ(floatToI32Bits(1.9f), 1u);
  EXPECT_EQ(floatToI32Bits(2147483520.0f), 2147483520u);
  EXPECT_EQ(floatToI32Bits(-2147483648.0f), uint32_t(INT32_MIN));
  EXPECT_EQ(floatToI32Bits(quietNaN()), 0u);
  EXPECT_EQ(floatToI32Bits(INFINITY), uint32_t(INT32_MAX));
  EXPECT_EQ(floatToU32(-0.5f), 0u);
  EXPECT_EQ(floatToU32(-7.0f), 0u);
  EXPECT_EQ(floatToU32(4294967040.0f), 4294967040u);
  EXPECT_EQ(floatToU32(4294967296.0f), UINT32_MAX);
  EXPECT_EQ(floatToU32(-INFINITY), 0u);
  EXPECT_EQ(floatToU32(quietNaN()), 0u);
  EXPECT_EQ(floatToU16(70000.0f), 65535u);
  EXPECT_EQ(floatToU16(65535.9f), 65535u);
  EXPECT_EQ(floatToU16(3.99f), 3u);
  EXPECT_EQ(floatToU16(-3.99f), 0u);
}

// Expected codes from the formats' definitions: sign | exponent field (bias 2^(E-1)-1) | mantissa field.
TEST(Conversions, SmallFloatsRoundToNearestEven) {
  const SmallFloat f16 = smallFloatOf(DType::F16), e4m3 = smallFloatOf(DType::F8E4M3);
  const SmallFloat e5m2 = smallFloatOf(DType::F8E5M2), e4m3fn = smallFloatOf(DType::F8E4M3FN);
  EXPECT_EQ(f64ToSmallFloat(1.0, f16), 0x3c00u);
  EXPECT_EQ(f64ToSmallFloat(-0.0, f16), 0x8000u);
  EXPECT_EQ(f64ToSmallFloat(65504.0, f16), 0x7bffu);          // largest finite
  EXPECT_EQ(f64ToSmallFloat(65519.0, f16), 0x7bffu);          // below the half step to 65536
  EXPECT_EQ(f64ToSmallFloat(65520.0, f16), 0x7c00u);          // the tie goes to the even 65536: infinity
  EXPECT_EQ(f64ToSmallFloat(std::ldexp(1.0, -24), f16), 0x0001u);      // smallest subnormal
  EXPECT_EQ(f64ToSmallFloat(std::ldexp(1.0, -25), f16), 0x0000u);      // tie between 0 and it: even
  EXPECT_EQ(f64ToSmallFloat(3 * std::ldexp(1.0, -25), f16), 0x0002u);  // tie between 1 and 2 units: even
  EXPECT_EQ(f64ToSmallFloat(1.0 + std::ldexp(1.0, -11), f16), 0x3c00u);  // tie: mantissa 0 is even
  EXPECT_EQ(f64ToSmallFloat(-std::nan(""), f16), 0xfe00u);
  EXPECT_EQ(f64ToSmallFloat(240.0, e4m3), 0x77u);
  EXPECT_EQ(f64ToSmallFloat(248.0, e4m3), 0x78u);  // infinity
  EXPECT_EQ(f64ToSmallFloat(57344.0, e5m2), 0x7bu);
  EXPECT_EQ(f64ToSmallFloat(-INFINITY, e5m2), 0xfcu);
  EXPECT_EQ(f64ToSmallFloat(448.0, e4m3fn), 0x7eu);
  EXPECT_EQ(f64ToSmallFloat(464.0, e4m3fn), 0x7eu);  // the tie goes to the even 448
  EXPECT_EQ(f64ToSmallFloat(465.0, e4m3fn), 0x7fu);  // NaN: no infinities
  EXPECT_EQ(f64ToSmallFloat(INFINITY, e4m3fn), 0x7fu);
  EXPECT_EQ(smallFloatToF32(0x7eu, e4m3fn), 448.0f);
  EXPECT_EQ(smallFloatToF32(0x01u, e4m3fn), 0.001953125f);  // 2^-9
  EXPECT_EQ(smallFloatToF32(0x78u, e4m3), INFINITY);
  EXPECT_EQ(f32Bits(smallFloatToF32(0xffu, e4m3fn)), kQuietNaNBits);
  // every code of each 8-bit format converts back to itself (NaNs to the quiet NaN)
  for (DType t : {DType::F8E4M3, DType::F8E5M2, DType::F8E4M3FN}) {
    const SmallFloat f = smallFloatOf(t);
    for (uint32_t c = 0; c < 256; ++c) {
      const float v = smallFloatToF32(c, f);
      if (v == v) {
        EXPECT_EQ(f64ToSmallFloat(v, f), c) << dtypeName(t) << " " << c;
      }
    }
  }
}

TEST(Conversions, NarrowIntegers) {
  uint8_t b[4];
  storeF32(DType::I8, b, -128.9f);
  EXPECT_EQ(int32_t(loadInt(DType::I8, b, NumClass::Signed)), -128);  // saturates
  storeF32(DType::U8, b, 255.9f);
  EXPECT_EQ(loadInt(DType::U8, b, NumClass::Unsigned), 255u);
  storeF32(DType::I16, b, quietNaN());
  EXPECT_EQ(loadInt(DType::I16, b, NumClass::Signed), 0u);
  storeInt(DType::I8, b, 0x17fu, NumClass::Signed);
  EXPECT_EQ(int32_t(loadInt(DType::I8, b, NumClass::Signed)), 127);  // the low 8 bits
  storeInt(DType::I8, b, 0x80u, NumClass::Signed);
  EXPECT_EQ(loadF32(DType::I8, b), -128.0f);  // sign-extended
  storeInt(DType::F16, b, 2049u, NumClass::Unsigned);
  EXPECT_EQ(loadF32(DType::F16, b), 2048.0f);  // one rounding, ties to even
}

TEST(Conversions, StoreAndLoadElements) {
  uint8_t b[4];
  storeF32(DType::I32, b, -3.5f);
  EXPECT_EQ(loadInt(DType::I32, b, NumClass::Signed), uint32_t(-3));
  storeF32(DType::U16, b, 1e9f);
  EXPECT_EQ(loadInt(DType::U16, b, NumClass::Unsigned), 65535u);
  storeF32(DType::BF16, b, bitsF32(0x3f808000u));
  EXPECT_EQ(loadF32(DType::BF16, b), 1.0f);
  storeInt(DType::F32, b, 0xffffffffu, NumClass::Signed);
  EXPECT_EQ(loadF32(DType::F32, b), -1.0f);
  storeInt(DType::F32, b, 0xffffffffu, NumClass::Unsigned);
  EXPECT_EQ(loadF32(DType::F32, b), 4294967296.0f);
  storeInt(DType::F32, b, 16777217u, NumClass::Unsigned);
  EXPECT_EQ(loadF32(DType::F32, b), 16777216.0f);  // ties to even
  storeInt(DType::U16, b, 0x12345u, NumClass::Unsigned);
  EXPECT_EQ(loadInt(DType::U16, b, NumClass::Unsigned), 0x2345u);  // u16 wraps mod 2^16
  storeInt(DType::BF16, b, uint32_t(-257), NumClass::Signed);
  EXPECT_EQ(loadF32(DType::BF16, b), -256.0f);
  EXPECT_EQ(loadF32(DType::I32, reinterpret_cast<const uint8_t*>("\xff\xff\xff\xff")), -1.0f);
  EXPECT_EQ(loadInt(DType::F32, reinterpret_cast<const uint8_t*>("\x00\x00\xc0\xff"), NumClass::Signed), 0u);  // NaN
}

TEST(Conversions, Immediates) {
  Immediate i{false, 0x100000005LL, 0};
  Immediate f{true, 0, 3.7};
  Immediate g{true, 0, -3.7};
  Immediate big{true, 0, 1e20};
  EXPECT_EQ(immToInt(i, NumClass::Unsigned), 5u);
  EXPECT_EQ(immToInt(f, NumClass::Signed), 3u);
  EXPECT_EQ(immToInt(g, NumClass::Signed), uint32_t(-3));
  EXPECT_EQ(immToInt(g, NumClass::Unsigned), 0u);
  EXPECT_EQ(immToInt(big, NumClass::Signed), uint32_t(INT32_MAX));
  EXPECT_EQ(immToInt(big, NumClass::Unsigned), UINT32_MAX);
  EXPECT_EQ(immToF32(i), 4294967301.0f);
  EXPECT_EQ(immToF32(f), 3.7f);
  EXPECT_EQ(immToRegister(f), f32Bits(3.7f));
  EXPECT_EQ(immToRegister(Immediate{false, -1, 0}), ~uint64_t(0));
}

TEST(Alu, IntegerWrapsAndFollowsTheFirstSourcesSignedness) {
  const NumClass S = NumClass::Signed, U = NumClass::Unsigned;
  EXPECT_EQ(aluInt(AluOp::Add, 0xffffffffu, 1, U), 0u);
  EXPECT_EQ(aluInt(AluOp::Sub, 0, 1, U), 0xffffffffu);
  EXPECT_EQ(aluInt(AluOp::Mul, 0x10000u, 0x10000u, S), 0u);
  EXPECT_EQ(aluInt(AluOp::Max, 0xffffffffu, 1, S), 1u);
  EXPECT_EQ(aluInt(AluOp::Max, 0xffffffffu, 1, U), 0xffffffffu);
  EXPECT_EQ(aluInt(AluOp::Min, 0xffffffffu, 1, S), 0xffffffffu);
  EXPECT_EQ(aluInt(AluOp::Min, 0xffffffffu, 1, U), 1u);
  EXPECT_EQ(aluInt(AluOp::Shr, 0x80000000u, 4, S), 0xf8000000u);
  EXPECT_EQ(aluInt(AluOp::Shr, 0x80000000u, 4, U), 0x08000000u);
  EXPECT_EQ(aluInt(AluOp::Shl, 1, 33, U), 2u);  // b mod 32
  EXPECT_EQ(aluInt(AluOp::Shr, 8, 0xffffffe1u, U), 4u);
  EXPECT_EQ(aluInt(AluOp::And, 0xf0f0u, 0xff00u, U), 0xf000u);
  EXPECT_EQ(aluInt(AluOp::Or, 0xf0f0u, 0xff00u, U), 0xfff0u);
  EXPECT_EQ(aluInt(AluOp::Xor, 0xf0f0u, 0xff00u, U), 0x0ff0u);
}

TEST(Alu, FloatNaNAndSignedZero) {
  const float nan = quietNaN();
  EXPECT_EQ(f32Bits(aluF32(AluOp::Add, INFINITY, -INFINITY)), kQuietNaNBits);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Mul, 0.0f, INFINITY)), kQuietNaNBits);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Add, bitsF32(0xffc00001u), 1.0f)), kQuietNaNBits);  // any NaN -> the one NaN
  EXPECT_EQ(f32Bits(aluF32(AluOp::Max, nan, 1.0f)), kQuietNaNBits);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Min, 1.0f, nan)), kQuietNaNBits);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Max, -0.0f, 0.0f)), 0u);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Max, 0.0f, -0.0f)), 0u);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Min, 0.0f, -0.0f)), 0x80000000u);
  EXPECT_EQ(f32Bits(aluF32(AluOp::Min, -0.0f, 0.0f)), 0x80000000u);
  EXPECT_EQ(aluF32(AluOp::Sub, 1.0f, 3.0f), -2.0f);
  EXPECT_EQ(aluF32(AluOp::Add, 16777216.0f, 1.0f), 16777216.0f);
  EXPECT_EQ(aluClass(AluOp::Add, DType::BF16), NumClass::Float);
  EXPECT_EQ(aluClass(AluOp::Xor, DType::F32), NumClass::Signed);
  EXPECT_EQ(aluClass(AluOp::Max, DType::U16), NumClass::Unsigned);
}

TEST(Act, IntegerFunctionsWrap) {
  const NumClass S = NumClass::Signed, U = NumClass::Unsigned;
  EXPECT_EQ(actInt(ActFunc::Neg, 0x80000000u, S), 0x80000000u);
  EXPECT_EQ(actInt(ActFunc::Neg, 1, U), 0xffffffffu);
  EXPECT_EQ(actInt(ActFunc::Abs, 0x80000000u, S), 0x80000000u);
  EXPECT_EQ(actInt(ActFunc::Abs, uint32_t(-5), S), 5u);
  EXPECT_EQ(actInt(ActFunc::Abs, uint32_t(-5), U), uint32_t(-5));
  EXPECT_EQ(actInt(ActFunc::Relu, uint32_t(-1), S), 0u);
  EXPECT_EQ(actInt(ActFunc::Relu, uint32_t(-1), U), uint32_t(-1));
  EXPECT_EQ(actInt(ActFunc::Square, 65536u, S), 0u);
  EXPECT_EQ(actInt(ActFunc::Square, 3u, S), 9u);
  EXPECT_EQ(actClass(ActFunc::Exp, DType::I32), NumClass::Float);
  EXPECT_EQ(actClass(ActFunc::Neg, DType::I32), NumClass::Signed);
}

TEST(Act, FloatFunctions) {
  EXPECT_EQ(f32Bits(actF32(ActFunc::Relu, -0.0f)), 0u);
  EXPECT_EQ(actF32(ActFunc::Relu, -3.0f), 0.0f);
  EXPECT_EQ(actF32(ActFunc::Relu, 3.0f), 3.0f);
  EXPECT_EQ(f32Bits(actF32(ActFunc::Relu, quietNaN())), kQuietNaNBits);
  EXPECT_EQ(f32Bits(actF32(ActFunc::Identity, bitsF32(0x7f800001u))), 0x7f800001u);  // identity keeps bits
  EXPECT_EQ(actF32(ActFunc::Neg, 2.0f), -2.0f);
  EXPECT_EQ(actF32(ActFunc::Abs, -2.0f), 2.0f);
  EXPECT_EQ(actF32(ActFunc::Square, -3.0f), 9.0f);
  EXPECT_EQ(actF32(ActFunc::Exp, 0.0f), 1.0f);
  EXPECT_EQ(actF32(ActFunc::Exp, 1000.0f), INFINITY);
  EXPECT_EQ(actF32(ActFunc::Tanh, 0.0f), 0.0f);
  EXPECT_EQ(actF32(ActFunc::Sigmoid, 0.0f), 0.5f);
  EXPECT_EQ(actF32(ActFunc::Sigmoid, -1000.0f), 0.0f);
  // Within one ulp of the value computed in double (ir/transcendental's bound; transcendental_test sweeps it).
  const double sig = 1.0 / (1.0 + std::exp(-1.5)), th = std::tanh(0.5);
  EXPECT_NEAR(actF32(ActFunc::Sigmoid, 1.5f), sig, std::nextafter(float(sig), 2.0f) - float(sig));
  EXPECT_NEAR(actF32(ActFunc::Tanh, 0.5f), th, std::nextafter(float(th), 2.0f) - float(th));
}

TEST(Kernels, BufferLoopsAgreeWithScalarDefinitions) {
  const float a[] = {1.5f, -2.0f, 0.0f, quietNaN(), 3.0e38f, -0.0f};
  const float b[] = {2.0f, -2.0f, -0.0f, 1.0f, 3.0e38f, 0.0f};
  for (AluOp op : {AluOp::Add, AluOp::Sub, AluOp::Mul, AluOp::Max, AluOp::Min}) {
    float out[6], outS[6];
    aluF32(op, a, b, 6, out);
    aluF32(op, a, 2.0f, 6, outS);
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(f32Bits(out[i]), f32Bits(aluF32(op, a[i], b[i]))) << aluName(op) << i;
      EXPECT_EQ(f32Bits(outS[i]), f32Bits(aluF32(op, a[i], 2.0f))) << aluName(op) << i;
    }
  }
  const uint32_t x[] = {0, 1, 0x80000000u, 0xffffffffu, 12345};
  for (int op = 0; op <= int(AluOp::Shr); ++op)
    for (NumClass c : {NumClass::Signed, NumClass::Unsigned}) {
      uint32_t out[5];
      aluInt(AluOp(op), x, x, 5, c, out);
      for (int i = 0; i < 5; ++i) EXPECT_EQ(out[i], aluInt(AluOp(op), x[i], x[i], c));
    }
  EXPECT_EQ(reduceF32(AluOp::Add, a, 0), 0.0f);
  const float s[] = {1e8f, 1.0f, -1e8f, 1.0f};
  EXPECT_EQ(reduceF32(AluOp::Add, s, 4), 1.0f);  // ((1e8 + 1) - 1e8) + 1 in f32 order
  const uint32_t m[] = {3, 0xfffffffeu, 7};
  EXPECT_EQ(reduceInt(AluOp::Max, m, 3, NumClass::Signed), 7u);
  EXPECT_EQ(reduceInt(AluOp::Max, m, 3, NumClass::Unsigned), 0xfffffffeu);
}

TEST(Hash, AnySingleByteChangeChangesTheDigest) {
  uint8_t buf[37];
  for (int i = 0; i < 37; ++i) buf[i] = uint8_t(i * 7);
  OperandHasher base;
  base.bytes(buf, sizeof buf);
  for (int i = 0; i < 37; ++i)
    for (int bit = 0; bit < 8; ++bit) {
      buf[i] ^= uint8_t(1 << bit);
      OperandHasher h;
      h.bytes(buf, sizeof buf);
      EXPECT_NE(h.digest(), base.digest()) << i << ":" << bit;
      buf[i] ^= uint8_t(1 << bit);
    }
  OperandHasher shorter;
  shorter.bytes(buf, 36);
  EXPECT_NE(shorter.digest(), base.digest());
  OperandHasher again;
  again.bytes(buf, sizeof buf);
  EXPECT_EQ(again.digest(), base.digest());
}

}  // namespace
}  // namespace allocsim
