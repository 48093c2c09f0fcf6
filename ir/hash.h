// The operand hash: a 64-bit digest of every value an instruction reads, in order. Two runs of a program (the
// reference on private storage, the allocated one on physical storage) must agree on it instruction by
// instruction, so a clobbered operand is caught where it is read. Not cryptographic; chosen so that changing
// any single input word always changes the digest (each step is a bijection of the state), and fast enough
// to hash every byte an interpreter reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace allocsim {

class OperandHasher {
 public:
  void u64(uint64_t v) {
    state_ ^= v;
    state_ *= 0x9e3779b97f4a7c15ULL;
    state_ ^= state_ >> 29;
  }
  // The bytes and their length; a tail shorter than 8 bytes is zero-padded (the length tells it apart).
  void bytes(const uint8_t* p, size_t n) {
    u64(n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      u64(w);
    }
    if (i < n) {
      uint64_t w = 0;
      std::memcpy(&w, p + i, n - i);
      u64(w);
    }
  }
  uint64_t digest() const {  // splitmix64's finalizer
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_ = 0x6a09e667f3bcc908ULL;
};

}  // namespace allocsim
