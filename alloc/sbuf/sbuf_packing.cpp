#include "alloc/sbuf/sbuf_packing.h"

#include <algorithm>
#include <cmath>

#include "alloc/exact/exact_search.h"

namespace allocsim {

std::optional<std::vector<Placement>> packSbuf(const Program& p, const SbufGraph& g, const SbufPackingLimits& limits) {
  const Arch& a = p.arch;
  const uint32_t quantum = std::max<uint32_t>(a.sbuf_partition_quantum, 1);
  ExactProblem problem;
  problem.rows = a.sbuf_partitions;
  std::vector<uint32_t> node_of_item;
  problem.items.reserve(g.nodes.size());
  node_of_item.reserve(g.nodes.size());
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const SbufNode& n = g.nodes[i];
    if (n.range.empty()) continue;
    ExactItem it;
    it.first = n.range.first;
    it.last = n.range.last;
    it.size = n.tensorBytes();  // whole tensors: the packing's offsets are the tensors' placements
    it.align = std::max<uint32_t>(a.sbuf_align, 1);
    it.rows = n.partitions;
    if (n.fixed) {
      const Placement& at = *p.tensors[n.tensor].placement;
      it.starts = {at.partition};
      it.fixed_offset = at.offset;
    } else {
      it.starts.clear();
      it.starts.reserve(a.sbuf_partitions / quantum + 1);
      for (uint32_t s = 0; s + it.rows <= a.sbuf_partitions; s += quantum) it.starts.push_back(s);
      if (it.starts.empty()) return std::nullopt;  // taller than SBUF: requireSbufTensorsFit reports it
    }
    problem.items.push_back(std::move(it));
    node_of_item.push_back(i);
  }
  if (problem.items.empty() || problem.items.size() > limits.max_tensors) return std::nullopt;
  const uint64_t lower = exactLowerBound(problem);
  if (lower > a.sbuf_bytes) return std::nullopt;  // no packing is ever within SBUF: the ladder would be wasted
  ExactSearchOptions so;
  so.time_limit_s = 1e9;  // the node budget decides, not the clock
  so.node_budget = limits.nodes_per_tensor * problem.items.size();
  ExactSolver solver(problem);  // the ladder's targets share everything but the capacity
  for (double factor : limits.targets) {
    ExactResult r = solver.solve(uint64_t(std::ceil(double(lower) * factor)), so);
    if (r.status != ExactStatus::Fit) continue;  // proved impossible or not found within the budget: next target
    if (r.height > a.sbuf_bytes) return std::nullopt;
    std::vector<Placement> at(g.nodes.size());  // never-live nodes: the corner, they meet nobody
    for (uint32_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].fixed) at[i] = *p.tensors[g.nodes[i].tensor].placement;
      else at[i].offset = g.nodes[i].lead;
    for (size_t k = 0; k < node_of_item.size(); ++k) {
      at[node_of_item[k]].partition = r.placements[k].row;
      at[node_of_item[k]].offset = r.placements[k].offset + g.nodes[node_of_item[k]].lead;  // the rectangle's
    }
    return at;
  }
  return std::nullopt;
}

}  // namespace allocsim
