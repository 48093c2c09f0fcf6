// The SBUF interference graph (the production allocator, build, "same time-overlap interference as SBUF"). Nodes are
// the SBUF tensors: the ones this colorer places (no placement yet) and the fixed ones (already placed, pinned or not:
// obstacles that keep their rectangle). Two nodes interfere when their live ranges (sbuf_live_ranges.h) share a
// position. Geometry plays no part in the edge rule, only in the degree test (sbuf_degree.h) and in select.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/interference_edges.h"
#include "alloc/liveness.h"
#include "ir/program.h"

namespace allocsim {

struct SbufNode {
  TensorId tensor = kNone;
  uint32_t partitions = 0;  // height of the rectangle
  uint64_t bytes = 0;       // width: bytes per partition
  LiveRange range;
  bool fixed = false;  // already placed in the input: pre-colored, never moved or spilled
  double cost = 0;     // spill cost in cycles (sbuf_costs.h); +inf = un-spillable
  bool rehome = false;  // spilling it moves the tensor itself to DRAM (sbuf_costs.h); else stand-ins

  uint64_t area() const { return uint64_t(partitions) * bytes; }
};

struct SbufGraph {
  std::vector<SbufNode> nodes;                    // in TensorId order
  InterferenceEdges neighbours;  // by node, ascending node index, symmetric
  std::vector<uint32_t> node_of;                  // by TensorId: node index, kNone for other tensors
  uint64_t total_demand = 0;  // sum of the areas (partitions x bytes) of the nodes with a live range
  uint64_t max_live = 0;      // max over positions of the areas live there: a lower bound on the SBUF bytes any
                              // allocation without spills occupies at once
};

// `live` must be sbufLiveness(p, ...) (or computeLiveness(p)).
SbufGraph buildSbufGraph(const Program& p, const Liveness& live);

// SBUF capacity in bytes (partitions x bytes per partition).
uint64_t sbufCapacity(const Arch& arch);

// the production allocator's demand metric for SB, computed like PSUM's (NUM_PSUM_BANKS / total_bank_demand):
// capacity / total demand, as a percentage — below 100 means the tensors together ask for more than SBUF holds. 100
// when there is no demand.
double sbufDemandPercent(const Arch& arch, const SbufGraph& g);

}  // namespace allocsim
