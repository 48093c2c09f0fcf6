// Seed 003 find_costs: the spill cost of each PSUM node, in bank x cycles. Spilling a node (psum_spill.h) stores
// it after every instruction that writes it and loads it before every instruction that reads it, so
//   cost = liveN x (stores x store latency + loads x load latency)        (psum_spill_latency.h)
// Like the seed (and unlike SBUF) there is no loop weighting: a count of static spill points.
//
// Un-spillable nodes cost +inf (simplify's inf worklist; select places them first):
// - an accumulator inside its accumulation group: a matmul opens a group (start or start@first) and leaves it
//   open (no stop on that matmul), so the group's later matmuls follow it in the code and spill code would have
//   to sit between a start and its stop (003: the RMW-pinned accumulator). A group carried around a loop by one
//   matmul with `start@first, stop@last` has no such inner window: its partial sum can leave PSUM after the matmul
//   and come back before the next iteration's matmul, bit for bit (a DMA copies bytes), which is how
//   matmul_blocked_tiny's six loop-carried accumulators fit four banks;
// - tensors that spill code made (origin != source): they live from one copy to the next instruction, and
//   spilling them again would only move the same copies around;
// - pinned tensors (their placement is fixed).
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/psum/psum_interference.h"
#include "ir/program.h"

namespace allocsim {

struct PsumSpillPoints {
  uint64_t stores = 0;  // instructions that write the tensor
  uint64_t loads = 0;   // instructions that read it
  bool inner_accumulation = false;  // a matmul on it opens a group without closing it
};

// The spill points of every tensor, by TensorId (zero for non-PSUM tensors).
std::vector<PsumSpillPoints> psumSpillPoints(const Program& p);

// Fills PsumNode::cost for every node of `g`.
void findPsumCosts(const Program& p, PsumGraph& g);

bool isInfiniteCost(double cost);

}  // namespace allocsim
