#include "verify/live_intervals.h"

#include <algorithm>

namespace allocsim {

void LiveIntervals::add(uint64_t lo, uint64_t hi) {
  // The first interval that [lo, hi] may merge with; intervals are disjoint and sorted, so their ends are too.
  auto first = std::partition_point(list_.begin(), list_.end(),
                                    [&](const StepInterval& iv) { return iv.hi + 1 < lo; });
  auto last = first;
  for (; last != list_.end() && last->lo <= hi + 1; ++last) {
    lo = std::min(lo, last->lo);
    hi = std::max(hi, last->hi);
  }
  if (first == last) {
    list_.insert(first, StepInterval{lo, hi});
    return;
  }
  *first = StepInterval{lo, hi};
  list_.erase(first + 1, last);
}

std::optional<CommonStep> firstCommonStep(const LiveIntervals& a, const LiveIntervals& b) {
  const std::vector<StepInterval>& x = a.intervals();
  const std::vector<StepInterval>& y = b.intervals();
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    uint64_t lo = std::max(x[i].lo, y[j].lo);
    uint64_t hi = std::min(x[i].hi, y[j].hi);
    if (lo <= hi) return CommonStep{lo, x[i], y[j]};
    if (x[i].hi < y[j].hi)
      ++i;
    else
      ++j;
  }
  return std::nullopt;
}

std::vector<StepInterval> commonSteps(const LiveIntervals& a, const LiveIntervals& b) {
  const std::vector<StepInterval>& x = a.intervals();
  const std::vector<StepInterval>& y = b.intervals();
  std::vector<StepInterval> out;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    uint64_t lo = std::max(x[i].lo, y[j].lo);
    uint64_t hi = std::min(x[i].hi, y[j].hi);
    if (lo <= hi) out.push_back({lo, hi});
    if (x[i].hi < y[j].hi)
      ++i;
    else
      ++j;
  }
  return out;
}

}  // namespace allocsim
