// Element types: four-byte u32 i32 f32; two-byte bf16 f16 u16 i16; one-byte u8 i8 and the 8-bit floats f8e4m3,
// f8e5m2 (IEEE-like: the all-ones exponent holds infinities and NaNs) and f8e4m3fn (no infinities; the one NaN has
// all exponent and mantissa bits set). docs/format.md "Semantics" gives their conversions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace allocsim {

// New types go at the end: the generator (gen/) and its statistics index the first five by value.
enum class DType : uint8_t { U32, I32, F32, BF16, U16, F16, I16, U8, I8, F8E4M3, F8E5M2, F8E4M3FN };

inline uint32_t dtypeSize(DType t) {
  switch (t) {
    case DType::U32:
    case DType::I32:
    case DType::F32: return 4;
    case DType::BF16:
    case DType::U16:
    case DType::F16:
    case DType::I16: return 2;
    case DType::U8:
    case DType::I8:
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::F8E4M3FN: return 1;
  }
  return 4;
}
inline bool isFloat(DType t) {
  return t == DType::F32 || t == DType::BF16 || t == DType::F16 || t == DType::F8E4M3 || t == DType::F8E5M2 ||
         t == DType::F8E4M3FN;
}
inline bool isSigned(DType t) { return t == DType::I32 || t == DType::I16 || t == DType::I8; }
// Integer types narrower than 32 bits: a result keeps its low bits (wraps); a float converts with saturation to the
// type's range.
inline bool isNarrowInt(DType t) { return !isFloat(t) && dtypeSize(t) < 4; }
// The range of an integer type, as 64-bit integers.
inline int64_t intTypeMin(DType t) {
  return isSigned(t) ? -(int64_t(1) << (8 * dtypeSize(t) - 1)) : 0;
}
inline int64_t intTypeMax(DType t) {
  return isSigned(t) ? (int64_t(1) << (8 * dtypeSize(t) - 1)) - 1 : (int64_t(1) << (8 * dtypeSize(t))) - 1;
}

// The dtype pair a DMA may convert between (docs/format.md "Instructions"): f32 -> bf16 rounds to nearest even,
// bf16 -> f32 is exact. Equal dtypes copy bytes; every other pair is an error.
inline bool isConvertingDmaPair(DType a, DType b) {
  return (a == DType::F32 && b == DType::BF16) || (a == DType::BF16 && b == DType::F32);
}

inline const char* dtypeName(DType t) {
  switch (t) {
    case DType::U32: return "u32";
    case DType::I32: return "i32";
    case DType::F32: return "f32";
    case DType::BF16: return "bf16";
    case DType::U16: return "u16";
    case DType::F16: return "f16";
    case DType::I16: return "i16";
    case DType::U8: return "u8";
    case DType::I8: return "i8";
    case DType::F8E4M3: return "f8e4m3";
    case DType::F8E5M2: return "f8e5m2";
    case DType::F8E4M3FN: return "f8e4m3fn";
  }
  return "?";
}

inline std::optional<DType> parseDType(std::string_view s) {
  for (DType t : {DType::U32, DType::I32, DType::F32, DType::BF16, DType::U16, DType::F16, DType::I16, DType::U8,
                  DType::I8, DType::F8E4M3, DType::F8E5M2, DType::F8E4M3FN})
    if (s == dtypeName(t)) return t;
  return std::nullopt;
}

}  // namespace allocsim
