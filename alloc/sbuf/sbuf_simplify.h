// As in the production allocator, simplify for SBUF: the Chaitin worklists lo (SAFE), hi (UNSAFE) and inf (INFINITE)
// with the geometric degree test of sbuf_degree.h: a node is lo while K > 0 (it finds a grid position wherever its
// present neighbours sit). Draining: the lo node last in the heuristic's color order is pushed and removed, which
// gives each remaining neighbour j its impact(j, removed) back and may promote it to lo ("neighbor push to low"); when
// lo is empty, the hi node with the lowest cost / (area x remaining degree) — cheap to spill, much pressure
// relieved — is pushed optimistically (Briggs: it may still find room in select); inf nodes (un-spillable) that
// never became lo go last, so select, which pops the stack, colors them first. Fixed nodes are pre-colored:
// never pushed, but their impact on their neighbours stays.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/sbuf/sbuf_heuristic.h"
#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/worklist_sizes.h"
#include "ir/arch.h"

namespace allocsim {

using SbufWorklistSizes = WorklistSizes;  // alloc/worklist_sizes.h

// `g` must have its costs (findSbufCosts). Returns the node stack in push order (select pops from the back).
std::vector<uint32_t> simplifySbuf(const Arch& arch, const SbufGraph& g, SbufOrder order,
                                   SbufWorklistSizes* sizes = nullptr);

// The stack without simplify: every node that is not fixed, so that select colors them in the heuristic's plain
// color order (rank 0 first). With unlimited room every node is lo and simplify returns exactly this stack; under
// a capacity simplify reorders the hi nodes. Select's placement policies place a node where they would place it
// with unlimited room whenever that position lies within the capacity (sbuf_placement_policy.h), so, colored in
// this order, a capacity at or above the height reached with unlimited room is never short: the colorer uses the
// room it has.
std::vector<uint32_t> plainSbufStack(const SbufGraph& g, SbufOrder order);

}  // namespace allocsim
