// As in the production allocator, build: the PSUM interference graph. Nodes are the PSUM tensors (the production
// candidate scan, memType == PSUM), each with its bank footprint liveN and its live range over the shared linear
// order (alloc/liveness.h: first def / last use, loop-extended). Two nodes interfere when their live ranges overlap
// in time — the same rule as SBUF; there is no geometry in the edge rule, only in the degree test (psum_simplify.h).
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/interference_edges.h"
#include "alloc/liveness.h"
#include "ir/program.h"

namespace allocsim {

struct PsumNode {
  TensorId tensor = kNone;
  uint32_t banks = 0;  // liveN
  LiveRange range;
  bool pinned = false;  // keeps its given placement (docs/format.md "pinned")
  double cost = 0;      // spill cost, filled by findPsumCosts; +inf = un-spillable
};

struct PsumGraph {
  std::vector<PsumNode> nodes;                     // in TensorId order
  InterferenceEdges neighbours;   // by node, ascending node index, symmetric
  std::vector<uint32_t> node_of;                   // by TensorId: node index, kNone for non-PSUM tensors
  uint64_t total_demand = 0;    // sum of liveN over the nodes (the production allocator's total_bank_demand)
  uint64_t max_concurrent = 0;  // max over positions of the banks of the nodes live there: a lower bound on the
                                // banks any allocation without spills needs
};

// Runs the capacity guard on every PSUM tensor (throws AllocError), then builds the graph by a sweep over the
// linear order. `live` must be computeLiveness(p).
PsumGraph buildPsumGraph(const Program& p, const Liveness& live);

// the production allocator's demand metric, as the production allocator computes it: NUM_PSUM_BANKS /
// total_bank_demand, as a percentage (so below 100 means the tensors together ask for more banks than PSUM has). 100
// when there is no demand.
double psumDemandPercent(const Arch& arch, const PsumGraph& g);

}  // namespace allocsim
