#include "alloc/sbuf/sbuf_select.h"

#include <stdexcept>

#include "alloc/sbuf/sbuf_footprint.h"
#include "ir/plant.h"

namespace allocsim {

void addTensorBounds(const Arch& arch, const SbufNode& node, std::vector<SbufRect>& taken) {
  if (node.lead > 0) taken.push_back({0, arch.sbuf_partitions, 0, node.lead});
  if (node.trail > 0 && node.trail <= arch.sbuf_bytes)
    taken.push_back({0, arch.sbuf_partitions, arch.sbuf_bytes - node.trail, node.trail});
}

SbufSelection selectSbuf(const Program& p, const SbufGraph& g, const std::vector<uint32_t>& stack, SbufPolicy policy) {
  const size_t n = g.nodes.size();
  SbufSelection s;
  s.at.assign(n, std::nullopt);
  for (uint32_t i = 0; i < n; ++i)
    if (g.nodes[i].fixed) s.at[i] = p.tensors[g.nodes[i].tensor].placement;

  // A node's placed neighbours: scratch of this thread, kept over the selection rounds.
  thread_local std::vector<SbufRect> taken;
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    const uint32_t i = *it;
    if (s.at[i]) throw std::logic_error("SBUF select popped an allocated node");
    const SbufNode& node = g.nodes[i];
    taken.clear();
    for (uint32_t j : g.neighbours[i])
      if (s.at[j]) taken.push_back({s.at[j]->partition, g.nodes[j].partitions, s.at[j]->offset, g.nodes[j].bytes});
    if (i < g.siblings.size())
      for (uint32_t j : g.siblings[i])
        if (s.at[j]) taken.push_back({s.at[j]->partition, g.nodes[j].partitions, s.at[j]->offset, g.nodes[j].bytes});
    addTensorBounds(p.arch, node, taken);
    s.at[i] = placeSbufRect(p.arch, policy, node.partitions, node.bytes, taken);
    if (!s.at[i]) {
      s.failed.push_back(i);  // " cannot allocate "
      s.spill_cost += node.cost;
    }
  }

  scoreSbufSelection(p, g, s);
  return s;
}

void scoreSbufSelection(const Program& p, const SbufGraph& g, SbufSelection& s) {
  thread_local std::vector<SbufRect> used;
  used.clear();
  for (uint32_t i = 0; i < g.nodes.size(); ++i)
    if (s.at[i] && !g.nodes[i].range.empty())
      used.push_back({s.at[i]->partition, g.nodes[i].partitions, s.at[i]->offset,  // up to the tensor's end
                      g.nodes[i].bytes + g.nodes[i].trail});
  s.footprint = sbufFootprintBytes(p.arch, used);
  s.score = s.spill_cost + double(s.footprint) / (double(sbufCapacity(p.arch)) + 1);
  if (ALLOCSIM_PLANT("sbuf_score_prefers_larger_footprint"))
    s.score = s.spill_cost + 1 - double(s.footprint) / (double(sbufCapacity(p.arch)) + 1);
}

}  // namespace allocsim
