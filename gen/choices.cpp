#include "gen/choices.h"

namespace allocsim {

uint64_t SeededChoices::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t SeededChoices::below(uint64_t n) {
  if (n <= 1) return 0;
  // Lemire's multiply-shift; the slight bias is irrelevant for test generation.
  return uint64_t((__uint128_t(next()) * n) >> 64);
}

uint64_t ByteChoices::below(uint64_t n) {
  if (n <= 1) return 0;
  // Take as many bytes as n needs, little-endian; a modulo keeps the result in range.
  uint64_t v = 0;
  for (uint64_t span = n - 1, shift = 0; span != 0 && pos_ < size_; span >>= 8, shift += 8)
    v |= uint64_t(data_[pos_++]) << shift;
  return v % n;
}

}  // namespace allocsim
