// The P-square streaming quantile estimator (Jain & Chlamtac, CACM 1985): five markers whose heights follow a
// piecewise-parabolic fit, so a quantile of an unbounded stream is estimated in constant memory. Seed the production
// allocator's BestFitMemoryManager keeps its fragmentation statistics in two boost
// p_square_cumulative_distribution<float> accumulators; this is the same algorithm family, one quantile per
// estimator, without boost.
#pragma once

#include <array>
#include <cstdint>

namespace allocsim {

class PSquareQuantile {
 public:
  explicit PSquareQuantile(double quantile);  // in (0, 1)

  void add(double x);
  uint64_t count() const { return count_; }
  // The estimate; exact (the order statistic of the samples seen) while fewer than five samples were added,
  // 0 before the first.
  double value() const;

 private:
  double p_;
  uint64_t count_ = 0;
  std::array<double, 5> q_{};   // marker heights
  std::array<double, 5> n_{};   // marker positions (1-based)
  std::array<double, 5> np_{};  // desired positions
  std::array<double, 5> dn_{};  // desired position increments
};

}  // namespace allocsim
