#include "alloc/psum/psum_simplify.h"

#include <algorithm>
#include <set>

#include "alloc/psum/psum_costs.h"
#include "ir/plant.h"

namespace allocsim {

int64_t psumFreeBanks(const PsumGraph& g, uint32_t psum_banks, uint32_t i) {
  int64_t v = int64_t(psum_banks) - int64_t(g.nodes[i].banks);
  const bool as_one = ALLOCSIM_PLANT("psum_neighbour_banks_as_one");
  for (uint32_t j : g.neighbours[i]) v -= as_one ? 1 : int64_t(g.nodes[j].banks);
  return v;
}

std::vector<uint32_t> simplifyPsum(const PsumGraph& g, uint32_t psum_banks, PsumHeuristic h,
                                   PsumWorklistSizes* sizes) {
  enum class List : uint8_t { Lo, Hi, Inf, Removed };
  const uint32_t n = uint32_t(g.nodes.size());
  std::vector<int64_t> free(n);
  std::vector<uint32_t> degree(n);
  std::vector<List> list(n, List::Removed);
  // Hi choice: lowest cost/degree (degree counted among the nodes still present), ties by the heuristic. Each
  // worklist is an ordered set, hi keyed by the metric as last filed, so a pick is O(log N) rather than a scan of
  // every node, and simplify is O((N + E) log N).
  std::vector<double> metric(n, 0);
  auto before = [&](uint32_t a, uint32_t b) { return psumBefore(g, h, a, b); };
  auto cheaper = [&](uint32_t a, uint32_t b) {
    if (metric[a] != metric[b]) return metric[a] < metric[b];
    return psumBefore(g, h, a, b);
  };
  std::set<uint32_t, decltype(before)> lo(before), inf(before);
  std::set<uint32_t, decltype(cheaper)> hi(cheaper);
  auto file = [&](uint32_t i, List l) {
    list[i] = l;
    if (l == List::Hi) {
      metric[i] = g.nodes[i].cost / double(degree[i] ? degree[i] : 1);
      hi.insert(i);
    } else {
      (l == List::Lo ? lo : inf).insert(i);
    }
  };
  auto unfile = [&](uint32_t i) {
    if (list[i] == List::Hi) hi.erase(i);
    else if (list[i] != List::Removed) (list[i] == List::Lo ? lo : inf).erase(i);
    list[i] = List::Removed;
  };
  PsumWorklistSizes counts;
  for (uint32_t i = 0; i < n; ++i) {
    if (g.nodes[i].pinned) continue;
    free[i] = psumFreeBanks(g, psum_banks, i);
    degree[i] = uint32_t(g.neighbours[i].size());
    const List l = free[i] >= 0 ? List::Lo : isInfiniteCost(g.nodes[i].cost) ? List::Inf : List::Hi;
    ++(l == List::Lo ? counts.lo : l == List::Hi ? counts.hi : counts.inf);
    file(i, l);
  }
  if (sizes) *sizes = counts;

  std::vector<uint32_t> stack;
  stack.reserve(lo.size() + hi.size() + inf.size());
  while (!lo.empty() || !hi.empty() || !inf.empty()) {
    const uint32_t pick = !lo.empty() ? *lo.begin() : !hi.empty() ? *hi.begin() : *inf.begin();
    unfile(pick);
    stack.push_back(pick);
    for (uint32_t j : g.neighbours[pick]) {
      if (list[j] == List::Removed) continue;
      const List was = list[j];
      unfile(j);
      free[j] += g.nodes[pick].banks;
      --degree[j];
      file(j, free[j] >= 0 ? List::Lo : was);  // neighbor push to low
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
