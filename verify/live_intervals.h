// The steps at which one tensor or register is live: a sorted list of disjoint, non-adjacent closed intervals
// of dynamic steps (ir/interp.h "Steps"). The dynamic-liveness walk only moves forward, so a new interval
// usually ends at the newest step and merges at the back in amortized O(1).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace allocsim {

struct StepInterval {
  uint64_t lo = 0;  // first live step
  uint64_t hi = 0;  // last live step (inclusive)
};

class LiveIntervals {
 public:
  // Marks [lo, hi] live (lo <= hi), merging with every interval it touches or abuts.
  void add(uint64_t lo, uint64_t hi);
  const std::vector<StepInterval>& intervals() const { return list_; }
  bool empty() const { return list_.empty(); }

 private:
  std::vector<StepInterval> list_;
};

// Where two live sets first meet: the first common step and the interval of each that contains it.
struct CommonStep {
  uint64_t step = 0;
  StepInterval a, b;
};
// Linear in the two lists; nullopt when they share no step.
std::optional<CommonStep> firstCommonStep(const LiveIntervals& a, const LiveIntervals& b);
// Every step both live sets share, as disjoint closed intervals in order. Linear in the two lists.
std::vector<StepInterval> commonSteps(const LiveIntervals& a, const LiveIntervals& b);

}  // namespace allocsim
