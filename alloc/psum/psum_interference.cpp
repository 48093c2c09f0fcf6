#include "alloc/psum/psum_interference.h"

#include <algorithm>
#include <utility>

#include "alloc/psum/psum_bank_model.h"

namespace allocsim {
namespace {

void addEdges(PsumGraph& g) {
  const size_t n = g.nodes.size();
  g.neighbours.assign(n, {});
  std::vector<uint32_t> by_start;
  for (uint32_t i = 0; i < n; ++i)
    if (!g.nodes[i].range.empty()) by_start.push_back(i);
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](uint32_t a, uint32_t b) { return g.nodes[a].range.first < g.nodes[b].range.first; });
  // The currently-live set of 003's sweep: entering a node's first position adds it, passing its last removes it.
  std::vector<uint32_t> live;
  for (uint32_t i : by_start) {
    const LiveRange& r = g.nodes[i].range;
    std::erase_if(live, [&](uint32_t j) { return g.nodes[j].range.last < r.first; });
    for (uint32_t j : live) {
      g.neighbours[i].push_back(j);
      g.neighbours[j].push_back(i);
    }
    live.push_back(i);
  }
  for (auto& list : g.neighbours) std::sort(list.begin(), list.end());
}

uint64_t maxConcurrent(const PsumGraph& g) {
  std::vector<std::pair<uint64_t, int64_t>> events;  // (position, +banks at first / -banks after last)
  for (const PsumNode& node : g.nodes) {
    if (node.range.empty()) continue;
    events.push_back({node.range.first, int64_t(node.banks)});
    events.push_back({uint64_t(node.range.last) + 1, -int64_t(node.banks)});
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
  addEdges(g);
  g.max_concurrent = maxConcurrent(g);
  return g;
}

double psumDemandPercent(const Arch& arch, const PsumGraph& g) {
  if (g.total_demand == 0) return 100.0;
  return 100.0 * double(arch.psum_banks) / double(g.total_demand);
}

}  // namespace allocsim
