// MemoryMergeTracker (the production allocator, internal_dma_coalescing): a union-find over the DMAs of one body.
// join(a, b) puts b's interval right after a's (find_interval), so a chain of abutting DMAs A, B, C ... ends in one
// set whose representative is the first DMA; each set becomes one wider DMA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace allocsim {

class MergeTracker {
 public:
  explicit MergeTracker(size_t n);
  size_t find(size_t x);
  // Joins the sets of a and b; the representative is the one with the lower index (the earlier DMA).
  void join(size_t a, size_t b);
  // Members of x's set, in index order.
  std::vector<size_t> members(size_t x);

 private:
  std::vector<size_t> parent_;
};

}  // namespace allocsim
