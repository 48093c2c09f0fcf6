#include "alloc/interference_edges.h"

#include <algorithm>

namespace allocsim {

InterferenceEdges interferenceEdges(const std::vector<LiveRange>& ranges) {
  const uint32_t n = uint32_t(ranges.size());
  // Sweep in order of range start: node i meets exactly the later-starting nodes that start within its range.
  std::vector<uint32_t> by_start;
  by_start.reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    if (!ranges[i].empty()) by_start.push_back(i);
  // Ties by index, as they were filed: stable_sort's order without its buffer (a heap block per graph).
  std::sort(by_start.begin(), by_start.end(), [&](uint32_t a, uint32_t b) {
    return ranges[a].first != ranges[b].first ? ranges[a].first < ranges[b].first : a < b;
  });
  // Every edge {i, j} the sweep meets, given to `edge` once.
  auto sweep = [&](auto&& edge) {
    for (size_t x = 0; x < by_start.size(); ++x) {
      const uint32_t i = by_start[x];
      for (size_t y = x + 1; y < by_start.size() && ranges[by_start[y]].first <= ranges[i].last; ++y)
        if (interferes(ranges[i], ranges[by_start[y]])) edge(i, by_start[y]);
    }
  };
  InterferenceEdges g;
  g.offsets_.assign(size_t(n) + 1, 0);
  sweep([&](uint32_t i, uint32_t j) { ++g.offsets_[i + 1], ++g.offsets_[j + 1]; });  // degrees, then row starts
  for (uint32_t i = 0; i < n; ++i) g.offsets_[i + 1] += g.offsets_[i];
  g.flat_.resize(g.offsets_[n]);
  std::vector<uint32_t> fill(g.offsets_.begin(), g.offsets_.end() - 1);
  sweep([&](uint32_t i, uint32_t j) { g.flat_[fill[i]++] = j, g.flat_[fill[j]++] = i; });
  for (uint32_t i = 0; i < n; ++i) std::sort(g.flat_.begin() + g.offsets_[i], g.flat_.begin() + g.offsets_[i + 1]);
  return g;
}

}  // namespace allocsim
