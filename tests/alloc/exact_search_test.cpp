// The exact placement search (alloc/exact/exact_search.h) against an independent oracle: exhaustive enumeration of
// every (row, offset) of every item on small random problems (1-D, 2-D bands with a start quantum, alignment,
// pinned items). The search must say "fit" exactly when the enumeration finds one — with a placement that
// exactViolation accepts — and "no fit" otherwise; "unknown" is not allowed at these sizes.
#include "alloc/exact/exact_search.h"

#include <gtest/gtest.h>

#include <random>

namespace allocsim {
namespace {

// Every placement of item k.. given the ones before: plain enumeration, no pruning beyond conflicts.
bool enumerate(const ExactProblem& p, std::vector<ExactPlacement>& pl, size_t k) {
  if (k == p.items.size()) return true;
  const ExactItem& it = p.items[k];
  for (uint32_t row : it.starts)
    for (uint64_t off = 0; off + it.size <= p.capacity; off += it.align) {
      if (it.fixed_offset && off != *it.fixed_offset) continue;
      pl[k] = {row, off};
      bool ok = true;
      for (size_t j = 0; j < k && ok; ++j) ok = !exactConflict(it, pl[k], p.items[j], pl[j]);
      if (ok && enumerate(p, pl, k + 1)) return true;
    }
  return false;
}

ExactProblem randomProblem(std::mt19937& rng, bool two_d, bool pinned) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  ExactProblem p;
  p.rows = two_d ? 4 : 1;
  p.capacity = pick(4, 10);
  const uint32_t quantum = two_d ? 1u << pick(0, 2) : 1;  // 1, 2 or 4 of the 4 rows
  const uint32_t n = pick(2, two_d ? 5 : 6);
  for (uint32_t i = 0; i < n; ++i) {
    ExactItem it;
    it.first = pick(0, 6);
    it.last = it.first + pick(0, 4);
    it.size = pick(1, uint32_t(p.capacity) / 2 + 1);
    it.align = pick(1, 3) == 3 ? 2 : 1;
    it.rows = two_d ? pick(1, 4) : 1;
    it.starts.clear();
    for (uint32_t s = 0; s + it.rows <= p.rows; s += quantum) it.starts.push_back(s);
    if (pinned && pick(0, 3) == 0) {
      it.starts = {it.starts[pick(0, uint32_t(it.starts.size()) - 1)]};
      it.fixed_offset = pick(0, uint32_t(p.capacity - it.size)) / it.align * it.align;
    }
    p.items.push_back(it);
  }
  return p;
}

void agreeWithEnumeration(bool two_d, bool pinned, bool greedy_first, uint32_t seed) {
  std::mt19937 rng(seed);
  uint32_t fits = 0, no_fits = 0;
  for (int round = 0; round < 300; ++round) {
    const ExactProblem p = randomProblem(rng, two_d, pinned);
    std::vector<ExactPlacement> pl(p.items.size());
    const bool feasible = enumerate(p, pl, 0);
    ExactSearchOptions o;
    o.greedy_first = greedy_first;
    const ExactResult r = solveExact(p, o);
    ASSERT_NE(r.status, ExactStatus::Unknown) << "round " << round;
    ASSERT_EQ(r.status == ExactStatus::Fit, feasible) << "round " << round << " seed " << seed;
    if (feasible) {
      EXPECT_EQ(exactViolation(p, r.placements), "") << "round " << round;
      EXPECT_LE(r.height, p.capacity);
    }
    EXPECT_LE(r.lower_bound, feasible ? p.capacity : UINT64_MAX);
    (feasible ? fits : no_fits)++;
  }
  // Both answers occur, so neither side of the comparison is vacuous.
  EXPECT_GT(fits, 30u);
  EXPECT_GT(no_fits, 30u);
}

TEST(ExactSearch, OneDimensionAgreesWithEnumeration) { agreeWithEnumeration(false, false, false, 1); }
TEST(ExactSearch, OneDimensionWithFirstFitAgreesWithEnumeration) { agreeWithEnumeration(false, false, true, 2); }
TEST(ExactSearch, PinnedItemsAgreeWithEnumeration) { agreeWithEnumeration(false, true, false, 3); }
TEST(ExactSearch, RowBandsAgreeWithEnumeration) { agreeWithEnumeration(true, false, false, 4); }
TEST(ExactSearch, RowBandsWithPinnedItemsAgreeWithEnumeration) { agreeWithEnumeration(true, true, false, 5); }

ExactItem item(uint32_t first, uint32_t last, uint64_t size, uint64_t align = 1) {
  return ExactItem{.size = size, .align = align, .first = first, .last = last, .segments = {}, .rows = 1, .starts = {0}, .fixed_offset = {}};
}

TEST(ExactSearch, ProvesNoFitByTheLowerBoundAndBySearch) {
  // 2 + 1 + 2 + 1 bytes all live at position 1: lower bound 6 > capacity 4.
  ExactProblem p;
  p.capacity = 4;
  p.items = {item(0, 1, 2), item(1, 1, 1), item(1, 2, 2), item(1, 1, 1)};
  ExactResult r = solveExact(p);
  EXPECT_EQ(r.status, ExactStatus::NoFit);
  EXPECT_EQ(r.method, "lower bound");
  EXPECT_EQ(r.lower_bound, 6u);

  // Capacity 3, 3 bytes live at every position: c (2 bytes, position 0) pushes a (1 byte, [0,1]) to offset 0 or
  // 2; d (2 bytes, position 2) does the same to b ([1,2]); at position 1, e (1 byte) is left offset 1: a fit.
  p.capacity = 3;
  p.items = {item(0, 1, 1), item(1, 2, 1), item(0, 0, 2), item(2, 2, 2), item(1, 1, 1)};
  r = solveExact(p);
  ASSERT_EQ(r.status, ExactStatus::Fit);
  EXPECT_EQ(exactViolation(p, r.placements), "");
  EXPECT_EQ(r.placements[4].offset, 1u);
  // With e aligned to 2 it needs offset 0 or 2, both taken by a and b: no fit, although the bound is still 3.
  p.items[4].align = 2;
  for (bool greedy : {true, false}) {
    ExactSearchOptions o;
    o.greedy_first = greedy;
    r = solveExact(p, o);
    EXPECT_EQ(r.status, ExactStatus::NoFit);
    EXPECT_EQ(r.lower_bound, 3u);
    EXPECT_NE(r.method, "lower bound");
  }
}

// The bound counts rows in whole blocks of the start quantum: three 1-row items live together on 8 rows that start at
// row 0 or 4 need a block each, and two of the blocks' items stack: height 20, bound 3 x 10 / 2 blocks = 15 (the
// plain area bound says 10, the largest item).
TEST(ExactSearch, LowerBoundCountsRowsInBlocksOfTheStartQuantum) {
  ExactProblem p;
  p.rows = 8;
  for (int i = 0; i < 3; ++i) {
    ExactItem it = item(0, 0, 10);
    it.starts = {0, 4};
    p.items.push_back(it);
  }
  EXPECT_EQ(exactLowerBound(p), 15u);
  p.capacity = 19;
  std::vector<ExactPlacement> pl(p.items.size());
  EXPECT_FALSE(enumerate(p, pl, 0));
  p.capacity = 20;
  EXPECT_TRUE(enumerate(p, pl, 0));
  // Any start allowed (quantum 1): a row each, the plain bound.
  for (ExactItem& it : p.items) it.starts = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(exactLowerBound(p), 10u);
}

// The bound never exceeds the least capacity the enumeration fits, on 2-D problems with start quanta 1, 2 and 4, and
// pinned items; it is that least capacity on a good share of them, so the comparison is not vacuous.
TEST(ExactSearch, LowerBoundIsAtMostTheLeastFittingCapacity) {
  std::mt19937 rng(7);
  uint32_t tight = 0;
  for (int round = 0; round < 200; ++round) {
    ExactProblem p = randomProblem(rng, true, round % 3 == 0);
    // Every item stacked on its own fits, unless two pinned items collide: then no capacity does.
    uint64_t stacked = 0;
    for (const ExactItem& it : p.items) stacked += it.size + (it.fixed_offset ? *it.fixed_offset : 0) + it.align;
    std::vector<ExactPlacement> pl(p.items.size());
    for (p.capacity = 1; p.capacity <= stacked && !enumerate(p, pl, 0); ++p.capacity) {
    }
    if (p.capacity > stacked) continue;
    const uint64_t least = p.capacity;
    ASSERT_LE(exactLowerBound(p), least) << "round " << round;
    if (exactLowerBound(p) == least) ++tight;
  }
  EXPECT_GT(tight, 40u);
}

}  // namespace
}  // namespace allocsim
