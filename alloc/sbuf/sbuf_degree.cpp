#include "alloc/sbuf/sbuf_degree.h"

#include <algorithm>
#include <limits>

namespace allocsim {
namespace {

uint64_t starts(uint64_t room, uint64_t size, uint64_t step) { return size > room ? 0 : (room - size) / step + 1; }
uint64_t ceilDiv(uint64_t x, uint64_t d) { return (x + d - 1) / d; }
uint64_t quantum(const Arch& a) { return std::max<uint64_t>(a.sbuf_partition_quantum, 1); }
uint64_t align(const Arch& a) { return std::max<uint64_t>(a.sbuf_align, 1); }

}  // namespace

uint64_t sbufPossiblePlacements(const Arch& arch, const SbufNode& i) {
  return starts(arch.sbuf_partitions, i.partitions, quantum(arch)) * starts(arch.sbuf_bytes, i.bytes, align(arch));
}

uint64_t sbufImpact(const Arch& arch, const SbufNode& i, const SbufNode& j) {
  if (i.partitions == 0 || j.partitions == 0 || i.bytes == 0 || j.bytes == 0) return 0;
  const uint64_t rows = starts(arch.sbuf_partitions, i.partitions, quantum(arch));
  const uint64_t cols = starts(arch.sbuf_bytes, i.bytes, align(arch));
  const uint64_t vertical = std::min(rows, ceilDiv(uint64_t(i.partitions) + j.partitions - 1, quantum(arch)));
  const uint64_t span = std::min(cols, ceilDiv(i.bytes + j.bytes - 1, align(arch)));
  return vertical * span;
}

int64_t sbufFreePlacements(const Arch& arch, const SbufGraph& g, uint32_t i) {
  // Both terms are below 2^34 (P <= 1024, S <= 2^24), so the sum cannot overflow for any sane graph; saturate
  // anyway rather than wrap.
  int64_t k = int64_t(sbufPossiblePlacements(arch, g.nodes[i]));
  for (uint32_t j : g.neighbours[i]) {
    k -= int64_t(sbufImpact(arch, g.nodes[i], g.nodes[j]));
    if (k < std::numeric_limits<int64_t>::min() / 2) break;
  }
  return k;
}

}  // namespace allocsim
