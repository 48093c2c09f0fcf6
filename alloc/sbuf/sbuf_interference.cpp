#include "alloc/sbuf/sbuf_interference.h"

#include <algorithm>

#include "alloc/interference_edges.h"
#include "ir/operand_table.h"

namespace allocsim {

namespace {

// Per tensor, the hull [lo, hi) of the bytes per partition its mentions reach when every mention has a constant
// offset; {0, 0} when none does, {1, 0} (empty, lo > hi) when some mention's offset depends on a register.
std::vector<std::pair<uint64_t, uint64_t>> mentionedBytes(const Program& p) {
  std::vector<std::pair<uint64_t, uint64_t>> hull(p.tensors.size(), {0, 0});
  std::vector<bool> seen(p.tensors.size(), false);
  forEachInstruction(p.body, [&](const Instruction& inst) {
    for (const OperandUse* use : operandUses(inst)) {
      const AccessPattern* ap = operandView(inst, use->operand);
      if (!ap || ap->tensor >= p.tensors.size() || p.tensors[ap->tensor].space != Space::Sbuf) continue;
      auto& h = hull[ap->tensor];
      if (seen[ap->tensor] && h.first > h.second) continue;  // already whole
      if (!ap->offset.isConstant() || ap->offset.constant < 0 || ap->count == 0) {
        seen[ap->tensor] = true;
        h = {1, 0};
        continue;
      }
      const uint64_t size = dtypeSize(p.tensors[ap->tensor].dtype);
      const uint64_t lo = uint64_t(ap->offset.constant) * size;
      const uint64_t hi = (uint64_t(ap->offset.constant) + uint64_t(ap->count2 - 1) * ap->step2 + ap->count) * size;
      h = seen[ap->tensor] ? std::pair{std::min(h.first, lo), std::max(h.second, hi)} : std::pair{lo, hi};
      seen[ap->tensor] = true;
    }
  });
  return hull;
}

}  // namespace

std::vector<std::pair<uint64_t, uint64_t>> sbufMentionedBytes(const Program& p) {
  std::vector<std::pair<uint64_t, uint64_t>> out = mentionedBytes(p);
  const uint64_t align = std::max<uint32_t>(p.arch.sbuf_align, 1);
  for (TensorId t = 0; t < out.size(); ++t) {
    const uint64_t whole = p.tensors[t].bytesPerPartition();
    auto& [lo, hi] = out[t];
    // A spill reload keeps its whole rows: spill rounds rewrite its mentions (a definition stored at once becomes
    // the reload's own write) after the round that placed it, so the bytes it reaches are not known when it is placed.
    if (lo < hi && hi <= whole && p.tensors[t].origin != Origin::Reload) lo = lo / align * align;
    else lo = 0, hi = whole;
  }
  return out;
}

uint64_t sbufCapacity(const Arch& arch) { return uint64_t(arch.sbuf_partitions) * arch.sbuf_bytes; }

double sbufDemandPercent(const Arch& arch, const SbufGraph& g) {
  if (g.total_demand == 0) return 100;
  return 100.0 * double(sbufCapacity(arch)) / double(g.total_demand);
}

SbufMaxLive sbufMaxLive(const Program& p, const Liveness& live) {
  std::vector<int64_t> area(live.order.positions.size() + 1, 0), bytes(live.order.positions.size() + 1, 0);
  for (TensorId t = 0; t < p.tensors.size() && t < live.tensors.size(); ++t) {
    const Tensor& x = p.tensors[t];
    const LiveRange& r = live.tensors[t];
    if (x.space != Space::Sbuf || r.empty() || r.last >= live.order.positions.size()) continue;
    addOverSegments(area, r, int64_t(x.totalBytes()));
    addOverSegments(bytes, r, int64_t(x.bytesPerPartition()));
  }
  SbufMaxLive m;
  int64_t a = 0, b = 0;
  for (size_t k = 0; k < area.size(); ++k) {
    m.area = std::max(m.area, uint64_t(std::max<int64_t>(a += area[k], 0)));
    m.per_partition = std::max(m.per_partition, uint64_t(std::max<int64_t>(b += bytes[k], 0)));
  }
  return m;
}

SbufGraph buildSbufGraph(const Program& p, const Liveness& live) {
  SbufGraph g;
  g.node_of.assign(p.tensors.size(), kNone);
  // Sized first (here and below): the graph is built every spill round, and each doubling was a heap block.
  g.nodes.reserve(size_t(std::count_if(p.tensors.begin(), p.tensors.end(),
                                       [](const Tensor& x) { return x.space == Space::Sbuf; })));
  const std::vector<std::pair<uint64_t, uint64_t>> mentioned = sbufMentionedBytes(p);
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& x = p.tensors[t];
    if (x.space != Space::Sbuf) continue;
    SbufNode n;
    n.tensor = t;
    n.partitions = x.partitions;
    n.bytes = x.bytesPerPartition();
    n.range = t < live.tensors.size() ? live.tensors[t] : LiveRange{};
    n.fixed = x.placement.has_value();
    // The rectangle: the bytes the in-place checker also takes the tensor to hold (sbufMentionedBytes). Fixed
    // tensors keep theirs whole.
    if (!n.fixed) {
      const auto [lo, hi] = mentioned[t];
      n.lead = lo;
      n.trail = n.bytes - hi;
      n.bytes = hi - lo;
    }
    g.node_of[t] = uint32_t(g.nodes.size());
    g.nodes.push_back(n);
  }
  // The buffers of one tile array: nodes whose tensors copy the same tensor (or are it), each holding part of it.
  {
    std::vector<std::vector<uint32_t>> parts_of(p.tensors.size());
    for (uint32_t i = 0; i < g.nodes.size(); ++i) {
      const SbufNode& n = g.nodes[i];
      if (n.lead == 0 && n.trail == 0) continue;
      const Tensor& x = p.tensors[n.tensor];
      const TensorId root = x.origin == Origin::Copy && x.copy_of < p.tensors.size() ? x.copy_of : n.tensor;
      parts_of[root].push_back(i);
    }
    for (const std::vector<uint32_t>& parts : parts_of)
      for (uint32_t i : parts)
        for (uint32_t j : parts)
          if (g.nodes[i].lead != g.nodes[j].lead || g.nodes[i].bytes != g.nodes[j].bytes) {
            if (g.siblings.empty()) g.siblings.resize(g.nodes.size());
            g.siblings[i].push_back(j);
          }
  }
  std::vector<LiveRange> ranges;
  ranges.reserve(g.nodes.size());
  for (const SbufNode& node : g.nodes) ranges.push_back(node.range);
  g.neighbours = interferenceEdges(ranges);

  // Demand and the max-live lower bound, by a difference array over positions.
  std::vector<int64_t> delta(live.order.positions.size() + 1, 0);
  for (const SbufNode& node : g.nodes) {
    if (node.range.empty() || node.range.last >= live.order.positions.size()) continue;
    g.total_demand += node.tensorArea();
    addOverSegments(delta, node.range, int64_t(node.tensorArea()));
  }
  int64_t now = 0;
  for (int64_t d : delta) {
    now += d;
    g.max_live = std::max(g.max_live, uint64_t(std::max<int64_t>(now, 0)));
  }
  return g;
}

}  // namespace allocsim
