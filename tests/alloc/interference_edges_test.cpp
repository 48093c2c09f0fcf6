#include "alloc/interference_edges.h"

#include <gtest/gtest.h>

#include <random>

namespace allocsim {
namespace {

using Edges = std::vector<std::vector<uint32_t>>;

LiveRange range(uint32_t first, uint32_t last) { return LiveRange{first, last}; }

Edges lists(const InterferenceEdges& g) {
  Edges out;
  for (size_t i = 0; i < g.size(); ++i) out.emplace_back(g[i].begin(), g[i].end());
  return out;
}

TEST(InterferenceEdges, RangesThatSharePositionInterfereInclusively) {
  // 0: [0,2]  1: [2,4]  2: [5,5]  3: [3,3]  4: empty  5: [0,9]
  const std::vector<LiveRange> ranges = {range(0, 2), range(2, 4), range(5, 5), range(3, 3), LiveRange{}, range(0, 9)};
  const Edges expected = {{1, 5}, {0, 3, 5}, {5}, {1, 5}, {}, {0, 1, 2, 3}};
  EXPECT_EQ(lists(interferenceEdges(ranges)), expected);
}

TEST(InterferenceEdges, SameStartAndNoRangesGiveNoRepeats) {
  EXPECT_EQ(lists(interferenceEdges({range(1, 1), range(1, 1), range(1, 1)})), (Edges{{1, 2}, {0, 2}, {0, 1}}));
  EXPECT_EQ(lists(interferenceEdges({})), Edges{});
  EXPECT_EQ(lists(interferenceEdges({LiveRange{}, LiveRange{}})), (Edges{{}, {}}));
}

TEST(InterferenceEdges, AgreeWithEveryPairCheckedDirectly) {
  // The sweep against the definition, on random ranges (fixed seed): i and j interfere when neither range is empty
  // and they share a position.
  std::mt19937 rng(12);
  for (int c = 0; c < 300; ++c) {
    const uint32_t n = rng() % 40;
    std::vector<LiveRange> ranges;
    for (uint32_t i = 0; i < n; ++i) {
      if (rng() % 6 == 0) {
        ranges.push_back(LiveRange{});
        continue;
      }
      const uint32_t first = rng() % 30;
      ranges.push_back(range(first, first + rng() % 8));
    }
    Edges expected(n);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t j = 0; j < n; ++j)
        if (i != j && !ranges[i].empty() && !ranges[j].empty() && ranges[i].first <= ranges[j].last &&
            ranges[j].first <= ranges[i].last)
          expected[i].push_back(j);
    EXPECT_EQ(lists(interferenceEdges(ranges)), expected) << "case " << c;
  }
}

}  // namespace
}  // namespace allocsim
