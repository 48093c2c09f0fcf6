#include "ir/values.h"

#include <algorithm>
#include <bit>

namespace allocsim {

float smallFloatToF32(uint32_t code, SmallFloat f) {
  const int E = f.exp_bits, M = f.man_bits, bias = (1 << (E - 1)) - 1;
  const uint32_t expMask = (1u << E) - 1, manMask = (1u << M) - 1;
  const bool negative = (code >> (E + M)) & 1u;
  const uint32_t e = (code >> M) & expMask, m = code & manMask;
  double v;
  if (e == expMask && f.ieee) {
    if (m != 0) return quietNaN();
    v = std::numeric_limits<double>::infinity();
  } else if (e == expMask && m == manMask) {
    return quietNaN();
  } else if (e == 0) {
    v = std::ldexp(double(m), 1 - bias - M);
  } else {
    v = std::ldexp(double((1u << M) | m), int(e) - bias - M);
  }
  return float(negative ? -v : v);
}

uint32_t f64ToSmallFloat(double x, SmallFloat f) {
  const int E = f.exp_bits, M = f.man_bits, bias = (1 << (E - 1)) - 1, emin = 1 - bias;
  const uint32_t expMask = (1u << E) - 1;
  const uint32_t sign = std::signbit(x) ? 1u << (E + M) : 0u;
  const uint32_t nan = (expMask << M) | (f.ieee ? 1u << (M - 1) : (1u << M) - 1);
  const uint32_t overflow = f.ieee ? expMask << M : nan;
  if (x != x) return sign | nan;
  const double a = std::fabs(x);
  if (std::isinf(a)) return sign | overflow;
  // The largest finite value's exponent and mantissa fields.
  const int topE = int(f.ieee ? expMask - 1 : expMask);
  const uint64_t topM = f.ieee ? (1u << M) - 1 : (1u << M) - 2;
  int k = 0;
  std::frexp(a, &k);  // a = m * 2^k, m in [0.5, 1): a's binade is 2^(k-1)
  int e = a == 0 ? emin : std::max(k - 1, emin);
  const double n = std::ldexp(a, M - e);  // a in units of the binade's spacing: exact, below 2^(M+1)
  double r = std::floor(n);
  const double frac = n - r;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0)) r += 1;
  uint64_t units = uint64_t(r);
  int eField;
  uint64_t mField;
  if (e == emin && units < (uint64_t(1) << M)) {
    eField = 0;  // zero or subnormal
    mField = units;
  } else {
    if (units == uint64_t(2) << M) {  // rounded up into the next binade
      units = uint64_t(1) << M;
      ++e;
    }
    eField = e + bias;
    mField = units - (uint64_t(1) << M);
  }
  if (eField > topE || (eField == topE && mField > topM)) return sign | overflow;
  return sign | (uint32_t(eField) << M) | uint32_t(mField);
}

uint16_t intToBf16(int64_t v) {
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000u : 0u;
  uint64_t m = v < 0 ? 0 - uint64_t(v) : uint64_t(v);
  int top = 63 - std::countl_zero(m);  // bf16 keeps 8 significant bits: bits [top-7, top]
  if (top > 7) {
    int shift = top - 7;
    uint64_t keep = m >> shift;
    uint64_t rest = m & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    if (rest > half || (rest == half && (keep & 1))) ++keep;  // keep <= 256: still exact below
    return uint16_t(sign | (f32Bits(std::ldexp(float(keep), shift)) >> 16));
  }
  return uint16_t(sign | (f32Bits(float(m)) >> 16));
}

float immToF32(const Immediate& imm) { return imm.is_float ? float(imm.f) : float(imm.i); }

uint32_t immToInt(const Immediate& imm, NumClass c) {
  if (!imm.is_float) return uint32_t(uint64_t(imm.i));
  double d = imm.f;
  if (d != d) return 0;
  if (c == NumClass::Signed) {
    if (d >= 2147483648.0) return uint32_t(INT32_MAX);
    if (d <= -2147483649.0) return uint32_t(INT32_MIN);
    return uint32_t(int32_t(d));
  }
  if (d <= -1.0) return 0;
  if (d >= 4294967296.0) return UINT32_MAX;
  return uint32_t(d);
}

uint64_t immToRegister(const Immediate& imm) {
  return imm.is_float ? f32Bits(float(imm.f)) : uint64_t(imm.i);
}

}  // namespace allocsim
