// Live ranges for the SBUF colorer: alloc/liveness.h for every tensor, except the spill stand-ins this colorer
// made itself (sbuf_spill.h, `<t>_Reload<id>`), whose range is exactly [first mention, last mention].
//
// Why a stand-in needs no loop extension: it is used by one instruction, next to which spill code put its
// reloads and its store, all in the same loop body; in every iteration the reload writes each element the
// instruction then reads, and the store reads only what the instruction wrote. No element is carried around a
// back edge. alloc/liveness.h cannot know that (the reload of a partial view is not a whole-tensor kill), and
// would stretch every stand-in inside a loop over the whole loop — the pressure spilling was meant to relieve.
#pragma once

#include <vector>

#include "alloc/liveness.h"
#include "ir/program.h"

namespace allocsim {

// `local[t]` marks the stand-ins (indices beyond local.size() are not). The result holds pointers into `p`.
Liveness sbufLiveness(const Program& p, const std::vector<bool>& local);

// How many times position `pos` of `order` executes: the product of the trip counts of the loops around it
// (0 inside a loop that never runs). A double, so that deep nests saturate instead of wrapping.
double executionsOf(const LinearOrder& order, uint32_t pos);

}  // namespace allocsim
