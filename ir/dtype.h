// Element types: four-byte u32 i32 f32, two-byte bf16 u16.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace allocsim {

enum class DType : uint8_t { U32, I32, F32, BF16, U16 };

inline uint32_t dtypeSize(DType t) { return (t == DType::BF16 || t == DType::U16) ? 2 : 4; }
inline bool isFloat(DType t) { return t == DType::F32 || t == DType::BF16; }
inline bool isSigned(DType t) { return t == DType::I32; }

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
  }
  return "?";
}

inline std::optional<DType> parseDType(std::string_view s) {
  if (s == "u32") return DType::U32;
  if (s == "i32") return DType::I32;
  if (s == "f32") return DType::F32;
  if (s == "bf16") return DType::BF16;
  if (s == "u16") return DType::U16;
  return std::nullopt;
}

}  // namespace allocsim
