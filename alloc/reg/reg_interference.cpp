#include "alloc/reg/reg_interference.h"

#include <algorithm>
#include <numeric>

namespace allocsim {

RegGraph buildRegisterInterference(const std::vector<LiveRange>& ranges) {
  RegGraph g;
  g.adj.resize(ranges.size());
  // Sweep in order of range start: each register meets the earlier-starting ones still live at its start.
  std::vector<RegId> order;
  for (RegId r = 0; r < ranges.size(); ++r)
    if (!ranges[r].empty()) order.push_back(r);
  std::stable_sort(order.begin(), order.end(), [&](RegId a, RegId b) { return ranges[a].first < ranges[b].first; });
  std::vector<RegId> active;
  for (RegId r : order) {
    std::erase_if(active, [&](RegId u) { return ranges[u].last < ranges[r].first; });
    for (RegId u : active) {
      g.adj[r].push_back(u);
      g.adj[u].push_back(r);
      ++g.edges;
    }
    active.push_back(r);
  }
  for (auto& a : g.adj) std::sort(a.begin(), a.end());
  return g;
}

}  // namespace allocsim
