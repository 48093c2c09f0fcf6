#include "verify/footprint.h"

#include <algorithm>
#include <numeric>

namespace allocsim {

Footprint intersection(const Footprint& a, const Footprint& b) {
  Footprint f;
  f.lo = std::max(a.lo, b.lo);
  f.hi = std::max(f.lo, std::min(a.hi, b.hi));
  f.part_lo = std::max(a.part_lo, b.part_lo);
  f.part_hi = std::max(f.part_lo, std::min(a.part_hi, b.part_hi));
  return f;
}

bool isEmpty(const Footprint& f) { return f.lo >= f.hi || f.part_lo >= f.part_hi; }

std::vector<std::pair<uint32_t, uint32_t>> intersectingPairs(const std::vector<Footprint>& fps) {
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < fps.size(); ++i)
    if (!isEmpty(fps[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return fps[a].lo != fps[b].lo ? fps[a].lo < fps[b].lo : a < b;
  });
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  std::vector<uint32_t> open;  // footprints whose primary range may still reach the sweep position
  for (uint32_t i : order) {
    const Footprint& f = fps[i];
    std::erase_if(open, [&](uint32_t o) { return fps[o].hi <= f.lo; });
    for (uint32_t o : open)
      if (!isEmpty(intersection(fps[o], f))) pairs.emplace_back(std::min(o, i), std::max(o, i));
    open.push_back(i);
  }
  return pairs;
}

}  // namespace allocsim
