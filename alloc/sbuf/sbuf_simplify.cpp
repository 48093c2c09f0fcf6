#include "alloc/sbuf/sbuf_simplify.h"

#include <set>
#include <tuple>

#include "alloc/sbuf/sbuf_degree.h"
#include "alloc/spill_cost.h"

namespace allocsim {

std::vector<uint32_t> simplifySbuf(const Arch& arch, const SbufGraph& g, SbufOrder order, SbufWorklistSizes* sizes) {
  enum class List : uint8_t { Lo, Hi, Inf, Removed };
  const uint32_t n = uint32_t(g.nodes.size());
  const std::vector<uint32_t> rank = sbufColourRanks(g, order);
  std::vector<int64_t> k(n, 0);
  std::vector<uint32_t> degree(n, 0);
  std::vector<List> list(n, List::Removed);
  // Worklists keyed by colour rank; lo and inf are drained from the highest rank (coloured last).
  std::set<std::pair<uint32_t, uint32_t>> lo, hi, inf;
  auto file = [&](uint32_t i, List l) {
    list[i] = l;
    (l == List::Lo ? lo : l == List::Hi ? hi : inf).insert({rank[i], i});
  };
  SbufWorklistSizes counts;
  for (uint32_t i = 0; i < n; ++i) {
    if (g.nodes[i].fixed) continue;
    k[i] = sbufFreePlacements(arch, g, i);
    degree[i] = uint32_t(g.neighbours[i].size());
    const List l = k[i] > 0 ? List::Lo : isInfiniteCost(g.nodes[i].cost) ? List::Inf : List::Hi;
    file(i, l);
    ++(l == List::Lo ? counts.lo : l == List::Hi ? counts.hi : counts.inf);
  }
  if (sizes) *sizes = counts;

  auto metric = [&](uint32_t i) {
    const double area = double(g.nodes[i].area() ? g.nodes[i].area() : 1);
    return g.nodes[i].cost / (area * double(degree[i] ? degree[i] : 1));
  };
  // hi ordered by the spill metric (lowest first; ties: the later in colour order first), kept current as
  // neighbours leave, so a pick is O(log N) instead of a scan of every hi node: O((N + E) log N) per simplify.
  std::set<std::tuple<double, uint32_t, uint32_t>> hi_by_metric;  // (metric, ~rank, node)
  std::vector<double> filed_metric(n, 0);
  auto fileHi = [&](uint32_t i) {
    filed_metric[i] = metric(i);
    hi_by_metric.insert({filed_metric[i], ~rank[i], i});
  };
  auto unfileHi = [&](uint32_t i) { hi_by_metric.erase({filed_metric[i], ~rank[i], i}); };
  for (const auto& [r, i] : hi) fileHi(i);
  std::vector<uint32_t> stack;
  stack.reserve(lo.size() + hi.size() + inf.size());
  while (!lo.empty() || !hi.empty() || !inf.empty()) {
    uint32_t pick;
    if (!lo.empty()) {
      pick = std::prev(lo.end())->second;
      lo.erase(std::prev(lo.end()));
    } else if (!hi.empty()) {
      pick = std::get<2>(*hi_by_metric.begin());
      hi_by_metric.erase(hi_by_metric.begin());
      hi.erase({rank[pick], pick});
    } else {
      pick = std::prev(inf.end())->second;
      inf.erase(std::prev(inf.end()));
    }
    stack.push_back(pick);
    list[pick] = List::Removed;
    for (uint32_t j : g.neighbours[pick]) {
      if (list[j] == List::Removed) continue;
      k[j] += int64_t(sbufImpact(arch, g.nodes[j], g.nodes[pick]));
      if (list[j] == List::Hi) unfileHi(j);
      --degree[j];
      if (k[j] > 0 && list[j] != List::Lo) {  // neighbor push to low
        (list[j] == List::Hi ? hi : inf).erase({rank[j], j});
        file(j, List::Lo);
      } else if (list[j] == List::Hi) {
        fileHi(j);  // its metric rose with its degree's fall
      }
    }
  }
  return stack;
}

std::vector<uint32_t> plainSbufStack(const SbufGraph& g, SbufOrder order) {
  const std::vector<uint32_t> rank = sbufColourRanks(g, order);
  std::vector<uint32_t> by_rank(rank.size());
  for (uint32_t i = 0; i < rank.size(); ++i) by_rank[rank[i]] = i;
  std::vector<uint32_t> stack;
  stack.reserve(by_rank.size());
  for (auto it = by_rank.rbegin(); it != by_rank.rend(); ++it)  // pushed last = popped, so coloured, first
    if (!g.nodes[*it].fixed) stack.push_back(*it);
  return stack;
}

}  // namespace allocsim
