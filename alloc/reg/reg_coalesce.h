// coalesce_ssa_live_range of the REG colorer (the production allocator, REG_Allocator: "SSA-copy coalescing", and
// after select propagate_coalesced_ssa_allocation "push color through copies"): registers joined by a `mov R, S` are
// colored as one node, so the copy costs no register.
//
// When two registers may share: their live ranges (alloc/liveness.h, inclusive) meet only at the position of a
// `mov` from one to the other, where the source's range ends and the destination's begins. The
// copy then writes the value that is already on the lanes, which the placement oracle accepts for exactly this
// case (docs/verification.md, oracle 3: a `mov` whose destination sits on its source's lanes); a source that is
// still read after the copy, or a copy whose destination was live before it, keeps the edge. Both must have the
// same width (the same lanes), and neither may have a kept placement (O7). A group is the transitive closure of
// such merges; every pair of its members must pass the test above, so a group's range is the union of its
// members' ranges and they touch only at copies.
//
// Conservative (Briggs, or George), so coalescing never turns a colorable graph into one simplify cannot take
// apart. With lanes, a neighbour t of w_t lanes is *significant* when it fails the colorer's degree test
// (alloc/reg/reg_color.h): blocked(t) + w_t > R, blocked(t) = sum over its neighbours u of (w_u + w_t - 1).
//   Briggs: the merged node of w lanes passes the degree test counting only its significant neighbours:
//           sum over significant t of (w_t + w - 1) + w <= R.
//   George: every neighbour of one side is a neighbour of the other already, or insignificant.
// Copies are tried in order of their loop weight (kLoopWeight^depth, the copies executed most first), then in
// program order.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/liveness.h"
#include "alloc/reg/reg_costs.h"
#include "alloc/reg/reg_interference.h"
#include "ir/program.h"

namespace allocsim {

struct RegGroups {
  std::vector<RegId> node;      // by RegId: its node, 0 .. nodes-1 (a group of coalesced registers is one node)
  uint32_t nodes = 0;
  RegGraph graph;               // by node: the interference of the groups
  uint32_t coalesced = 0;       // copies whose two registers were put in one group
};

RegGroups coalesceCopies(const Program& p, const Liveness& live, const RegGraph& g, const std::vector<bool>& kept,
                         uint32_t registers);

}  // namespace allocsim
