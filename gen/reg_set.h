// A set of register ids that keeps them in id order and finds the k-th in O(log n) (a Fenwick tree), so the
// generator draws "a random defined register" in time independent of how many registers the program has (so `gen` stays
// linear in --size). Draws give the same register as picking from the ascending list
// of members, so programs are the same as with a scan.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim::gen {

class RegSet {
 public:
  void set(RegId r, bool member);  // adds or removes r
  bool contains(RegId r) const { return r < in_.size() && in_[r]; }
  uint32_t size() const { return count_; }
  RegId kth(uint32_t k) const;  // the k-th smallest member, k < size()
  RegId last() const { return kth(count_ - 1); }

 private:
  void grow(size_t n);
  void add(RegId r, int32_t delta);

  std::vector<uint32_t> tree_;  // 1-based Fenwick tree over ids 0 .. capacity-1; capacity a power of two
  std::vector<uint8_t> in_;
  uint32_t count_ = 0;
};

}  // namespace allocsim::gen
