// simplify + select of the REG colorer (the production allocator, REG_Allocator): a 1-D Chaitin–Briggs colorer over
// the SP register lanes with ONE scored coloring (no best-of-n sweep: "REG score = ... (lower is better)").
//
// A color is a first lane; a 64-bit register takes two adjacent lanes. The degree test is additive over lanes:
// a node of w lanes among neighbours of w_i lanes always finds a free run when
//   sum_i (w_i + w - 1) <= R - w
// (a neighbour of w_i lanes rules out at most w_i + w - 1 of the R - w + 1 start lanes). Simplify removes such
// nodes; when none is left it pushes the spillable node of least cost / degree optimistically (Briggs), and an
// unspillable one only when nothing else remains: the one whose live range starts last. Live ranges are
// intervals, and select then colors those unspillable nodes in order of their start, the order in which greedy
// coloring of an interval graph needs no more colors than the most ranges live at one point. Select pops and gives
// each node the lowest free run; a node with none stays uncolored. Precolored nodes (kept placements) are never
// removed and are obstacles throughout.
#pragma once

#include <optional>
#include <vector>

#include "alloc/reg/reg_costs.h"
#include "alloc/reg/reg_interference.h"

namespace allocsim {

struct RegColorInput {
  const RegGraph* graph = nullptr;
  std::vector<uint32_t> lanes;                     // by RegId: 1 or 2
  std::vector<std::optional<uint32_t>> precolored;  // by RegId: a kept first lane
  const RegCosts* costs = nullptr;
  std::vector<uint32_t> start;  // by RegId: where its live range starts (the optimistic tie-break below)
  uint32_t registers = 0;  // R, the SP register lanes of the machine
};

struct RegColoring {
  std::vector<std::optional<uint32_t>> color;  // by RegId: first lane
  std::vector<RegId> uncolored;                // in pop order
  double score = 0;      // spill cost left uncolored (an unspillable node counts kUnspillablePenalty) +
                         // lanes used / R: lower is better
  uint32_t lanes_used = 0;
  uint32_t optimistic = 0;  // nodes pushed without passing the degree test
};

inline constexpr double kUnspillablePenalty = 1e12;

RegColoring colorRegisters(const RegColorInput& in);

}  // namespace allocsim
