#include "ir/values.h"

#include <bit>

namespace allocsim {

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
