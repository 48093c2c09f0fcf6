#include "alloc/psum/psum_interference.h"

#include <algorithm>
#include <utility>

#include "alloc/interference_edges.h"
#include "alloc/psum/psum_bank_model.h"

namespace allocsim {
namespace {

uint64_t maxConcurrent(const PsumGraph& g) {
  std::vector<std::pair<uint64_t, int64_t>> events;  // (position, +banks at first / -banks after last)
  for (const PsumNode& node : g.nodes) {
    if (node.range.empty()) continue;
    for (size_t i = 0; i < node.range.segmentCount(); ++i) {
      const Segment s = node.range.segment(i);
      events.push_back({s.first, int64_t(node.banks)});
      events.push_back({uint64_t(s.last) + 1, -int64_t(node.banks)});
    }
  }
  std::sort(events.begin(), events.end());  // at one position, ends (negative) come before starts
  int64_t now = 0, best = 0;
  for (const auto& e : events) best = std::max(best, now += e.second);
  return uint64_t(best);
}

}  // namespace

PsumGraph buildPsumGraph(const Program& p, const Liveness& live) {
  PsumGraph g;
  g.node_of.assign(p.tensors.size(), kNone);
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& tensor = p.tensors[t];
    if (tensor.space != Space::Psum) continue;
    requirePsumFits(p.arch, tensor);
    PsumNode node;
    node.tensor = t;
    node.banks = uint32_t(psumBanksOf(p.arch, tensor));
    node.range = t < live.tensors.size() ? live.tensors[t] : LiveRange{};
    node.pinned = tensor.pinned && tensor.placement.has_value();
    g.node_of[t] = uint32_t(g.nodes.size());
    g.total_demand += node.banks;
    g.nodes.push_back(node);
  }
  std::vector<LiveRange> ranges;
  for (const PsumNode& node : g.nodes) ranges.push_back(node.range);
  g.neighbours = interferenceEdges(ranges);
  g.max_concurrent = maxConcurrent(g);
  return g;
}

double psumDemandPercent(const Arch& arch, const PsumGraph& g) {
  if (g.total_demand == 0) return 100.0;
  return 100.0 * double(arch.psum_banks) / double(g.total_demand);
}

}  // namespace allocsim
