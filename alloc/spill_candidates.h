// What a colorer spills after a selection that left nodes unplaced. Shared by the PSUM and SBUF colorers, which
// run one Chaitin–Briggs skeleton (as in the production allocator) and differ here only in what a node's size is
// (banks for PSUM, partitions x bytes for SBUF).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "alloc/spill_cost.h"
#include "ir/program.h"

namespace allocsim {

// The spillable nodes among `failed`; if all of them are un-spillable, for each the cheapest spillable
// neighbour (lowest cost per unit of size_of(node), a double) — spilling it frees its room around the
// un-spillable node for the next round. Empty when nothing spillable is involved: spilling cannot relieve the
// pressure. Ascending node order, no repeats. `Graph` has `nodes` (each with a `cost`) and `neighbours`.
template <class Graph, class SizeOf>
std::vector<uint32_t> spillCandidates(const Graph& g, const std::vector<uint32_t>& failed, SizeOf size_of) {
  std::vector<uint32_t> out;
  for (uint32_t i : failed)
    if (!isInfiniteCost(g.nodes[i].cost)) out.push_back(i);
  if (out.empty()) {
    for (uint32_t i : failed) {
      uint32_t pick = kNone;
      for (uint32_t j : g.neighbours[i]) {
        const auto& nj = g.nodes[j];
        const double size = size_of(nj);
        if (isInfiniteCost(nj.cost) || size == 0) continue;
        if (pick == kNone || nj.cost / size < g.nodes[pick].cost / size_of(g.nodes[pick])) pick = j;
      }
      if (pick != kNone) out.push_back(pick);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace allocsim
