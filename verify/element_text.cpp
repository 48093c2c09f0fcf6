#include "verify/element_text.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "ir/values.h"

namespace allocsim {
namespace {

std::string hex(uint64_t bits, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, digits, bits);
  return buf;
}

std::string floatText(float f) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", double(f));
  return buf;
}

}  // namespace

std::string elementText(DType t, const uint8_t* bytes) {
  uint32_t bits = 0;
  std::memcpy(&bits, bytes, dtypeSize(t));  // little-endian host, as everywhere in ir/
  float f = 0;
  switch (t) {
    case DType::U32: return std::to_string(bits) + " (" + hex(bits, 8) + ")";
    case DType::I32: return std::to_string(int32_t(bits)) + " (" + hex(bits, 8) + ")";
    case DType::U16: return std::to_string(bits) + " (" + hex(bits, 4) + ")";
    case DType::F32:
      std::memcpy(&f, &bits, 4);
      return floatText(f) + " (" + hex(bits, 8) + ")";
    case DType::BF16: {
      uint32_t wide = bits << 16;
      std::memcpy(&f, &wide, 4);
      return floatText(f) + " (" + hex(bits, 4) + ")";
    }
    case DType::I16:
    case DType::U8:
    case DType::I8: {
      const uint32_t v = loadInt(t, bytes, isSigned(t) ? NumClass::Signed : NumClass::Unsigned);
      return (isSigned(t) ? std::to_string(int32_t(v)) : std::to_string(v)) + " (" + hex(bits, 2 * dtypeSize(t)) +
             ")";
    }
    case DType::F16:
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::F8E4M3FN: return floatText(loadF32(t, bytes)) + " (" + hex(bits, 2 * dtypeSize(t)) + ")";
  }
  return hex(bits, 8);
}

std::string registerText(uint64_t value, uint32_t width) {
  return std::to_string(value) + " (" + hex(value, width == 64 ? 16 : 8) + ")";
}

}  // namespace allocsim
