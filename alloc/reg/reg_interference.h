// build of the REG colorer (seed 000, REG_Allocator: "build(insts, info) — interference graph"): two registers
// interfere when their live ranges share a position of the linear order (alloc/liveness.h: loop-extended, so a
// loop register is live over its whole loop and a value carried around a back edge over the whole body; ranges
// are inclusive, so a register read and another written by one instruction interfere, as the placement oracle
// requires).
#pragma once

#include <vector>

#include "alloc/liveness.h"
#include "ir/program.h"

namespace allocsim {

struct RegGraph {
  std::vector<std::vector<RegId>> adj;  // by RegId, sorted, no self edges
  uint64_t edges = 0;
};

RegGraph buildRegisterInterference(const std::vector<LiveRange>& ranges);

}  // namespace allocsim
