#include "ir/element_bits.h"

#include <bit>

namespace allocsim {
namespace {

// Bits [lo, hi) of one word, 0 <= lo < hi <= 64.
uint64_t maskOf(uint64_t lo, uint64_t hi) {
  uint64_t upper = hi == 64 ? ~uint64_t(0) : (uint64_t(1) << hi) - 1;
  return upper & ~((uint64_t(1) << lo) - 1);
}

}  // namespace

bool ElementBits::allocate() {
  if (words_) return true;
  uint64_t n = (bits_ + 63) / 64;
  words_.reset(static_cast<uint64_t*>(std::calloc(n == 0 ? 1 : n, sizeof(uint64_t))));
  return words_ != nullptr;
}

void ElementBits::set(uint64_t begin, uint64_t end) {
  if (!words_) return;
  while (begin < end) {
    uint64_t w = begin / 64, lo = begin % 64;
    uint64_t hi = (end - w * 64) >= 64 ? 64 : end - w * 64;
    if (lo == 0 && hi == 64) {
      // Whole words at once.
      uint64_t last = end / 64;
      for (; w < last; ++w) words_[w] = ~uint64_t(0);
      begin = last * 64;
      continue;
    }
    words_[w] |= maskOf(lo, hi);
    begin = w * 64 + hi;
  }
}

void ElementBits::clear(uint64_t begin, uint64_t end) {
  if (!words_) return;
  while (begin < end) {
    uint64_t w = begin / 64, lo = begin % 64;
    uint64_t hi = (end - w * 64) >= 64 ? 64 : end - w * 64;
    if (lo == 0 && hi == 64) {
      uint64_t last = end / 64;
      for (; w < last; ++w) words_[w] = 0;
      begin = last * 64;
      continue;
    }
    words_[w] &= ~maskOf(lo, hi);
    begin = w * 64 + hi;
  }
}

template <bool kWantSet>
uint64_t ElementBits::find(uint64_t begin, uint64_t end) const {
  if (!words_) return kWantSet ? end : begin;
  while (begin < end) {
    uint64_t w = begin / 64, lo = begin % 64;
    uint64_t hi = (end - w * 64) >= 64 ? 64 : end - w * 64;
    uint64_t bits = (kWantSet ? words_[w] : ~words_[w]) & maskOf(lo, hi);
    if (bits != 0) return w * 64 + uint64_t(std::countr_zero(bits));
    begin = w * 64 + hi;
  }
  return end;
}

uint64_t ElementBits::findClear(uint64_t begin, uint64_t end) const { return find<false>(begin, end); }
uint64_t ElementBits::findSet(uint64_t begin, uint64_t end) const { return find<true>(begin, end); }

}  // namespace allocsim
