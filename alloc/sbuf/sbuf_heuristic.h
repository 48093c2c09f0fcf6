// The best-of-N sweep of the SBUF colorer (as in the production allocator: SBUF "runs a heuristic sweep and keeps the
// best of several scored colorings"; the production allocator: "the 2-D best-of-N SBUF colorer"). A heuristic is a
// color order x a placement policy.
//
// The color order is the order in which select should color nodes when it is free to choose: simplify drains
// its lo worklist in the reverse order (the stack pops it back), and breaks ties among hi and inf nodes with it.
// Every order ends in the node index, so each run is deterministic. The placement policies are
// sbuf_placement_policy.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/sbuf/sbuf_placement_policy.h"

namespace allocsim {

enum class SbufOrder : uint8_t {
  EarliestStart,  // live-range start, then declaration: with first fit, placeGreedy's order
  LargestFirst,   // largest area first, so that the big rectangles pack before the small ones fragment SBUF
  LatestStart,    // latest live-range start first
  TensorOrder,    // declaration order
};
inline constexpr uint32_t kSbufOrderCount = 4;
const char* sbufOrderName(SbufOrder o);

struct SbufHeuristic {
  SbufOrder order = SbufOrder::EarliestStart;
  SbufPolicy policy = SbufPolicy::FirstFit;
};
inline constexpr uint32_t kSbufHeuristicCount = kSbufOrderCount * kSbufPolicyCount;

// Heuristic k of the sweep, k < kSbufHeuristicCount (every order x policy pair once). A level tries a prefix
// (alloc/driver.h effortFor), so the order is a ranking: first largest-first/lowest-offset, the single
// heuristic of O1 (at or within 1.01x of the per-iteration max-live bound on every corpus/nki_samples kernel,
// where earliest-start/first-fit reached 1.25x); then the first three orders x the first three policies, as
// the sweep had them before lowest-offset existed (O2 tries seven, a superset of what it tried then); then
// the rest.
SbufHeuristic sbufHeuristic(uint32_t k);
// "earliest-start/first-fit".
std::string sbufHeuristicName(const SbufHeuristic& h);
// The sweep index of the heuristic with this name ("largest-first/lowest-offset" -> 0), or nullopt.
std::optional<uint32_t> sbufHeuristicIndex(const std::string& name);

// rank[i]: node i's position in the color order (0 = colored first).
std::vector<uint32_t> sbufColorRanks(const SbufGraph& g, SbufOrder o);

}  // namespace allocsim
