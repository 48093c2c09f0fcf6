#include "alloc/sbuf/sbuf_simplify.h"

#include <functional>
#include <queue>
#include <tuple>
#include <utility>

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
  auto metric = [&](uint32_t i) {
    const double area = double(g.nodes[i].area() ? g.nodes[i].area() : 1);
    return g.nodes[i].cost / (area * double(degree[i] ? degree[i] : 1));
  };
  // The worklists are binary heaps with lazy deletion, so that simplify is O(E + N log N) (no scan of the hi set
  // per pick, no reordering per edge):
  //   lo, inf: (rank, node), highest rank first (coloured last); a node leaves inf only for lo, so an inf entry
  //            whose node is no longer inf is skipped;
  //   hi:      (metric, ~rank, node), lowest metric first, ties the later in colour order. A node's metric only
  //            grows (its degree only falls), so its entry holds a lower bound of it: an entry popped with a stale
  //            metric is pushed again with the current one, and an entry popped with the current metric is the true
  //            minimum — the pick the scan of every hi node made.
  using Ranked = std::pair<uint32_t, uint32_t>;
  using Metered = std::tuple<double, uint32_t, uint32_t>;
  // Each node enters lo at most once; hi holds a node's entry plus stale ones pushed again. The nodes are classified
  // first so that lo and hi are reserved (one allocation each, none for an empty one) instead of doubling as they
  // fill; they are then filed in the same order as before.
  SbufWorklistSizes counts;
  for (uint32_t i = 0; i < n; ++i) {
    if (g.nodes[i].fixed) continue;
    k[i] = sbufFreePlacements(arch, g, i);
    degree[i] = uint32_t(g.neighbours[i].size());
    const List l = k[i] > 0 ? List::Lo : isInfiniteCost(g.nodes[i].cost) ? List::Inf : List::Hi;
    list[i] = l;
    ++(l == List::Lo ? counts.lo : l == List::Hi ? counts.hi : counts.inf);
  }
  std::vector<Ranked> lo_items;
  std::vector<Metered> hi_items;
  lo_items.reserve(counts.lo + counts.hi + counts.inf);
  hi_items.reserve(counts.hi);
  std::priority_queue<Ranked> lo(std::less<Ranked>(), std::move(lo_items)), inf;
  std::priority_queue<Metered, std::vector<Metered>, std::greater<Metered>> hi(std::greater<Metered>(), std::move(hi_items));
  uint32_t hi_count = 0;
  auto file = [&](uint32_t i, List l) {
    list[i] = l;
    if (l == List::Lo) lo.push({rank[i], i});
    else if (l == List::Inf) inf.push({rank[i], i});
    else {
      hi.push({metric(i), ~rank[i], i});
      ++hi_count;
    }
  };
  for (uint32_t i = 0; i < n; ++i)
    if (!g.nodes[i].fixed) file(i, list[i]);
  if (sizes) *sizes = counts;

  std::vector<uint32_t> stack;
  stack.reserve(counts.lo + counts.hi + counts.inf);
  for (;;) {
    uint32_t pick = kNone;
    if (!lo.empty()) {
      pick = lo.top().second;
      lo.pop();
    } else if (hi_count > 0) {
      while (pick == kNone) {
        const auto [m, r, i] = hi.top();
        hi.pop();
        if (list[i] != List::Hi) continue;  // promoted to lo since
        if (const double now = metric(i); now != m) {
          hi.push({now, r, i});
          continue;
        }
        pick = i;
      }
      --hi_count;
    } else {
      while (!inf.empty() && pick == kNone) {
        if (list[inf.top().second] == List::Inf) pick = inf.top().second;
        inf.pop();
      }
      if (pick == kNone) break;
    }
    stack.push_back(pick);
    list[pick] = List::Removed;
    for (uint32_t j : g.neighbours[pick]) {
      if (list[j] == List::Removed) continue;
      k[j] += int64_t(sbufImpact(arch, g.nodes[j], g.nodes[pick]));
      --degree[j];
      if (k[j] > 0 && list[j] != List::Lo) {  // neighbor push to low
        if (list[j] == List::Hi) --hi_count;
        file(j, List::Lo);
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
