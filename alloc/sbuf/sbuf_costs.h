// As in the production allocator, find_costs for SBUF: the spill cost of each node in cycles. SBUF's find_costs
// weights by loop nesting and by bytes (the production allocator: "SBUF's find_costs weights by CFG::isLoopHeader and
// bytes"); ours charges each spill DMA that spilling would insert (sbuf_spill.h) its latency from the data table
// (alloc/cost_table.h), times the number of times it executes (the trip counts of the loops around it):
//
//   cost(t) = sum over executed instructions I that touch t of  executions(I) x
//             ( sum over distinct views v of t that I reads:  dmaCycles(DRAM -> SBUF, bytes(v))     reloads
//               + if I writes t (view w):                    dmaCycles(SBUF -> DRAM, bytes(w)) )   the store
//
// A PSUM spill slot (origin spill, `<t>_SpillTensorCopy<id>`) that only DMAs touch (none of them with DRAM on
// the other side) is spilled differently: it is rehomed to DRAM as a whole (the production allocator: the saved copy
// is rehomed, "SBUF preferred, else DRAM", downstream of the PSUM colorer), and costs what its DMAs pay extra for
// going to DRAM instead of SBUF.
//
// Un-spillable nodes cost +inf:
// - fixed nodes (already placed in the input; pinned);
// - the stand-ins spill code made (`<t>_Reload<id>`): spilling one again would move the same DMAs around;
// - tensors with a tiny live range: every position of their range is an instruction that touches them (say
//   `dma x, X` then `tt y, x, z`). A stand-in would be live at every one of those positions too, so spilling
//   would relieve no position of the range. (An accumulator inside its group is the production allocator's other
//     case; SBUF has none.)
#pragma once

#include <vector>

#include "alloc/liveness.h"
#include "alloc/sbuf/sbuf_interference.h"
#include "ir/program.h"

namespace allocsim {

// Fills SbufNode::cost and SbufNode::rehome for every node. `live` is the liveness `g` was built from;
// `local[t]` marks the stand-ins. Un-spillable: isInfiniteCost (alloc/spill_cost.h).
void findSbufCosts(const Program& p, const Liveness& live, const std::vector<bool>& local, SbufGraph& g);

}  // namespace allocsim
