#include "alloc/recent_occupants.h"

#include <algorithm>

namespace allocsim {

RecentOccupants::RecentOccupants(const LinearOrder& order, std::vector<const LiveRange*> ranges)
    : order_(order), ranges_(std::move(ranges)) {
  for (uint32_t j = 0; j < ranges_.size(); ++j)
    if (ranges_[j] && !ranges_[j]->empty()) by_last_.push_back(j);
  std::sort(by_last_.begin(), by_last_.end(), [&](uint32_t a, uint32_t b) {
    return ranges_[a]->last != ranges_[b]->last ? ranges_[a]->last < ranges_[b]->last : a < b;
  });
}

std::vector<uint32_t> RecentOccupants::byFirst(std::vector<uint32_t> nodes) const {
  std::sort(nodes.begin(), nodes.end(), [&](uint32_t a, uint32_t b) {
    return ranges_[a]->first != ranges_[b]->first ? ranges_[a]->first < ranges_[b]->first : a < b;
  });
  return nodes;
}

void RecentOccupants::find(uint32_t i, uint32_t limit, std::vector<std::pair<uint64_t, uint32_t>>& near) const {
  near.clear();
  if (!ranges_[i] || ranges_[i]->empty()) return;
  const uint32_t from = ranges_[i]->first, to = ranges_[i]->last;
  int32_t outer = from < order_.positions.size() ? order_.positions[from].loop : -1;
  if (outer < 0) return;
  while (order_.loops[size_t(outer)].parent >= 0) outer = order_.loops[size_t(outer)].parent;
  const uint32_t header = order_.loops[size_t(outer)].header, end = order_.loops[size_t(outer)].end;
  if (to >= end) return;

  auto last = [&](uint32_t j) { return ranges_[j]->last; };
  // Earlier in this iteration: ranges that end before `from` and after the header, the latest `limit`.
  auto it = std::lower_bound(by_last_.begin(), by_last_.end(), from,
                             [&](uint32_t j, uint32_t pos) { return last(j) < pos; });
  for (auto k = it; k != by_last_.begin() && near.size() < limit;) {
    const uint32_t j = *--k;
    if (last(j) <= header) break;
    near.push_back({from - last(j), j});
  }
  // Around the back edge: ranges that start after `to` and end in the loop, the latest `limit` (looking at most
  // 2 * limit ranges back from the loop's end: those that end there but started earlier are skipped).
  const size_t before = near.size();
  auto e = std::lower_bound(by_last_.begin(), by_last_.end(), end,
                            [&](uint32_t j, uint32_t pos) { return last(j) < pos; });
  for (uint32_t steps = 0; e != by_last_.begin() && steps < 2 * limit && near.size() - before < limit; ++steps) {
    const uint32_t j = *--e;
    if (last(j) <= to) break;
    if (ranges_[j]->first > to) near.push_back({uint64_t(from - header) + (end - last(j)), j});
  }
  std::sort(near.begin(), near.end());
  if (near.size() > limit) near.resize(limit);
}

}  // namespace allocsim
