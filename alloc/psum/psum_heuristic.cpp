#include "alloc/psum/psum_heuristic.h"

#include <tuple>

namespace allocsim {

const char* psumHeuristicName(PsumHeuristic h) {
  switch (h) {
    case PsumHeuristic::TensorOrder: return "tensor-order";
    case PsumHeuristic::EarliestStart: return "earliest-start";
    case PsumHeuristic::FewestBanks: return "fewest-banks";
    case PsumHeuristic::LatestStart: return "latest-start";
  }
  return "?";
}

std::optional<uint32_t> psumHeuristicIndex(const std::string& name) {
  for (uint32_t h = 0; h < kPsumHeuristicCount; ++h)
    if (name == psumHeuristicName(PsumHeuristic(h))) return h;
  return std::nullopt;
}

bool psumBefore(const PsumGraph& g, PsumHeuristic h, uint32_t a, uint32_t b) {
  const PsumNode& x = g.nodes[a];
  const PsumNode& y = g.nodes[b];
  // An empty range sorts as starting at position 0.
  uint64_t xs = x.range.empty() ? 0 : x.range.first, ys = y.range.empty() ? 0 : y.range.first;
  switch (h) {
    case PsumHeuristic::TensorOrder: return a < b;
    case PsumHeuristic::EarliestStart: return std::tie(xs, a) < std::tie(ys, b);
    case PsumHeuristic::FewestBanks: return std::tie(x.banks, xs, a) < std::tie(y.banks, ys, b);
    case PsumHeuristic::LatestStart: return std::make_tuple(-int64_t(xs), a) < std::make_tuple(-int64_t(ys), b);
  }
  return a < b;
}

}  // namespace allocsim
