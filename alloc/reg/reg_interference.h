// build of the REG colorer (the production allocator, REG_Allocator: "build(insts, info) — interference graph"): two
// registers interfere when their live ranges share a position of the linear order (alloc/liveness.h: loop-extended,
// so a loop register is live over its whole loop and a value carried around a back edge over the whole body; ranges
// are inclusive, so a register read and another written by one instruction interfere, as the placement oracle
// requires). A register may be live over several pieces: a spilled loop register is live at the two ends of its
// body only (alloc/reg/reg_spill.h).
#pragma once

#include <vector>

#include "alloc/liveness.h"
#include "ir/program.h"

namespace allocsim {

struct RegGraph {
  std::vector<std::vector<RegId>> adj;  // by RegId, sorted, no self edges
  uint64_t edges = 0;
};

// By RegId, the pieces of each register's live range (disjoint, any order).
RegGraph buildRegisterInterference(const std::vector<std::vector<LiveRange>>& pieces);

}  // namespace allocsim
