#include "verify/live_overlaps.h"

#include <algorithm>
#include <unordered_set>

namespace allocsim {

std::vector<LiveOverlap> liveOverlaps(const std::vector<Footprint>& fps, const std::vector<LiveIntervals>& live) {
  struct Open {
    uint32_t fp;
    StepInterval iv;
  };
  std::vector<Open> events;
  for (uint32_t f = 0; f < fps.size(); ++f)
    if (!isEmpty(fps[f]) && fps[f].item < live.size())
      for (const StepInterval& iv : live[fps[f].item].intervals()) events.push_back({f, iv});
  std::sort(events.begin(), events.end(), [](const Open& x, const Open& y) {
    return x.iv.lo != y.iv.lo ? x.iv.lo < y.iv.lo : x.fp < y.fp;
  });

  std::vector<LiveOverlap> out;
  std::unordered_set<uint64_t> reported;  // first << 32 | second
  std::vector<Open> open;                 // intervals that may still contain the sweep's step
  for (const Open& e : events) {
    // Both intervals contain e.iv.lo (the open one began no later and has not ended), and every earlier common
    // step of the pair would have been found when the later of its two intervals opened.
    for (size_t k = 0; k < open.size();) {
      if (open[k].iv.hi < e.iv.lo) {
        open[k] = open.back();
        open.pop_back();
        continue;
      }
      const Open& o = open[k++];
      if (isEmpty(intersection(fps[o.fp], fps[e.fp]))) continue;
      const uint32_t first = std::min(o.fp, e.fp), second = std::max(o.fp, e.fp);
      if (!reported.insert(uint64_t(first) << 32 | second).second) continue;
      const StepInterval& a = first == e.fp ? e.iv : o.iv;
      const StepInterval& b = first == e.fp ? o.iv : e.iv;
      out.push_back({first, second, CommonStep{e.iv.lo, a, b}});
    }
    open.push_back(e);
  }
  return out;
}

}  // namespace allocsim
