// BestFitMemoryManager (alloc/lsa/best_fit_memory_manager.h) on hand-built cases whose outcome follows from the
// rules: corner positions, best fit among free blocks, merging on free, the PSUM bank row, the fragmentation
// accumulators (P-square against exact quantiles).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "alloc/lsa/best_fit_memory_manager.h"
#include "alloc/lsa/p_square.h"

namespace allocsim {
namespace {

TEST(BestFit, CornersFollowTheirDefinitions) {
  const BestFitGeometry g{8, 64, 4, 4};  // 8 partitions, quantum 4, 64 bytes, align 4
  for (Corner c : {Corner::LowerLeft, Corner::UpperLeft, Corner::Right}) {
    BestFitMemoryManager m(g);
    m.setCornerOrder({c, Corner::LowerLeft, Corner::UpperLeft});
    const auto b = m.allocate(1, 4, 10);
    ASSERT_TRUE(b) << cornerName(c);
    switch (c) {
      case Corner::LowerLeft: EXPECT_EQ(*b, (MemoryBlock{0, 4, 0, 10})); break;
      case Corner::UpperLeft: EXPECT_EQ(*b, (MemoryBlock{4, 4, 0, 10})); break;
      case Corner::Right: EXPECT_EQ(*b, (MemoryBlock{0, 4, 52, 10})); break;  // 64 - 10 = 54, aligned down to 52
    }
  }
}

TEST(BestFit, TheSmallestFreeBlockThatHoldsTheRequestWins) {
  BestFitMemoryManager m(BestFitGeometry{1, 16, 1, 1});  // a row of 16 banks
  ASSERT_EQ(m.allocate(1, 1, 2), (MemoryBlock{0, 1, 0, 2}));
  ASSERT_EQ(m.allocate(2, 1, 3), (MemoryBlock{0, 1, 2, 3}));
  ASSERT_EQ(m.allocate(3, 1, 4), (MemoryBlock{0, 1, 5, 4}));
  ASSERT_EQ(m.allocate(4, 1, 2), (MemoryBlock{0, 1, 9, 2}));
  ASSERT_TRUE(m.deallocate(1));  // free: [0, 2) and [11, 16)
  ASSERT_TRUE(m.deallocate(3));  // free: [0, 2), [5, 9), [11, 16)
  EXPECT_EQ(m.freeBySize().size(), 3u);
  EXPECT_EQ(m.allocate(5, 1, 3), (MemoryBlock{0, 1, 5, 3}));   // best fit [5, 9), not first fit [11, 16)
  EXPECT_EQ(m.allocate(6, 1, 2), (MemoryBlock{0, 1, 0, 2}));   // exact fit
  EXPECT_EQ(m.allocate(7, 1, 6), std::nullopt);                 // 5 + 1 free banks, never 6 in a row
  ASSERT_TRUE(m.deallocate(4));                                 // [8, 9) merges with [9, 11) and [11, 16)
  EXPECT_EQ(m.freeByAddress(), (std::vector<MemoryBlock>{{0, 1, 8, 8}}));
  EXPECT_EQ(m.allocate(7, 1, 6), (MemoryBlock{0, 1, 8, 6}));
}

// On a partition-quantized window best fit takes the smaller of the two free blocks a one-partition tensor leaves
// (the band above it), address order the lower one (the rest of the tensor's own band).
TEST(BestFit, AddressOrderTakesTheLowestFreeBlockWhereBestFitTakesTheSmallest) {
  const BestFitGeometry g{8, 64, 4, 4};  // two bands of four partitions
  for (FreeBlockOrder order : {FreeBlockOrder::BySize, FreeBlockOrder::ByAddress}) {
    BestFitMemoryManager m(g);
    m.setFreeBlockOrder(order);
    ASSERT_EQ(m.allocate(1, 1, 4), (MemoryBlock{0, 1, 0, 4}));
    // free: partitions 0-7 from byte 4 (8 x 60 cells), partitions 1-7 from byte 0 (7 x 64 cells)
    const auto second = m.allocate(2, 1, 4);
    ASSERT_TRUE(second);
    if (order == FreeBlockOrder::BySize) {
      EXPECT_EQ(*second, (MemoryBlock{4, 1, 0, 4}));  // the band at partition 4
      EXPECT_EQ(m.allocate(3, 1, 64), std::nullopt);  // neither band start has a full row left
    } else {
      EXPECT_EQ(*second, (MemoryBlock{0, 1, 4, 4}));  // beside the first
      EXPECT_EQ(m.allocate(3, 1, 64), (MemoryBlock{4, 1, 0, 64}));
    }
  }
}

TEST(BestFit, FreeingMergesTwoDimensionalNeighbours) {
  BestFitMemoryManager m(BestFitGeometry{4, 8, 1, 1});
  ASSERT_EQ(m.allocate(1, 2, 8), (MemoryBlock{0, 2, 0, 8}));
  ASSERT_EQ(m.allocate(2, 2, 8), (MemoryBlock{2, 2, 0, 8}));
  EXPECT_EQ(m.allocate(3, 4, 1), std::nullopt);
  m.deallocate(1);
  m.deallocate(2);
  EXPECT_EQ(m.freeByAddress(), (std::vector<MemoryBlock>{{0, 4, 0, 8}}));
  EXPECT_EQ(m.allocate(3, 4, 8), (MemoryBlock{0, 4, 0, 8}));
}

TEST(BestFit, PinnedReservationsAreObstacles) {
  BestFitMemoryManager m(BestFitGeometry{4, 16, 2, 4});
  EXPECT_FALSE(m.reserve(1, {1, 2, 0, 4}));   // row 1 is not a multiple of the quantum 2
  EXPECT_FALSE(m.reserve(1, {0, 2, 2, 4}));   // byte 2 is not aligned to 4
  EXPECT_FALSE(m.reserve(1, {0, 2, 14, 4}));  // past the window
  ASSERT_TRUE(m.reserve(1, {0, 4, 4, 4}));
  EXPECT_FALSE(m.reserve(2, {2, 2, 4, 4}));   // overlaps owner 1
  EXPECT_EQ(m.allocate(2, 4, 8), (MemoryBlock{0, 4, 8, 8}));
  EXPECT_EQ(m.allocate(3, 4, 8), std::nullopt);
}

TEST(BestFit, TensorRequestsUseTheMachineGeometry) {
  const Arch tiny = *archPreset("tiny");
  Tensor s;
  s.space = Space::Sbuf;
  s.partitions = 3;
  s.elements = 10;
  s.dtype = DType::BF16;
  EXPECT_EQ(BestFitMemoryManager::requestOf(tiny, s), (MemoryBlock{0, 3, 0, 20}));
  Tensor p = s;
  p.space = Space::Psum;
  p.elements = tiny.psum_bank_bytes / 2 + 1;  // one element over a bank in bf16
  EXPECT_EQ(BestFitMemoryManager::requestOf(tiny, p), (MemoryBlock{0, 1, 0, 2}));
  BestFitMemoryManager psum(tiny, Space::Psum);
  EXPECT_EQ(psum.geometry().cols, tiny.psum_banks);
  Placement at;
  at.bank = 2;
  EXPECT_EQ(BestFitMemoryManager::placementOf(Space::Psum, BestFitMemoryManager::blockOf(tiny, p, at)), at);
}

TEST(PSquare, TracksExactQuantilesOfAStream) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1000);
  std::vector<double> xs;
  PSquareQuantile p50(0.5), p90(0.9);
  for (int i = 0; i < 20000; ++i) {
    xs.push_back(u(rng));
    p50.add(xs.back());
    p90.add(xs.back());
  }
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(p50.value(), xs[xs.size() / 2], 15.0);  // 1.5% of the range
  EXPECT_NEAR(p90.value(), xs[xs.size() * 9 / 10], 15.0);
  PSquareQuantile few(0.5);
  for (double x : {5.0, 1.0, 3.0}) few.add(x);
  EXPECT_EQ(few.value(), 3.0);  // exact below five samples
}

}  // namespace
}  // namespace allocsim
