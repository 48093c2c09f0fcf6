// One bit per element of a tensor (flat index partition * elements + element), with word-level range
// operations, so that checking a 128 x 512 tile costs a few hundred word operations, not 65536 lookups.
// The words are allocated on first use (calloc: untouched pages of a large bitmap cost nothing).
// The range operations are inline: strided views call them once per short segment.
#pragma once

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace allocsim {

class ElementBits {
 public:
  ElementBits() = default;
  explicit ElementBits(uint64_t bits) : bits_(bits) {}

  uint64_t size() const { return bits_; }
  uint64_t bytes() const { return (bits_ + 63) / 64 * 8; }
  bool allocated() const { return words_ != nullptr; }
  // Allocates the (zeroed) words; false when memory is exhausted.
  bool allocate();

  // Ranges are [begin, end) with begin <= end <= size(). set() on unallocated bits does nothing: call
  // allocate() first.
  void set(uint64_t begin, uint64_t end) { update<true>(begin, end); }
  void clear(uint64_t begin, uint64_t end) { update<false>(begin, end); }
  // The first index in [begin, end) whose bit is clear (set), or end if there is none.
  uint64_t findClear(uint64_t begin, uint64_t end) const { return find<false>(begin, end); }
  uint64_t findSet(uint64_t begin, uint64_t end) const { return find<true>(begin, end); }

  // The same over n segments [start + j * stride, + len), len <= stride (disjoint, ascending). Short
  // segments are gathered into one mask per word. find* return kNotFound when no bit matches.
  static constexpr uint64_t kNotFound = UINT64_MAX;
  void setStrided(uint64_t start, uint64_t len, uint64_t stride, uint64_t n) { strided<0>(start, len, stride, n); }
  void clearStrided(uint64_t start, uint64_t len, uint64_t stride, uint64_t n) { strided<1>(start, len, stride, n); }
  uint64_t findClearStrided(uint64_t start, uint64_t len, uint64_t stride, uint64_t n) const {
    return strided<2>(start, len, stride, n);
  }
  uint64_t findSetStrided(uint64_t start, uint64_t len, uint64_t stride, uint64_t n) const {
    return strided<3>(start, len, stride, n);
  }

 private:
  struct FreeWords {
    void operator()(uint64_t* w) const { std::free(w); }
  };

  // Bits [lo, hi) of one word, 0 <= lo < hi <= 64.
  static uint64_t maskOf(uint64_t lo, uint64_t hi) {
    uint64_t upper = hi == 64 ? ~uint64_t(0) : (uint64_t(1) << hi) - 1;
    return upper & ~((uint64_t(1) << lo) - 1);
  }

  // const so that the const finds can share strided(); only set() / clear() reach it with kSet writes.
  template <bool kSet>
  void update(uint64_t begin, uint64_t end) const {
    if (!words_ || begin >= end) return;
    uint64_t first = begin / 64, last = (end - 1) / 64;
    if (first == last) {
      uint64_t m = maskOf(begin % 64, (end - 1) % 64 + 1);
      kSet ? words_[first] |= m : words_[first] &= ~m;
      return;
    }
    uint64_t head = maskOf(begin % 64, 64), tail = maskOf(0, (end - 1) % 64 + 1);
    kSet ? words_[first] |= head : words_[first] &= ~head;
    for (uint64_t w = first + 1; w < last; ++w) words_[w] = kSet ? ~uint64_t(0) : 0;
    kSet ? words_[last] |= tail : words_[last] &= ~tail;
  }

  template <bool kWantSet>
  uint64_t find(uint64_t begin, uint64_t end) const {
    if (begin >= end) return end;
    if (!words_) return kWantSet ? end : begin;
    const uint64_t first = begin / 64, last = (end - 1) / 64;
    auto hit = [&](uint64_t w, uint64_t mask) -> uint64_t {
      uint64_t bits = (kWantSet ? words_[w] : ~words_[w]) & mask;
      return bits == 0 ? end : w * 64 + uint64_t(std::countr_zero(bits));
    };
    if (first == last) return hit(first, maskOf(begin % 64, (end - 1) % 64 + 1));
    if (uint64_t x = hit(first, maskOf(begin % 64, 64)); x != end) return x;
    const uint64_t boring = kWantSet ? 0 : ~uint64_t(0);  // a whole word with no hit
    uint64_t w = first + 1;
    while (w < last && words_[w] == boring) ++w;
    if (w < last) return hit(w, ~uint64_t(0));
    return hit(last, maskOf(0, (end - 1) % 64 + 1));
  }

  // kAction: 0 set, 1 clear, 2 find clear, 3 find set (the finds do not modify the words).
  template <int kAction>
  uint64_t strided(uint64_t start, uint64_t len, uint64_t stride, uint64_t n) const {
    if (!words_) return kAction == 2 && n > 0 && len > 0 ? start : kNotFound;  // all bits clear
    if (len >= 64) {  // long segments: the range operations are already word-wide
      for (uint64_t j = 0; j < n; ++j) {
        uint64_t b = start + j * stride, e = b + len;
        if constexpr (kAction == 0) update<true>(b, e);
        if constexpr (kAction == 1) update<false>(b, e);
        if constexpr (kAction == 2) if (uint64_t x = findClear(b, e); x != e) return x;
        if constexpr (kAction == 3) if (uint64_t x = findSet(b, e); x != e) return x;
      }
      return kNotFound;
    }
    if (stride < 64 && n >= 16) return periodic<kAction>(start, len, stride, n);
    uint64_t word = UINT64_MAX, mask = 0;
    auto flush = [&]() -> uint64_t {
      if (word == UINT64_MAX || mask == 0) return kNotFound;
      if constexpr (kAction == 0) words_[word] |= mask;
      if constexpr (kAction == 1) words_[word] &= ~mask;
      if constexpr (kAction >= 2) {
        uint64_t bits = (kAction == 3 ? words_[word] : ~words_[word]) & mask;
        if (bits != 0) return word * 64 + uint64_t(std::countr_zero(bits));
      }
      return kNotFound;
    };
    auto add = [&](uint64_t w, uint64_t m) -> uint64_t {
      if (w != word) {
        if (uint64_t x = flush(); x != kNotFound) return x;
        word = w, mask = 0;
      }
      mask |= m;
      return kNotFound;
    };
    const uint64_t ones = (uint64_t(1) << len) - 1;
    for (uint64_t j = 0; j < n; ++j) {
      uint64_t b = start + j * stride, w = b / 64, shift = b % 64;
      if (uint64_t x = add(w, ones << shift); x != kNotFound) return x;
      if (shift + len > 64)  // the segment's tail spills into the next word
        if (uint64_t x = add(w + 1, ones >> (64 - shift)); x != kNotFound) return x;
    }
    return flush();
  }

  // Many short segments with a stride below 64: the segment pattern is periodic, so each word's mask is
  // one shift of a 128-bit pattern; the cost is per word instead of per segment.
  template <int kAction>
  uint64_t periodic(uint64_t start, uint64_t len, uint64_t stride, uint64_t n) const {
    unsigned __int128 pattern = 0;  // bit k set iff k mod stride < len
    for (uint64_t k = 0, r = 0; k < 128; ++k, r = r + 1 == stride ? 0 : r + 1)
      if (r < len) pattern |= (unsigned __int128)(1) << k;
    const uint64_t end = start + (n - 1) * stride + len;
    const uint64_t first = start / 64, last = (end - 1) / 64;
    const uint64_t advance = 64 % stride;  // the phase moves by this per word (no division in the loop)
    uint64_t phase = (stride - start % 64 % stride) % stride;  // the pattern bit for bit 0 of the word
    for (uint64_t w = first; w <= last; ++w) {
      uint64_t m = uint64_t(pattern >> phase);
      if (w == first) m &= maskOf(start % 64, 64);
      if (w == last) m &= maskOf(0, (end - 1) % 64 + 1);
      if constexpr (kAction == 0) words_[w] |= m;
      if constexpr (kAction == 1) words_[w] &= ~m;
      if constexpr (kAction >= 2) {
        uint64_t bits = (kAction == 3 ? words_[w] : ~words_[w]) & m;
        if (bits != 0) return w * 64 + uint64_t(std::countr_zero(bits));
      }
      phase += advance;
      if (phase >= stride) phase -= stride;
    }
    return kNotFound;
  }

  std::unique_ptr<uint64_t[], FreeWords> words_;
  uint64_t bits_ = 0;
};

}  // namespace allocsim
