// ElementBits against a plain vector<bool>: every range and strided operation, every path (one word, many
// words, short and long segments, periodic strides), at random offsets.
#include "ir/element_bits.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace allocsim {
namespace {

struct Model {
  std::vector<bool> bits;
  uint64_t find(uint64_t b, uint64_t e, bool want) const {
    for (uint64_t i = b; i < e; ++i)
      if (bits[i] == want) return i;
    return e;
  }
};

TEST(ElementBits, UnallocatedBitsReadAsClear) {
  ElementBits b(1000);
  EXPECT_FALSE(b.allocated());
  EXPECT_EQ(b.findClear(10, 20), 10u);
  EXPECT_EQ(b.findSet(10, 20), 20u);
  EXPECT_EQ(b.findClearStrided(5, 3, 7, 40), 5u);
  EXPECT_EQ(b.findSetStrided(5, 3, 7, 40), ElementBits::kNotFound);
  b.set(0, 1000);  // no words: nothing happens
  EXPECT_EQ(b.findSet(0, 1000), 1000u);
  EXPECT_EQ(b.bytes(), 1000u / 64 * 8 + 8);
}

TEST(ElementBits, MatchesAPlainModel) {
  std::mt19937_64 rng(7);
  const uint64_t size = 3000;
  for (int round = 0; round < 20; ++round) {
    ElementBits b(size);
    ASSERT_TRUE(b.allocate());
    Model m{std::vector<bool>(size, false)};
    for (int op = 0; op < 400; ++op) {
      bool strided = rng() % 2;
      uint64_t len = 1 + rng() % (rng() % 4 == 0 ? 100 : 10);
      uint64_t stride = len + rng() % (rng() % 3 == 0 ? 80 : 6);
      uint64_t n = 1 + rng() % (rng() % 2 ? 64 : 4);
      uint64_t start = rng() % size;
      uint64_t begin = start, end = std::min(size, start + rng() % 300);
      if (strided && start + (n - 1) * stride + len > size) continue;
      const bool set = rng() % 3 != 0;
      const int action = int(rng() % 4);
      if (!strided) {
        if (action == 0) {
          set ? b.set(begin, end) : b.clear(begin, end);
          for (uint64_t i = begin; i < end; ++i) m.bits[i] = set;
        } else {
          bool want = action == 1;
          ASSERT_EQ(want ? b.findSet(begin, end) : b.findClear(begin, end), m.find(begin, end, want))
              << begin << " " << end;
        }
        continue;
      }
      if (action == 0) {
        set ? b.setStrided(start, len, stride, n) : b.clearStrided(start, len, stride, n);
        for (uint64_t j = 0; j < n; ++j)
          for (uint64_t i = 0; i < len; ++i) m.bits[start + j * stride + i] = set;
      } else {
        bool want = action == 1;
        uint64_t expect = ElementBits::kNotFound;
        for (uint64_t j = 0; j < n && expect == ElementBits::kNotFound; ++j) {
          uint64_t b0 = start + j * stride, x = m.find(b0, b0 + len, want);
          if (x != b0 + len) expect = x;
        }
        ASSERT_EQ(want ? b.findSetStrided(start, len, stride, n) : b.findClearStrided(start, len, stride, n), expect)
            << start << " " << len << " " << stride << " " << n;
      }
    }
  }
}

}  // namespace
}  // namespace allocsim
