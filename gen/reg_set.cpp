#include "gen/reg_set.h"

namespace allocsim::gen {

void RegSet::grow(size_t n) {
  size_t cap = tree_.size() > 1 ? tree_.size() - 1 : 64;
  while (cap < n) cap *= 2;
  in_.resize(cap, 0);
  // Rebuild in O(cap): each node adds itself to its parent.
  tree_.assign(cap + 1, 0);
  for (size_t i = 1; i <= cap; ++i) {
    tree_[i] += in_[i - 1];
    const size_t parent = i + (i & (~i + 1));
    if (parent <= cap) tree_[parent] += tree_[i];
  }
}

void RegSet::add(RegId r, int32_t delta) {
  for (size_t i = size_t(r) + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += uint32_t(delta);
}

void RegSet::set(RegId r, bool member) {
  if (contains(r) == member) return;
  if (r >= in_.size()) grow(size_t(r) + 1);
  in_[r] = member;
  add(r, member ? 1 : -1);
  count_ += member ? 1 : uint32_t(-1);
}

RegId RegSet::kth(uint32_t k) const {
  // Binary lifting: the largest prefix with at most k members ends just before the k-th.
  size_t pos = 0;
  for (size_t step = (tree_.size() - 1); step > 0; step >>= 1)
    if (pos + step < tree_.size() && tree_[pos + step] <= k) {
      pos += step;
      k -= tree_[pos];
    }
  return RegId(pos);
}

}  // namespace allocsim::gen
