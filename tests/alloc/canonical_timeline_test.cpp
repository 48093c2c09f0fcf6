// The exact allocator's canonical timeline (alloc/exact/canonical_timeline.h): worked by hand, interference kept on
// random problems, and a regression: an imported minimalloc problem (ir/minimalloc_import.h) whose
// buffers tie in width gives the exact search the problem the CSV path gives (alloc/exact/minimalloc_problem.h),
// widths scaled by one factor, so both searches go in the same order.
#include "alloc/exact/canonical_timeline.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "alloc/exact/exact_allocator.h"
#include "alloc/exact/exact_search.h"
#include "alloc/exact/minimalloc_problem.h"
#include "ir/minimalloc_import.h"
#include "tests/common/placed_program_checks.h"

namespace allocsim {
namespace {

ExactItem item(uint32_t first, uint32_t last) {
  ExactItem it;
  it.size = 1;
  it.first = first;
  it.last = last;
  return it;
}

bool overlap(const ExactItem& a, const ExactItem& b) { return a.first <= b.last && b.first <= a.last; }

uint64_t width(const ExactItem& it) { return uint64_t(it.last - it.first) + 1; }

TEST(CanonicalTimeline, RunsOfStartsAndOfEndsBecomeOnePositionAndGapsKeepTheirLength) {
  // Starts at 0, 1; ends at 4, 5; starts at 7, 8; ends at 9. Runs {0, 1} -> 0, {4, 5} -> 0 + (4 - 1) = 3,
  // {7, 8} -> 3 + (7 - 5) = 5, 9 -> 5 + 1 = 6.
  std::vector<ExactItem> items = {item(0, 4), item(1, 5), item(7, 9), item(8, 9)};
  canonicalizeTimeline(items);
  const std::vector<std::pair<uint32_t, uint32_t>> want = {{0, 3}, {0, 3}, {5, 6}, {5, 6}};
  for (size_t i = 0; i < items.size(); ++i) EXPECT_EQ(std::pair(items[i].first, items[i].last), want[i]) << i;
  // A position that starts an item and ends one belongs to no run: 3 (c lives only there, d starts there) stays
  // between the ends at 2 and 4.
  items = {item(0, 2), item(1, 4), item(3, 3), item(3, 6)};
  canonicalizeTimeline(items);
  EXPECT_EQ(std::pair(items[0].first, items[0].last), std::pair(0u, 1u));  // starts {0, 1} -> 0, then 2 -> 1
  EXPECT_EQ(std::pair(items[1].first, items[1].last), std::pair(0u, 3u));  // 3 -> 2 (mixed), 4 -> 3
  EXPECT_EQ(std::pair(items[2].first, items[2].last), std::pair(2u, 2u));
  EXPECT_EQ(std::pair(items[3].first, items[3].last), std::pair(2u, 5u));  // 6 -> 3 + 2
}

TEST(CanonicalTimeline, KeepsWhichItemsOverlapAndTheirOrder) {
  std::mt19937 rng(20261202);
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  uint32_t merged = 0;
  for (int round = 0; round < 100; ++round) {
    std::vector<ExactItem> before;
    for (uint32_t n = pick(1, 12); n > 0; --n) {
      const uint32_t first = pick(0, 20);
      before.push_back(item(first, first + pick(0, 8)));
    }
    std::vector<ExactItem> after = before;
    canonicalizeTimeline(after);
    for (size_t i = 0; i < before.size(); ++i) {
      EXPECT_LE(after[i].first, after[i].last);
      EXPECT_LE(width(after[i]), width(before[i]));
      merged += width(after[i]) < width(before[i]);
      for (size_t j = 0; j < before.size(); ++j) {
        EXPECT_EQ(overlap(after[i], after[j]), overlap(before[i], before[j])) << round << " " << i << " " << j;
        if (before[i].first <= before[j].first) {
          EXPECT_LE(after[i].first, after[j].first);
        }
        if (before[i].last <= before[j].last) {
          EXPECT_LE(after[i].last, after[j].last);
        }
      }
    }
  }
  EXPECT_GT(merged, 0u);  // the runs did get collapsed somewhere
}

// The imported program's exact problem against the CSV path's, derived from the CSV: the same items (sizes, who
// overlaps whom), and every width 2 (upper - lower) / g, g the gcd of the time differences, so every width and
// area ratio, tie and order of the preorders is the CSV's.
void expectTheCsvProblemScaled(const MinimallocProblem& mp, uint64_t capacity) {
  const ExactProblem csv = exactProblemOf(mp, capacity);
  const ExactProblem imported = exactProblemOfSpace(importMinimalloc(mp, capacity), Space::Sbuf);
  ASSERT_EQ(imported.items.size(), csv.items.size());
  EXPECT_EQ(imported.capacity, csv.capacity);
  int64_t g = 0;
  const int64_t t0 = mp.buffers[0].lower;
  for (const MinimallocBuffer& b : mp.buffers) g = std::gcd(g, std::gcd(b.lower - t0, b.upper - t0));
  ASSERT_GT(g, 0);
  for (size_t i = 0; i < csv.items.size(); ++i) {
    const MinimallocBuffer& b = mp.buffers[i];
    EXPECT_EQ(imported.items[i].size, uint64_t(b.size));
    EXPECT_EQ(width(imported.items[i]), uint64_t(2 * (b.upper - b.lower) / g)) << b.id;
    for (size_t j = 0; j < csv.items.size(); ++j)
      EXPECT_EQ(overlap(imported.items[i], imported.items[j]),
                b.lower < mp.buffers[j].upper && mp.buffers[j].lower < b.upper);
  }
  // Hence the search itself: the same preorder, node for node, to the same placement.
  ExactSearchOptions o;
  o.greedy_first = false;
  o.time_limit_s = 60;
  const ExactResult a = solveExact(csv, o), b = solveExact(imported, o);
  EXPECT_EQ(a.status, ExactStatus::Fit);
  EXPECT_EQ(b.method, a.method);
  EXPECT_EQ(b.nodes, a.nodes);
  EXPECT_EQ(b.placements, a.placements);
}

TEST(CanonicalTimeline, AnImportWithTiedWidthsGivesTheCsvProblem) {
  // Widths tie (a, b, c, d, h: 20; e, f: 10), several buffers end and start at one time, the unit is 10 and the
  // unit at 50 has no event (g spans it). Max live 24 bytes, over [10, 20).
  const MinimallocProblem mp = parseMinimallocCsv(
      "id,lower,upper,size\n"
      "a,0,20,4\n"
      "b,0,20,8\n"
      "c,10,30,4\n"
      "d,10,30,8\n"
      "e,20,30,4\n"
      "f,30,40,8\n"
      "g,40,60,4\n"
      "h,20,40,2\n");
  expectTheCsvProblemScaled(mp, 24);
}

TEST(CanonicalTimeline, BenchmarkBImportedSearchesLikeItsCsv) {
  expectTheCsvProblemScaled(parseMinimallocCsv(readFile(std::string(ALLOCSIM_SOURCE_DIR) +
                                                                        "/bench/minimalloc/B.1048576.csv")),
                            1048576);
}

}  // namespace
}  // namespace allocsim
