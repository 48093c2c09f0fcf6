#include "alloc/psum/psum_simplify.h"

#include <algorithm>

#include "alloc/psum/psum_costs.h"

namespace allocsim {

int64_t psumFreeBanks(const PsumGraph& g, uint32_t psum_banks, uint32_t i) {
  int64_t v = int64_t(psum_banks) - int64_t(g.nodes[i].banks);
  for (uint32_t j : g.neighbours[i]) v -= int64_t(g.nodes[j].banks);
  return v;
}

std::vector<uint32_t> simplifyPsum(const PsumGraph& g, uint32_t psum_banks, PsumHeuristic h,
                                   PsumWorklistSizes* sizes) {
  enum class List : uint8_t { Lo, Hi, Inf, Removed };
  const uint32_t n = uint32_t(g.nodes.size());
  std::vector<int64_t> free(n);
  std::vector<uint32_t> degree(n);
  std::vector<List> list(n, List::Removed);
  uint32_t left = 0;
  PsumWorklistSizes counts;
  for (uint32_t i = 0; i < n; ++i) {
    if (g.nodes[i].pinned) continue;
    free[i] = psumFreeBanks(g, psum_banks, i);
    degree[i] = uint32_t(g.neighbours[i].size());
    list[i] = free[i] >= 0 ? List::Lo : isInfiniteCost(g.nodes[i].cost) ? List::Inf : List::Hi;
    ++(list[i] == List::Lo ? counts.lo : list[i] == List::Hi ? counts.hi : counts.inf);
    ++left;
  }
  if (sizes) *sizes = counts;

  // Hi choice: lowest cost/degree (degree counted among the nodes still present), ties by the heuristic.
  auto cheaper = [&](uint32_t a, uint32_t b) {
    double ka = g.nodes[a].cost / double(degree[a] ? degree[a] : 1);
    double kb = g.nodes[b].cost / double(degree[b] ? degree[b] : 1);
    if (ka != kb) return ka < kb;
    return psumBefore(g, h, a, b);
  };
  std::vector<uint32_t> stack;
  stack.reserve(left);
  while (left > 0) {
    uint32_t pick = kNone;
    for (List want : {List::Lo, List::Hi, List::Inf}) {
      for (uint32_t i = 0; i < n; ++i) {
        if (list[i] != want) continue;
        if (pick == kNone || (want == List::Hi ? cheaper(i, pick) : psumBefore(g, h, i, pick))) pick = i;
      }
      if (pick != kNone) break;
    }
    stack.push_back(pick);
    list[pick] = List::Removed;
    --left;
    for (uint32_t j : g.neighbours[pick]) {
      if (list[j] == List::Removed) continue;
      free[j] += g.nodes[pick].banks;
      --degree[j];
      if (free[j] >= 0) list[j] = List::Lo;  // neighbor push to low
    }
  }
  return stack;
}

std::vector<uint32_t> plainPsumStack(const PsumGraph& g, PsumHeuristic h) {
  std::vector<uint32_t> stack;
  for (uint32_t i = 0; i < g.nodes.size(); ++i)
    if (!g.nodes[i].pinned) stack.push_back(i);
  std::sort(stack.begin(), stack.end(), [&](uint32_t a, uint32_t b) { return psumBefore(g, h, a, b); });
  return stack;
}

}  // namespace allocsim
