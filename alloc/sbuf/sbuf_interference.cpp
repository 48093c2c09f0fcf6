#include "alloc/sbuf/sbuf_interference.h"

#include <algorithm>

#include "alloc/interference_edges.h"

namespace allocsim {

uint64_t sbufCapacity(const Arch& arch) { return uint64_t(arch.sbuf_partitions) * arch.sbuf_bytes; }

double sbufDemandPercent(const Arch& arch, const SbufGraph& g) {
  if (g.total_demand == 0) return 100;
  return 100.0 * double(sbufCapacity(arch)) / double(g.total_demand);
}

SbufGraph buildSbufGraph(const Program& p, const Liveness& live) {
  SbufGraph g;
  g.node_of.assign(p.tensors.size(), kNone);
  // Sized first (here and below): the graph is built every spill round, and each doubling was a heap block.
  g.nodes.reserve(size_t(std::count_if(p.tensors.begin(), p.tensors.end(),
                                       [](const Tensor& x) { return x.space == Space::Sbuf; })));
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& x = p.tensors[t];
    if (x.space != Space::Sbuf) continue;
    SbufNode n;
    n.tensor = t;
    n.partitions = x.partitions;
    n.bytes = x.bytesPerPartition();
    n.range = t < live.tensors.size() ? live.tensors[t] : LiveRange{};
    n.fixed = x.placement.has_value();
    g.node_of[t] = uint32_t(g.nodes.size());
    g.nodes.push_back(n);
  }
  std::vector<LiveRange> ranges;
  ranges.reserve(g.nodes.size());
  for (const SbufNode& node : g.nodes) ranges.push_back(node.range);
  g.neighbours = interferenceEdges(ranges);

  // Demand and the max-live lower bound, by a difference array over positions.
  std::vector<int64_t> delta(live.order.positions.size() + 1, 0);
  for (const SbufNode& node : g.nodes) {
    if (node.range.empty() || node.range.last >= live.order.positions.size()) continue;
    g.total_demand += node.area();
    addOverSegments(delta, node.range, int64_t(node.area()));
  }
  int64_t now = 0;
  for (int64_t d : delta) {
    now += d;
    g.max_live = std::max(g.max_live, uint64_t(std::max<int64_t>(now, 0)));
  }
  return g;
}

}  // namespace allocsim
