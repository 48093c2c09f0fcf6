// As in the production allocator, simplify: the Chaitin worklists with PSUM's additive bank test. A node is trivially
// colorable (lo, SAFE) when
//     NUM_PSUM_BANKS - own banks - sum of its neighbours' banks >= 0
// — whatever banks the neighbours take, a window of its own size is left. Otherwise it is inf (un-spillable,
// cost +inf) or hi (UNSAFE). Draining: a lo node is pushed and removed, which gives each remaining neighbour its
// banks back and may promote it to lo ("neighbor push to low"); when lo is empty, the hi node with the lowest
// cost/degree is pushed optimistically (it may still find banks in select); inf nodes go last, so select, which
// pops the stack, colors them first. Pinned nodes are pre-colored: never pushed, but their banks count against
// their neighbours.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloc/psum/psum_heuristic.h"
#include "alloc/psum/psum_interference.h"
#include "alloc/worklist_sizes.h"

namespace allocsim {

using PsumWorklistSizes = WorklistSizes;  // alloc/worklist_sizes.h

// `g` must have its costs (findPsumCosts). Returns the node stack in push order (select pops from the back).
std::vector<uint32_t> simplifyPsum(const PsumGraph& g, uint32_t psum_banks, PsumHeuristic h,
                                   PsumWorklistSizes* sizes = nullptr);

// The stack without simplify: every node that is not pinned, pushed in heuristic h's order, so that select
// colors them in the reverse of it, as simplify does when every node is lo (unlimited banks). First fit puts a
// node on the bank it would take with unlimited banks whenever that one lies within PSUM, so in this order a PSUM
// of at least the banks used with unlimited room never spills: a colorer uses the room it has.
std::vector<uint32_t> plainPsumStack(const PsumGraph& g, PsumHeuristic h);

// The remaining-bank budget of node i with all its neighbours present (the value the production allocator tests
// against 0).
int64_t psumFreeBanks(const PsumGraph& g, uint32_t psum_banks, uint32_t i);

}  // namespace allocsim
