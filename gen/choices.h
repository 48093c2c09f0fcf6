// Where a generator's decisions come from. The program generator asks a Choices for every decision, so
// one generator serves three drivers: a seeded PRNG (`allocsim gen --seed`), the raw bytes of a libFuzzer
// input, and RapidCheck (whose own generators then shrink a failing program choice by choice).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace allocsim {

class Choices {
 public:
  virtual ~Choices() = default;
  // A value in [0, n); n == 0 is treated as 1 (returns 0).
  virtual uint64_t below(uint64_t n) = 0;
  // No decisions left: every later choice is 0 (a fuzzer's input ran out). A generator ends the program then.
  virtual bool exhausted() const { return false; }

  uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }  // [lo, hi]
  bool chance(uint32_t percent) { return below(100) < percent; }
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
};

// splitmix64: small, fast, and the same sequence on every platform.
class SeededChoices : public Choices {
 public:
  explicit SeededChoices(uint64_t seed) : state_(seed) {}
  uint64_t below(uint64_t n) override;
  uint64_t next();

 private:
  uint64_t state_;
};

// Consumes a byte string (a fuzzer input); once it runs out every choice is 0, so any input decodes to a
// finite, well-formed program and small inputs give small programs.
class ByteChoices : public Choices {
 public:
  ByteChoices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t below(uint64_t n) override;
  bool exhausted() const override { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace allocsim
