#include "alloc/exact/canonical_timeline.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace allocsim {

void canonicalizeTimeline(std::vector<ExactItem>& items) {
  // (position, kind): bit 0 = some item starts there, bit 1 = some item ends there.
  std::vector<std::pair<uint32_t, uint8_t>> marks;
  for (const ExactItem& it : items)
    forEachExactSegment(it, [&](uint32_t first, uint32_t last) {
      marks.push_back({first, 1});
      marks.push_back({last, 2});
    });
  std::sort(marks.begin(), marks.end());
  std::vector<std::pair<uint32_t, uint8_t>> points;  // distinct positions with their kinds or-ed
  for (auto [pos, kind] : marks) {
    if (!points.empty() && points.back().first == pos) points.back().second |= kind;
    else points.push_back({pos, kind});
  }
  std::vector<uint32_t> coord(points.size(), 0);
  for (size_t k = 1; k < points.size(); ++k) {
    const auto [pos, kind] = points[k];
    const auto [prev_pos, prev_kind] = points[k - 1];
    const bool one_run = pos == prev_pos + 1 && kind == prev_kind && kind != 3;  // 3: a start and an end: no run
    coord[k] = coord[k - 1] + (one_run ? 0 : pos - prev_pos);
  }
  auto at = [&](uint32_t pos) {
    return coord[size_t(std::lower_bound(points.begin(), points.end(), std::pair<uint32_t, uint8_t>{pos, 0}) -
                        points.begin())];
  };
  for (ExactItem& it : items) {
    it.first = at(it.first);
    it.last = at(it.last);
    for (auto& [first, last] : it.segments) first = at(first), last = at(last);
  }
}

}  // namespace allocsim
