#include "alloc/dma_opt/merge_tracker.h"

#include <utility>

namespace allocsim {

MergeTracker::MergeTracker(size_t n) : parent_(n) {
  for (size_t i = 0; i < n; ++i) parent_[i] = i;
}

size_t MergeTracker::find(size_t x) {
  size_t root = x;
  while (parent_[root] != root) root = parent_[root];
  while (parent_[x] != root) x = std::exchange(parent_[x], root);  // path compression
  return root;
}

void MergeTracker::join(size_t a, size_t b) {
  a = find(a);
  b = find(b);
  if (a == b) return;
  if (b < a) std::swap(a, b);
  parent_[b] = a;
}

std::vector<size_t> MergeTracker::members(size_t x) {
  const size_t root = find(x);
  std::vector<size_t> out;
  for (size_t i = 0; i < parent_.size(); ++i)
    if (find(i) == root) out.push_back(i);
  return out;
}

}  // namespace allocsim
