#include "alloc/sbuf/sbuf_heuristic.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace allocsim {

const char* sbufOrderName(SbufOrder o) {
  switch (o) {
    case SbufOrder::EarliestStart: return "earliest-start";
    case SbufOrder::LargestFirst: return "largest-first";
    case SbufOrder::LatestStart: return "latest-start";
    case SbufOrder::TensorOrder: return "tensor-order";
  }
  return "?";
}

namespace {

constexpr SbufHeuristic kSweep[] = {
    {SbufOrder::LargestFirst, SbufPolicy::LowestOffset},
    {SbufOrder::EarliestStart, SbufPolicy::FirstFit},
    {SbufOrder::EarliestStart, SbufPolicy::BestFit},
    {SbufOrder::EarliestStart, SbufPolicy::UpperLeft},
    {SbufOrder::LargestFirst, SbufPolicy::FirstFit},
    {SbufOrder::LargestFirst, SbufPolicy::BestFit},
    {SbufOrder::LargestFirst, SbufPolicy::UpperLeft},
    {SbufOrder::LatestStart, SbufPolicy::FirstFit},
    {SbufOrder::LatestStart, SbufPolicy::BestFit},
    {SbufOrder::LatestStart, SbufPolicy::UpperLeft},
    {SbufOrder::TensorOrder, SbufPolicy::FirstFit},
    {SbufOrder::TensorOrder, SbufPolicy::BestFit},
    {SbufOrder::TensorOrder, SbufPolicy::UpperLeft},
    {SbufOrder::EarliestStart, SbufPolicy::LowestOffset},
    {SbufOrder::LatestStart, SbufPolicy::LowestOffset},
    {SbufOrder::TensorOrder, SbufPolicy::LowestOffset},
};
static_assert(sizeof(kSweep) / sizeof(kSweep[0]) == kSbufHeuristicCount, "every order x policy pair once");

}  // namespace

SbufHeuristic sbufHeuristic(uint32_t k) { return kSweep[k % kSbufHeuristicCount]; }

std::string sbufHeuristicName(const SbufHeuristic& h) {
  return std::string(sbufOrderName(h.order)) + "/" + sbufPolicyName(h.policy);
}

std::optional<uint32_t> sbufHeuristicIndex(const std::string& name) {
  for (uint32_t k = 0; k < kSbufHeuristicCount; ++k)
    if (sbufHeuristicName(sbufHeuristic(k)) == name) return k;
  return std::nullopt;
}

std::vector<uint32_t> sbufColorRanks(const SbufGraph& g, SbufOrder o) {
  const uint32_t n = uint32_t(g.nodes.size());
  // A never-live node sorts last in the start orders: it interferes with nothing, wherever it goes.
  auto start = [&](uint32_t i) { return g.nodes[i].range.empty() ? uint64_t(UINT64_MAX) : g.nodes[i].range.first; };
  auto key = [&](uint32_t i) {
    switch (o) {
      case SbufOrder::EarliestStart: return std::make_tuple(start(i), uint64_t(0), i);
      case SbufOrder::LargestFirst: return std::make_tuple(UINT64_MAX - g.nodes[i].area(), start(i), i);
      case SbufOrder::LatestStart:
        return std::make_tuple(g.nodes[i].range.empty() ? UINT64_MAX : UINT64_MAX - 1 - start(i), uint64_t(0), i);
      case SbufOrder::TensorOrder: break;
    }
    return std::make_tuple(uint64_t(i), uint64_t(0), i);
  };
  thread_local std::vector<uint32_t> order;  // scratch of this thread: ranks are made for every heuristic and round
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  std::vector<uint32_t> rank(n);
  for (uint32_t r = 0; r < n; ++r) rank[order[r]] = r;
  return rank;
}

}  // namespace allocsim
