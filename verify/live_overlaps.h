// The pairs of items (tensors of one space, or registers) whose physical footprints intersect while both are
// live, found by one sweep over time instead of testing every pair of intersecting footprints: an allocation
// reuses the same bytes for thousands of tensors, so intersecting footprints grow as N^2 with the program while
// the items live at one step stay bounded by the machine. The sweep visits live intervals in
// order of their first step and compares each with the intervals still open, so it costs
// O(I log I + I * L) for I intervals and at most L items live at once, and memory O(I).
#pragma once

#include <cstdint>
#include <vector>

#include "verify/footprint.h"
#include "verify/live_intervals.h"

namespace allocsim {

struct LiveOverlap {
  uint32_t first = 0, second = 0;  // indices into the footprints, first < second
  CommonStep when;                 // the first step both are live; .a is `first`'s interval, .b `second`'s
};

// Each pair of non-empty footprints that intersect and whose items' live sets (live[footprint.item]) meet, once,
// with the first step at which they do; in no particular order.
std::vector<LiveOverlap> liveOverlaps(const std::vector<Footprint>& fps, const std::vector<LiveIntervals>& live);

}  // namespace allocsim
