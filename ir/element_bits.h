// One bit per element of a tensor (flat index partition * elements + element), with word-level range
// operations, so that checking a 128 x 512 tile costs a few hundred word operations, not 65536 lookups.
// The words are allocated on first use (calloc: untouched pages of a large bitmap cost nothing).
#pragma once

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

  // Ranges are [begin, end) with begin <= end <= size(). set() allocates nothing: call allocate() first.
  void set(uint64_t begin, uint64_t end);
  void clear(uint64_t begin, uint64_t end);
  // The first index in [begin, end) whose bit is clear (set), or end if there is none.
  uint64_t findClear(uint64_t begin, uint64_t end) const;
  uint64_t findSet(uint64_t begin, uint64_t end) const;

 private:
  struct FreeWords {
    void operator()(uint64_t* w) const { std::free(w); }
  };
  template <bool kWantSet>
  uint64_t find(uint64_t begin, uint64_t end) const;

  std::unique_ptr<uint64_t[], FreeWords> words_;
  uint64_t bits_ = 0;
};

}  // namespace allocsim
