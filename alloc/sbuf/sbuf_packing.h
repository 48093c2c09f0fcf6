// The SBUF colorer's packing candidate: with unlimited room, a height within 1.15x of the
// lower bound.
// Color orders with first/best fit reach 1.17-1.41x the lower bound on minimalloc's challenging benchmarks; the
// exact search (alloc/exact/exact_search.h) with a small node budget finds a placement within 1.15x of it on each
// of them in about 1,000 nodes. So for graphs of at most kSbufPacking.max_tensors live nodes the colorer also asks
// the search for a placement at a ladder of targets above the lower bound (kSbufPacking.targets), in order, each
// with a node budget of kSbufPacking.nodes_per_tensor x the live nodes, and keeps the first placement found.
//
// The ladder does not depend on the capacity: the same placement comes out at any capacity, and is used whenever
// its height fits it. So, like the plain color orders (sbuf_simplify.h plainSbufStack), it never takes away a fit
// the colorer has with unlimited room at a capacity at or above the height reached there.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "alloc/sbuf/sbuf_interference.h"
#include "ir/program.h"

namespace allocsim {

struct SbufPackingLimits {
  uint32_t max_tensors = 600;      // live SBUF nodes; larger graphs are left to the color orders (the search's
                                   // nodes cost O(N) each, the colorer must stay near O(N log N))
  uint64_t nodes_per_tensor = 12;  // budget per target: one round of the search's six preorders at 2N nodes each
  std::vector<double> targets = {1.0, 1.025, 1.05, 1.075, 1.1, 1.125, 1.15, 1.2, 1.25, 1.3};  // x the lower bound
};
inline const SbufPackingLimits kSbufPacking;

// Per node, the placement of the first target's packing (fixed nodes at their placement, never-live nodes at
// the corner), or nullopt when no target was met within its budget, the graph is too large, or the packing's
// height exceeds the machine's SBUF.
std::optional<std::vector<Placement>> packSbuf(const Program& p, const SbufGraph& g,
                                               const SbufPackingLimits& limits = kSbufPacking);

}  // namespace allocsim
