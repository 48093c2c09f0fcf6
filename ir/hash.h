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
  // An off hasher takes nothing in (its digest stays the empty one): for runs whose digests nobody reads, which
  // would otherwise hash every byte they touch for nothing.
  explicit OperandHasher(bool on = true) : on_(on) {}
  void u64(uint64_t v) {
    if (on_) state_ = step(state_, v);
  }
  // The bytes and their length; a tail shorter than 8 bytes is zero-padded (the length tells it apart). Four
  // lanes hash interleaved words so that the multiplies overlap; they are folded into the state in order.
  void bytes(const uint8_t* p, size_t n) {
    if (!on_) return;
    u64(n);
    size_t i = 0;
    if (n >= 32) {
      uint64_t l0 = state_, l1 = state_ ^ 0x243f6a8885a308d3ULL, l2 = state_ ^ 0x13198a2e03707344ULL,
               l3 = state_ ^ 0xa4093822299f31d0ULL;
      for (; i + 32 <= n; i += 32) {
        l0 = step(l0, word(p + i));
        l1 = step(l1, word(p + i + 8));
        l2 = step(l2, word(p + i + 16));
        l3 = step(l3, word(p + i + 24));
      }
      state_ = l0;
      u64(l1);
      u64(l2);
      u64(l3);
    }
    for (; i + 8 <= n; i += 8) u64(word(p + i));
    if (i < n) {
      uint64_t w = 0;
      std::memcpy(&w, p + i, n - i);
      u64(w);
    }
  }
  // bytes() over a buffer given in pieces: feed the n bytes in order, in any number of pieces, then finish(); the
  // state is what bytes(all n, n) leaves. For a copy that hashes its source where it lies (no gathered buffer).
  class Stream {
   public:
    Stream(OperandHasher& h, size_t n) : h_(h), on_(h.on_) {
      if (!on_) return;
      h_.u64(n);
      wide_ = n >= 32;
      l_[0] = h_.state_, l_[1] = h_.state_ ^ 0x243f6a8885a308d3ULL, l_[2] = h_.state_ ^ 0x13198a2e03707344ULL,
      l_[3] = h_.state_ ^ 0xa4093822299f31d0ULL;
      wide_left_ = n / 32;
    }
    void feed(const uint8_t* p, size_t n) {
      if (!on_) return;
      while (n) {
        if (!used_ && wide_left_ && n >= 32) {  // a whole block in place
          block(p);
          p += 32, n -= 32;
          continue;
        }
        const size_t k = n < 32 - used_ ? n : 32 - used_;
        std::memcpy(pending_ + used_, p, k);
        used_ += k, p += k, n -= k;
        if (used_ == 32 && wide_left_) block(pending_), used_ = 0;  // (the tail after the blocks is < 32 bytes)
      }
    }
    void finish() {
      if (!on_) return;
      if (wide_) {
        h_.state_ = l_[0];
        h_.u64(l_[1]);
        h_.u64(l_[2]);
        h_.u64(l_[3]);
      }
      size_t i = 0;
      for (; i + 8 <= used_; i += 8) h_.u64(word(pending_ + i));
      if (i < used_) {
        uint64_t w = 0;
        std::memcpy(&w, pending_ + i, used_ - i);
        h_.u64(w);
      }
    }

   private:
    void block(const uint8_t* p) {
      l_[0] = step(l_[0], word(p));
      l_[1] = step(l_[1], word(p + 8));
      l_[2] = step(l_[2], word(p + 16));
      l_[3] = step(l_[3], word(p + 24));
      --wide_left_;
    }
    OperandHasher& h_;
    bool on_, wide_ = false;
    uint64_t l_[4] = {};
    size_t wide_left_ = 0;
    uint8_t pending_[32];
    size_t used_ = 0;
  };

  uint64_t digest() const {  // splitmix64's finalizer
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  static uint64_t word(const uint8_t* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  static uint64_t step(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
  }
  bool on_;
  uint64_t state_ = 0x6a09e667f3bcc908ULL;
};

}  // namespace allocsim
