// Element semantics (docs/format.md "Semantics"): the one definition of every conversion, ALU operation and
// activation function, bit-exact. The reference interpreter and the simulator both compute through these, so
// the same program gives the same bits whichever runs it.
//
// An operation computes in one numeric class: Float (f32; bf16 values widen exactly to f32 and a bf16 result is
// rounded from f32 to nearest even) or Int (32-bit two's complement bits, signed or unsigned; u16 widens with
// zeros and a u16 result keeps the low 16 bits). NaN results of arithmetic are the quiet NaN 0x7fc00000, so no
// result depends on the host's NaN propagation rules.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ir/dtype.h"
#include "ir/program.h"
#include "ir/transcendental.h"

namespace allocsim {

static_assert(std::numeric_limits<float>::is_iec559, "bit-exact semantics need IEEE-754 binary32");
static_assert(std::endian::native == std::endian::little, "element bytes are little-endian (docs/format.md)");

enum class NumClass : uint8_t { Float, Signed, Unsigned };

inline NumClass classOf(DType t) {
  return isFloat(t) ? NumClass::Float : isSigned(t) ? NumClass::Signed : NumClass::Unsigned;
}

inline uint32_t f32Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsF32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

constexpr uint32_t kQuietNaNBits = 0x7fc00000u;
inline float quietNaN() { return bitsF32(kQuietNaNBits); }
// Arithmetic results: any NaN becomes the one quiet NaN.
inline float canonicalNaN(float r) { return r != r ? quietNaN() : r; }

// ---- bf16 -------------------------------------------------------------------------------------------------
inline float bf16ToF32(uint16_t b) { return bitsF32(uint32_t(b) << 16); }

// Round to nearest, ties to even; overflow gives infinity; a NaN stays a NaN with the quiet bit set (sign and
// the top payload bits kept).
inline uint16_t f32BitsToBf16(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);  // cannot wrap: the largest non-NaN pattern is 0xff800000
  return uint16_t(u >> 16);
}
inline uint16_t f32ToBf16(float f) { return f32BitsToBf16(f32Bits(f)); }

// A converting DMA's elements (docs/format.md "Instructions"): n elements of `from` (f32 or bf16) to the other
// type, on bit patterns only, so a NaN's payload is never touched by the host's float unit: bf16 -> f32 appends
// 16 zero bits (exact), f32 -> bf16 is f32ToBf16.
inline void convertF32Bf16(DType from, const uint8_t* in, size_t n, uint8_t* out) {
  for (size_t e = 0; e < n; ++e) {
    if (from == DType::BF16) {
      uint16_t b;
      std::memcpy(&b, in + 2 * e, 2);
      const uint32_t u = uint32_t(b) << 16;
      std::memcpy(out + 4 * e, &u, 4);
    } else {
      uint32_t u;
      std::memcpy(&u, in + 4 * e, 4);
      const uint16_t b = f32BitsToBf16(u);
      std::memcpy(out + 2 * e, &b, 2);
    }
  }
}

// An integer rounded once (to nearest even) to bf16; going through f32 would round twice.
uint16_t intToBf16(int64_t v);

// ---- small floats: f16 and the 8-bit floats --------------------------------------------------------------
// A format of `exp_bits` exponent and `man_bits` mantissa bits and a sign bit, exponent bias 2^(exp_bits-1) - 1,
// with subnormals. IEEE-like (f16, f8e4m3, f8e5m2): the all-ones exponent holds the infinities (mantissa 0) and
// NaNs. f8e4m3fn: no infinities; the all-ones exponent holds finite values but for the one NaN of all-ones mantissa.
struct SmallFloat {
  int exp_bits, man_bits;
  bool ieee;
};
inline SmallFloat smallFloatOf(DType t) {
  switch (t) {
    case DType::F16: return {5, 10, true};
    case DType::F8E4M3: return {4, 3, true};
    case DType::F8E5M2: return {5, 2, true};
    default: return {4, 3, false};  // F8E4M3FN
  }
}
inline bool isSmallFloat(DType t) {
  return t == DType::F16 || t == DType::F8E4M3 || t == DType::F8E5M2 || t == DType::F8E4M3FN;
}
// Exact; a NaN loads as the quiet NaN (kQuietNaNBits).
float smallFloatToF32(uint32_t code, SmallFloat f);
// Round to nearest, ties to even, from a double (every f32 and every 32-bit integer is one exactly, so a value
// rounds once). Beyond the largest finite value (with the exponent range unbounded, it rounds to a larger one) an
// IEEE-like format gives an infinity and f8e4m3fn its NaN; an infinity likewise. NaN gives the quiet NaN: the sign
// kept, the all-ones exponent and the top mantissa bit (f8e4m3fn: its NaN).
uint32_t f64ToSmallFloat(double x, SmallFloat f);

// ---- float -> int: truncate toward zero, saturate, NaN -> 0 -----------------------------------------------
inline uint32_t floatToI32Bits(float f) {
  if (f != f) return 0;
  if (f >= 2147483648.0f) return uint32_t(INT32_MAX);
  if (f < -2147483648.0f) return uint32_t(INT32_MIN);
  return uint32_t(int32_t(f));
}
inline uint32_t floatToU32(float f) {
  if (f != f || f <= -1.0f) return 0;
  if (f >= 4294967296.0f) return UINT32_MAX;
  return uint32_t(f);
}
inline uint32_t floatToU16(float f) {
  if (f != f || f <= -1.0f) return 0;
  if (f >= 65536.0f) return 0xffffu;
  return uint32_t(f);
}
// Into a narrow integer type (u16 i16 u8 i8): truncate toward zero, saturate to its range, NaN -> 0; the result's
// bits as the type stores them (sign-extended to 32 bits for the signed ones).
inline uint32_t floatToNarrowInt(float f, DType t) {
  if (f != f) return 0;
  const double d = std::trunc(double(f));
  const int64_t lo = intTypeMin(t), hi = intTypeMax(t);
  return uint32_t(d <= double(lo) ? lo : d >= double(hi) ? hi : int64_t(d));
}
inline uint32_t floatToInt(float f, NumClass c) { return c == NumClass::Signed ? floatToI32Bits(f) : floatToU32(f); }

// ---- int -> float: round to nearest ------------------------------------------------------------------------
inline float intToF32(uint32_t v, NumClass c) { return c == NumClass::Signed ? float(int32_t(v)) : float(v); }

// ---- loading one element into a class, storing one class value into an element ------------------------------
inline float loadF32(DType t, const uint8_t* p) {
  uint32_t u4;
  uint16_t u2;
  switch (t) {
    case DType::F32: std::memcpy(&u4, p, 4); return bitsF32(u4);
    case DType::BF16: std::memcpy(&u2, p, 2); return bf16ToF32(u2);
    case DType::U32: std::memcpy(&u4, p, 4); return float(u4);
    case DType::I32: std::memcpy(&u4, p, 4); return float(int32_t(u4));
    case DType::U16: std::memcpy(&u2, p, 2); return float(u2);
    case DType::I16: std::memcpy(&u2, p, 2); return float(int16_t(u2));
    case DType::U8: return float(p[0]);
    case DType::I8: return float(int8_t(p[0]));
    case DType::F16: std::memcpy(&u2, p, 2); return smallFloatToF32(u2, smallFloatOf(t));
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::F8E4M3FN: return smallFloatToF32(p[0], smallFloatOf(t));
  }
  return 0;
}

// Into an integer class of signedness `c` (Signed or Unsigned).
inline uint32_t loadInt(DType t, const uint8_t* p, NumClass c) {
  uint32_t u4;
  uint16_t u2;
  switch (t) {
    case DType::U32:
    case DType::I32: std::memcpy(&u4, p, 4); return u4;
    case DType::U16: std::memcpy(&u2, p, 2); return u2;
    case DType::I16: std::memcpy(&u2, p, 2); return uint32_t(int32_t(int16_t(u2)));
    case DType::U8: return p[0];
    case DType::I8: return uint32_t(int32_t(int8_t(p[0])));
    case DType::F32:
    case DType::BF16:
    case DType::F16:
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::F8E4M3FN: return floatToInt(loadF32(t, p), c);
  }
  return 0;
}

inline void storeF32(DType t, uint8_t* p, float f) {
  uint32_t u4 = 0;
  uint16_t u2 = 0;
  switch (t) {
    case DType::F32: u4 = f32Bits(f); break;
    case DType::BF16: u2 = f32ToBf16(f); std::memcpy(p, &u2, 2); return;
    case DType::U32: u4 = floatToU32(f); break;
    case DType::I32: u4 = floatToI32Bits(f); break;
    case DType::U16: u2 = uint16_t(floatToU16(f)); std::memcpy(p, &u2, 2); return;
    case DType::I16: u2 = uint16_t(floatToNarrowInt(f, t)); std::memcpy(p, &u2, 2); return;
    case DType::U8:
    case DType::I8: p[0] = uint8_t(floatToNarrowInt(f, t)); return;
    case DType::F16: u2 = uint16_t(f64ToSmallFloat(double(f), smallFloatOf(t))); std::memcpy(p, &u2, 2); return;
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::F8E4M3FN: p[0] = uint8_t(f64ToSmallFloat(double(f), smallFloatOf(t))); return;
  }
  std::memcpy(p, &u4, 4);
}

// `v` is a value of integer class `c`.
inline void storeInt(DType t, uint8_t* p, uint32_t v, NumClass c) {
  uint16_t u2;
  switch (t) {
    case DType::U32:
    case DType::I32: std::memcpy(p, &v, 4); return;
    case DType::U16: u2 = uint16_t(v); std::memcpy(p, &u2, 2); return;
    case DType::F32: {
      uint32_t u4 = f32Bits(intToF32(v, c));
      std::memcpy(p, &u4, 4);
      return;
    }
    case DType::BF16:
      u2 = intToBf16(c == NumClass::Signed ? int64_t(int32_t(v)) : int64_t(v));
      std::memcpy(p, &u2, 2);
      return;
    case DType::I16: u2 = uint16_t(v); std::memcpy(p, &u2, 2); return;
    case DType::U8:
    case DType::I8: p[0] = uint8_t(v); return;
    case DType::F16:
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::F8E4M3FN: {
      const uint32_t code =
          f64ToSmallFloat(c == NumClass::Signed ? double(int32_t(v)) : double(v), smallFloatOf(t));
      if (t == DType::F16) {
        u2 = uint16_t(code);
        std::memcpy(p, &u2, 2);
      } else {
        p[0] = uint8_t(code);
      }
      return;
    }
  }
}

// ---- immediates: converted to the operation's class --------------------------------------------------------
// Float class: an integer rounds to nearest f32, a float rounds from double to f32.
float immToF32(const Immediate& imm);
// Integer class: an integer keeps its low 32 bits; a float truncates toward zero and saturates (NaN -> 0).
uint32_t immToInt(const Immediate& imm, NumClass c);
// A register instruction (li/addi): an integer as is; a float as its f32 bit pattern.
uint64_t immToRegister(const Immediate& imm);

// ---- ALU ---------------------------------------------------------------------------------------------------
// IEEE-754 2019 maximum/minimum: NaN if either is NaN, and +0 > -0.
inline float maxF32(float a, float b) {
  if (a != a || b != b) return quietNaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float minF32(float a, float b) {
  if (a != a || b != b) return quietNaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// The class an ALU operation computes in, given its first source's dtype: integer-only operations (and, or,
// xor, shl, shr) always compute on integers (a float first source converts as if to i32).
inline NumClass aluClass(AluOp op, DType first) {
  NumClass c = classOf(first);
  if (aluIsIntegerOnly(op) && c == NumClass::Float) return NumClass::Signed;
  return c;
}

// Float class; `op` is not integer-only (aluClass never picks Float for those; they give NaN here).
inline float aluF32(AluOp op, float a, float b) {
  switch (op) {
    case AluOp::Add: return canonicalNaN(a + b);
    case AluOp::Sub: return canonicalNaN(a - b);
    case AluOp::Mul: return canonicalNaN(a * b);
    case AluOp::Max: return maxF32(a, b);
    case AluOp::Min: return minF32(a, b);
    case AluOp::Div: return canonicalNaN(a / b);
    // IEEE comparisons: a NaN compares unequal to everything, so only `ne` holds for it; -0 == +0.
    case AluOp::Eq: return a == b ? 1.0f : 0.0f;
    case AluOp::Ne: return a != b ? 1.0f : 0.0f;
    case AluOp::Lt: return a < b ? 1.0f : 0.0f;
    case AluOp::Le: return a <= b ? 1.0f : 0.0f;
    case AluOp::Gt: return a > b ? 1.0f : 0.0f;
    case AluOp::Ge: return a >= b ? 1.0f : 0.0f;
    case AluOp::Keep: return b != 0.0f ? canonicalNaN(a) : -0.0f;  // a NaN b is nonzero
    default: return quietNaN();
  }
}

// Integer class: wraps mod 2^32; max/min/shr/div follow the class's signedness; shifts take b mod 32. div
// truncates toward zero; by zero it gives all ones (-1 signed), and the one overflow, INT32_MIN / -1, gives
// INT32_MIN (the RISC-V M rules: defined for every input, docs/format.md "Semantics").
inline uint32_t aluInt(AluOp op, uint32_t a, uint32_t b, NumClass c) {
  bool s = c == NumClass::Signed;
  switch (op) {
    case AluOp::Add: return a + b;
    case AluOp::Sub: return a - b;
    case AluOp::Mul: return a * b;
    case AluOp::Max: return (s ? int32_t(a) >= int32_t(b) : a >= b) ? a : b;
    case AluOp::Min: return (s ? int32_t(a) <= int32_t(b) : a <= b) ? a : b;
    case AluOp::And: return a & b;
    case AluOp::Or: return a | b;
    case AluOp::Xor: return a ^ b;
    case AluOp::Shl: return a << (b & 31u);
    case AluOp::Shr: return s ? uint32_t(int32_t(a) >> (b & 31u)) : a >> (b & 31u);
    case AluOp::Div:
      if (b == 0) return ~0u;
      if (!s) return a / b;
      if (a == 0x80000000u && b == ~0u) return a;
      return uint32_t(int32_t(a) / int32_t(b));
    case AluOp::Eq: return a == b;
    case AluOp::Ne: return a != b;
    case AluOp::Lt: return s ? int32_t(a) < int32_t(b) : a < b;
    case AluOp::Le: return s ? int32_t(a) <= int32_t(b) : a <= b;
    case AluOp::Gt: return s ? int32_t(a) > int32_t(b) : a > b;
    case AluOp::Ge: return s ? int32_t(a) >= int32_t(b) : a >= b;
    case AluOp::Keep: return b != 0 ? a : 0;
  }
  return 0;
}

// ---- activation functions ------------------------------------------------------------------------------------
// The class an activation computes in: the float-only functions (all but identity relu neg abs square) always in
// Float, the rest in the source's class.
inline NumClass actClass(ActFunc f, DType src) { return actIsFloatOnly(f) ? NumClass::Float : classOf(src); }

// relu(x) = x > 0 ? x : +0 (NaN stays NaN). The transcendental functions come from ir/transcendental.h, the one
// implementation every executor uses (never the host's libm). Identity keeps the bits.
inline float actF32(ActFunc f, float x) {
  switch (f) {
    case ActFunc::Identity: return x;
    case ActFunc::Relu: return x != x ? quietNaN() : x > 0.0f ? x : 0.0f;
    case ActFunc::Neg: return canonicalNaN(-x);
    case ActFunc::Abs: return canonicalNaN(std::fabs(x));
    case ActFunc::Square: return canonicalNaN(x * x);
    case ActFunc::Exp: return expF32(x);
    case ActFunc::Tanh: return tanhF32(x);
    case ActFunc::Sigmoid: return sigmoidF32(x);
    case ActFunc::Silu: return siluF32(x);
    case ActFunc::Gelu: return geluF32(x);
    case ActFunc::Sqrt: return sqrtF32(x);
    case ActFunc::Rsqrt: return rsqrtF32(x);
    case ActFunc::Reciprocal: return reciprocalF32(x);
    case ActFunc::Log: return logF32(x);
    case ActFunc::Sin: return sinF32(x);
    case ActFunc::Cos: return cosF32(x);
    case ActFunc::Erf: return erfF32(x);
    case ActFunc::Softplus: return softplusF32(x);
    case ActFunc::GeluTanh: return geluTanhF32(x);
    case ActFunc::Sign: return signF32(x);
    case ActFunc::Arctan: return atanF32(x);
    case ActFunc::Mish: return mishF32(x);
  }
  return x;
}

// Integer class: neg/abs/square wrap; relu and abs are the identity on unsigned values. The float-only
// functions never compute here (actClass); they are the identity.
inline uint32_t actInt(ActFunc f, uint32_t x, NumClass c) {
  bool s = c == NumClass::Signed;
  switch (f) {
    case ActFunc::Relu: return s && int32_t(x) < 0 ? 0u : x;
    case ActFunc::Neg: return 0u - x;
    case ActFunc::Abs: return s && int32_t(x) < 0 ? 0u - x : x;
    case ActFunc::Square: return x * x;
    default: return x;
  }
}

}  // namespace allocsim
