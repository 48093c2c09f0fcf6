#include "ir/element_bits.h"

namespace allocsim {

bool ElementBits::allocate() {
  if (words_) return true;
  uint64_t n = (bits_ + 63) / 64;
  words_.reset(static_cast<uint64_t*>(std::calloc(n == 0 ? 1 : n, sizeof(uint64_t))));
  return words_ != nullptr;
}

}  // namespace allocsim
