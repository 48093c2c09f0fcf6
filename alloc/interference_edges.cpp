#include "alloc/interference_edges.h"

#include <algorithm>

namespace allocsim {

std::vector<std::vector<uint32_t>> interferenceEdges(const std::vector<LiveRange>& ranges) {
  const uint32_t n = uint32_t(ranges.size());
  std::vector<std::vector<uint32_t>> neighbours(n);
  // Sweep in order of range start: node i meets exactly the later-starting nodes that start within its range.
  std::vector<uint32_t> by_start;
  for (uint32_t i = 0; i < n; ++i)
    if (!ranges[i].empty()) by_start.push_back(i);
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](uint32_t a, uint32_t b) { return ranges[a].first < ranges[b].first; });
  for (size_t x = 0; x < by_start.size(); ++x) {
    const uint32_t i = by_start[x];
    for (size_t y = x + 1; y < by_start.size() && ranges[by_start[y]].first <= ranges[i].last; ++y) {
      neighbours[i].push_back(by_start[y]);
      neighbours[by_start[y]].push_back(i);
    }
  }
  for (auto& adj : neighbours) std::sort(adj.begin(), adj.end());
  return neighbours;
}

}  // namespace allocsim
