// As in the production allocator, select for SBUF: pop the simplify stack and give each node a position, under the
// heuristic's placement policy (sbuf_placement_policy.h), among the rectangles of its already colored neighbours
// (fixed nodes are colored from the start, at their placement); a node with no free grid position " cannot allocate
// " and joins the spill set.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/sbuf/sbuf_placement_policy.h"
#include "ir/program.h"

namespace allocsim {

struct SbufSelection {
  // By node: its rectangle's position (the tensor's placement plus SbufNode::lead); nullopt for a node that cannot
  // allocate.
  std::vector<std::optional<Placement>> at;
  std::vector<uint32_t> failed;              // nodes that cannot allocate, in pop order
  double spill_cost = 0;                     // sum of the failed nodes' costs (+inf if one is un-spillable)
  uint64_t footprint = 0;  // sbuf_footprint.h over the placed nodes that are live at some point, trails included
  // "SB score = ... (lower is better)": the spill cost in cycles, plus footprint / (capacity + 1) < 1, so that
  // spilling less always wins and, between selections that spill the same, the one that occupies fewer SBUF
  // bytes (a lower high-water mark per partition) wins.
  double score = 0;
};

// `stack` as simplifySbuf returns it: every node that is not fixed, exactly once.
SbufSelection selectSbuf(const Program& p, const SbufGraph& g, const std::vector<uint32_t>& stack, SbufPolicy policy);

// The bytes outside `node`'s rectangle that its tensor still needs within SBUF, as obstacles on every partition
// appended to `taken`: the first SbufNode::lead bytes (the rectangle starts no lower) and the last
// SbufNode::trail (it ends no higher).
void addTensorBounds(const Arch& arch, const SbufNode& node, std::vector<SbufRect>& taken);

// Sets `s.footprint` and `s.score` from its placements and spill cost (selectSbuf does; again after nodes moved).
void scoreSbufSelection(const Program& p, const SbufGraph& g, SbufSelection& s);

}  // namespace allocsim
