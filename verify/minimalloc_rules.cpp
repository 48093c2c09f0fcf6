#include "verify/minimalloc_rules.h"

#include <algorithm>

namespace allocsim {

MinimallocCheck checkMinimallocSolution(const MinimallocProblem& s, uint64_t capacity, size_t limit) {
  MinimallocCheck c;
  auto report = [&](const std::string& m) {
    if (c.violations.size() < limit) c.violations.push_back(m);
  };
  for (const MinimallocBuffer& b : s.buffers) {
    if (!b.offset) {
      report("buffer '" + b.id + "' has no offset");
      continue;
    }
    const uint64_t top = uint64_t(*b.offset) + uint64_t(b.size);
    c.height = std::max(c.height, top);
    if (*b.offset < 0) report("buffer '" + b.id + "' has a negative offset");
    if (top > capacity)
      report("buffer '" + b.id + "' ends at " + std::to_string(top) + ", beyond the capacity " +
             std::to_string(capacity));
  }
  // The O(n^2) pair check, as minimalloc's validator does it: nothing shared with the allocators' sweeps.
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const MinimallocBuffer& a = s.buffers[i];
    if (!a.offset) continue;
    for (size_t j = i + 1; j < s.buffers.size(); ++j) {
      const MinimallocBuffer& b = s.buffers[j];
      if (!b.offset) continue;
      const bool in_time = a.lower < b.upper && b.lower < a.upper;
      const bool in_space = *a.offset < *b.offset + b.size && *b.offset < *a.offset + a.size;
      if (in_time && in_space)
        report("buffers '" + a.id + "' [" + std::to_string(*a.offset) + ", " + std::to_string(*a.offset + a.size) +
               ") and '" + b.id + "' [" + std::to_string(*b.offset) + ", " + std::to_string(*b.offset + b.size) +
               ") overlap while both live (over [" + std::to_string(std::max(a.lower, b.lower)) + ", " +
               std::to_string(std::min(a.upper, b.upper)) + "))");
    }
  }
  return c;
}

}  // namespace allocsim
