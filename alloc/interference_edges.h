// The interference edges of a colorer's graph: two nodes interfere when their live ranges share a position.
// Shared by the PSUM and SBUF colorers, which run one Chaitin–Briggs skeleton (seed 003: "the same time-overlap
// interference as SBUF"); geometry plays no part in the edge rule, only in their degree tests and selects.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/liveness.h"

namespace allocsim {

// By node (ranges[i] is node i's live range): the nodes whose range shares a position with it, ascending, without
// repeats; symmetric. Empty ranges interfere with nothing.
std::vector<std::vector<uint32_t>> interferenceEdges(const std::vector<LiveRange>& ranges);

}  // namespace allocsim
