// One element's value as a diagnostic shows it: the number and its bits ("1.5 (0x3fc00000)", "-3 (0xfffffffd)").
#pragma once

#include <cstdint>
#include <string>

#include "ir/dtype.h"

namespace allocsim {

std::string elementText(DType t, const uint8_t* bytes);  // dtypeSize(t) little-endian bytes
std::string registerText(uint64_t value, uint32_t width);  // "5 (0x00000005)"

}  // namespace allocsim
