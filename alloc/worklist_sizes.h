// How many nodes simplify's initial classification puts on each worklist (as in the production allocator: lo =
// colorable now, hi = spillable, inf = un-spillable). One struct for the PSUM and SBUF colorers, which run one
// Chaitin–Briggs skeleton and report these sizes alike (alloc/colorer_stats.h).
#pragma once

#include <cstdint>

namespace allocsim {

struct WorklistSizes {
  uint32_t lo = 0, hi = 0, inf = 0;  // after the initial classification
  bool operator==(const WorklistSizes&) const = default;
};

}  // namespace allocsim
