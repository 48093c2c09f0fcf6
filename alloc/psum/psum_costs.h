// As in the production allocator, find_costs: the spill cost of each PSUM node, in bank x cycles. Spilling a node
// (psum_spill.h) inserts the saves and reloads of its plan (psum_def_regions.h), so
//   cost = liveN x (saves x store latency + reloads x load latency)        (psum_spill_latency.h)
// Like the production allocator (and unlike SBUF) there is no loop weighting: a count of static spill points.
//
// Un-spillable nodes cost +inf (simplify's inf worklist; select places them first):
// - a tensor whose plan is not spillable: some def region is not a recognized closed accumulation group (the
//   production allocator's RMW-pinned accumulator: an accumulator inside its open group cannot leave PSUM, and the
//     spill
//   code can only go where the group is closed);
// - a tensor already spilled (a spill slot copies it): spilling it again would only move the same copies;
// - tensors that spill code made (origin != source): they live from one copy to the next instruction;
// - pinned tensors (their placement is fixed).
#pragma once

#include "alloc/psum/psum_interference.h"
#include "alloc/spill_cost.h"
#include "ir/program.h"

namespace allocsim {

// Fills PsumNode::cost for every node of `g`. `p` must be renumbered.
void findPsumCosts(const Program& p, PsumGraph& g);

}  // namespace allocsim
