#include "alloc/sbuf/sbuf_simplify.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include "alloc/sbuf/sbuf_degree.h"
#include "alloc/spill_cost.h"

namespace allocsim {
namespace {

enum class List : uint8_t { Lo, Hi, Inf, Removed };
using Ranked = std::pair<uint32_t, uint32_t>;
using Metered = std::tuple<double, uint32_t, uint32_t>;

struct Scratch {
  std::vector<int64_t> k;
  std::vector<uint32_t> degree;
  std::vector<List> list;
  std::vector<Ranked> lo, inf;
  std::vector<Metered> hi;
};

}  // namespace

std::vector<uint32_t> simplifySbuf(const Arch& arch, const SbufGraph& g, SbufOrder order, SbufWorklistSizes* sizes) {
  const uint32_t n = uint32_t(g.nodes.size());
  const std::vector<uint32_t> rank = sbufColorRanks(g, order);
  // The worklists are binary heaps with lazy deletion, so that simplify is O(E + N log N) (no scan of the hi set
  // per pick, no reordering per edge):
  //   lo, inf: (rank, node), highest rank first (colored last); a node leaves inf only for lo, so an inf entry
  //            whose node is no longer inf is skipped;
  //   hi:      (metric, ~rank, node), lowest metric first, ties the later in color order. A node's metric only
  //            grows (its degree only falls), so its entry holds a lower bound of it: an entry popped with a stale
  //            metric is pushed again with the current one, and an entry popped with the current metric is the true
  //            minimum — the pick the scan of every hi node made.
  // The heaps and the per-node arrays are this thread's scratch, kept from one call to the next (simplify runs for
  // every heuristic's every round): std::push_heap / pop_heap on them order exactly as std::priority_queue did.
  thread_local Scratch scratch;
  Scratch& w = scratch;
  w.k.assign(n, 0);
  w.degree.assign(n, 0);
  w.list.assign(n, List::Removed);
  w.lo.clear();
  w.inf.clear();
  w.hi.clear();
  std::vector<int64_t>& k = w.k;
  std::vector<uint32_t>& degree = w.degree;
  std::vector<List>& list = w.list;
  auto metric = [&](uint32_t i) {
    const double area = double(g.nodes[i].area() ? g.nodes[i].area() : 1);
    return g.nodes[i].cost / (area * double(degree[i] ? degree[i] : 1));
  };
  SbufWorklistSizes counts;
  for (uint32_t i = 0; i < n; ++i) {
    if (g.nodes[i].fixed) continue;
    k[i] = sbufFreePlacements(arch, g, i);
    degree[i] = uint32_t(g.neighbours[i].size());
    const List l = k[i] > 0 ? List::Lo : isInfiniteCost(g.nodes[i].cost) ? List::Inf : List::Hi;
    list[i] = l;
    ++(l == List::Lo ? counts.lo : l == List::Hi ? counts.hi : counts.inf);
  }
  const std::less<Ranked> by_rank;
  const std::greater<Metered> by_metric;  // a min-heap
  uint32_t hi_count = 0;
  auto file = [&](uint32_t i, List l) {
    list[i] = l;
    if (l == List::Lo) {
      w.lo.push_back({rank[i], i});
      std::push_heap(w.lo.begin(), w.lo.end(), by_rank);
    } else if (l == List::Inf) {
      w.inf.push_back({rank[i], i});
      std::push_heap(w.inf.begin(), w.inf.end(), by_rank);
    } else {
      w.hi.push_back({metric(i), ~rank[i], i});
      std::push_heap(w.hi.begin(), w.hi.end(), by_metric);
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
    if (!w.lo.empty()) {
      pick = w.lo.front().second;
      std::pop_heap(w.lo.begin(), w.lo.end(), by_rank);
      w.lo.pop_back();
    } else if (hi_count > 0) {
      while (pick == kNone) {
        const auto [m, r, i] = w.hi.front();
        std::pop_heap(w.hi.begin(), w.hi.end(), by_metric);
        w.hi.pop_back();
        if (list[i] != List::Hi) continue;  // promoted to lo since
        if (const double now = metric(i); now != m) {
          w.hi.push_back({now, r, i});
          std::push_heap(w.hi.begin(), w.hi.end(), by_metric);
          continue;
        }
        pick = i;
      }
      --hi_count;
    } else {
      while (!w.inf.empty() && pick == kNone) {
        if (list[w.inf.front().second] == List::Inf) pick = w.inf.front().second;
        std::pop_heap(w.inf.begin(), w.inf.end(), by_rank);
        w.inf.pop_back();
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
  const std::vector<uint32_t> rank = sbufColorRanks(g, order);
  std::vector<uint32_t> by_rank(rank.size());
  for (uint32_t i = 0; i < rank.size(); ++i) by_rank[rank[i]] = i;
  std::vector<uint32_t> stack;
  stack.reserve(by_rank.size());
  for (auto it = by_rank.rbegin(); it != by_rank.rend(); ++it)  // pushed last = popped, so colored, first
    if (!g.nodes[*it].fixed) stack.push_back(*it);
  return stack;
}

}  // namespace allocsim
