#include "verify/minimalloc_rules.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace allocsim {

// Up to this many buffers every pair is compared; above, a sweep finds the first overlap in O(n log n).
constexpr size_t kPairCheckBuffers = 4096;

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
  auto overlapText = [](const MinimallocBuffer& a, const MinimallocBuffer& b) {
    return "buffers '" + a.id + "' [" + std::to_string(*a.offset) + ", " + std::to_string(*a.offset + a.size) +
           ") and '" + b.id + "' [" + std::to_string(*b.offset) + ", " + std::to_string(*b.offset + b.size) +
           ") overlap while both live (over [" + std::to_string(std::max(a.lower, b.lower)) + ", " +
           std::to_string(std::min(a.upper, b.upper)) + "))";
  };
  if (s.buffers.size() <= kPairCheckBuffers) {
    // The O(n^2) pair check, as minimalloc's validator does it: nothing shared with the allocators' sweeps.
    for (size_t i = 0; i < s.buffers.size(); ++i) {
      const MinimallocBuffer& a = s.buffers[i];
      if (!a.offset) continue;
      for (size_t j = i + 1; j < s.buffers.size(); ++j) {
        const MinimallocBuffer& b = s.buffers[j];
        if (!b.offset) continue;
        const bool in_time = a.lower < b.upper && b.lower < a.upper;
        const bool in_space = *a.offset < *b.offset + b.size && *b.offset < *a.offset + a.size;
        if (in_time && in_space) report(overlapText(a, b));
      }
    }
    return c;
  }
  // Larger solutions: a sweep over time keeping the live buffers ordered by offset. While the live buffers are
  // disjoint, a buffer that arrives overlapping any of them overlaps its neighbour below or above, so the first
  // overlap is always found (later ones may hide behind it).
  std::vector<std::tuple<int64_t, int, size_t>> ev;  // (time, 0 = end / 1 = start, buffer): ends first at a time
  for (size_t i = 0; i < s.buffers.size(); ++i)
    if (s.buffers[i].offset) {
      ev.push_back({s.buffers[i].lower, 1, i});
      ev.push_back({s.buffers[i].upper, 0, i});
    }
  std::sort(ev.begin(), ev.end());
  std::multimap<int64_t, size_t> live;  // offset -> buffer
  std::vector<std::multimap<int64_t, size_t>::iterator> at(s.buffers.size());
  for (auto [time, start, i] : ev) {
    const MinimallocBuffer& b = s.buffers[i];
    if (!start) {
      live.erase(at[i]);
      continue;
    }
    auto it = live.emplace(*b.offset, i);
    at[i] = it;
    if (it != live.begin()) {
      const MinimallocBuffer& below = s.buffers[std::prev(it)->second];
      if (*below.offset + below.size > *b.offset) report(overlapText(below, b));
    }
    if (std::next(it) != live.end()) {
      const MinimallocBuffer& above = s.buffers[std::next(it)->second];
      if (*b.offset + b.size > *above.offset) report(overlapText(b, above));
    }
  }
  return c;
}

}  // namespace allocsim
