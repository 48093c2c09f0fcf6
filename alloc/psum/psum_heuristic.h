// The best-of-n perturbation (what changes between iterations of the production allocator's best-of-n loop is not
// known; it appears to vary a tie-break seed, as in SBUF). Ours: each heuristic is a total order on
// nodes used wherever the colorer must choose among equals — the order in which simplify drains its lo worklist, and
// the tie-break among hi (and inf) nodes of equal cost/degree. Nodes simplified first are colored last, so each order
// decides which nodes get the low banks first. All orders end in the node index, so every run is deterministic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "alloc/psum/psum_interference.h"

namespace allocsim {

enum class PsumHeuristic : uint8_t {
  TensorOrder,    // declaration order
  EarliestStart,  // earliest live-range start first (so the latest-starting nodes are colored first)
  FewestBanks,    // smallest footprint first (so the widest nodes are colored first, packing them low)
  LatestStart,    // latest live-range start first
};
inline constexpr uint32_t kPsumHeuristicCount = 4;

const char* psumHeuristicName(PsumHeuristic h);
// The index of the order with this name ("fewest-banks" -> 2), or nullopt.
std::optional<uint32_t> psumHeuristicIndex(const std::string& name);

// True when node a comes before node b in heuristic h's order.
bool psumBefore(const PsumGraph& g, PsumHeuristic h, uint32_t a, uint32_t b);

}  // namespace allocsim
