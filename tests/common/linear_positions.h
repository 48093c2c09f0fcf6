// Positions of a program's linear order by the source line they come from, for the liveness tests that name
// instructions by their line.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "alloc/linear_order.h"

namespace allocsim {

// The position of the instruction (or loop header) written on source line `line`.
inline uint32_t at(const LinearOrder& order, uint32_t line) {
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& lp = order.positions[pos];
    if (lp.inst != nullptr && lp.inst->loc.line == line && lp.kind != LinearPosition::Kind::LoopEnd) return pos;
  }
  ADD_FAILURE() << "no instruction on line " << line;
  return kNone;
}

}  // namespace allocsim
