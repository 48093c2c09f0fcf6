#include "alloc/sbuf/sbuf_footprint.h"

#include <algorithm>

namespace allocsim {

uint64_t sbufFootprintBytes(const Arch& arch, const std::vector<SbufRect>& rects) {
  // Scratch of this thread: every SBUF selection round measures its footprint.
  thread_local std::vector<uint64_t> high;
  high.assign(arch.sbuf_partitions, 0);
  for (const SbufRect& r : rects) {
    if (r.bytes == 0) continue;
    for (uint64_t q = r.partition; q < uint64_t(r.partition) + r.partitions && q < high.size(); ++q)
      high[q] = std::max(high[q], r.offset + r.bytes);
  }
  uint64_t sum = 0;
  for (uint64_t h : high) sum += h;
  return sum;
}

uint64_t sbufFootprintBytes(const Program& p) {
  std::vector<SbufRect> rects;
  for (const Tensor& t : p.tensors)
    if (t.space == Space::Sbuf && t.placement) rects.push_back(sbufRect(t, *t.placement));
  return sbufFootprintBytes(p.arch, rects);
}

}  // namespace allocsim
