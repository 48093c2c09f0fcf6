#include "alloc/first_fit.h"

#include <algorithm>

namespace allocsim {

bool overlaps(const SbufRect& a, const SbufRect& b) {
  bool rows = uint64_t(a.partition) < uint64_t(b.partition) + b.partitions &&
              uint64_t(b.partition) < uint64_t(a.partition) + a.partitions;
  bool cols = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
  return rows && cols && a.partitions > 0 && b.partitions > 0 && a.bytes > 0 && b.bytes > 0;
}

SbufRect sbufRect(const Tensor& t, const Placement& at) {
  return {at.partition, t.partitions, at.offset, t.bytesPerPartition()};
}

namespace {

uint64_t alignUp(uint64_t x, uint64_t align) { return (x + align - 1) / align * align; }

// The lowest aligned offset in [0, limit - bytes] where [offset, offset + bytes) meets none of `used`
// (byte intervals, sorted by start).
std::optional<uint64_t> firstGap(std::vector<Span>& used, uint64_t bytes, uint64_t align, uint64_t limit) {
  std::sort(used.begin(), used.end(), [](const Span& a, const Span& b) { return a.first < b.first; });
  uint64_t at = 0;
  for (const Span& u : used) {
    if (u.first >= at + bytes) break;  // the gap before u holds the rectangle
    at = std::max(at, alignUp(u.first + u.count, align));
    if (at > limit) return std::nullopt;
  }
  if (bytes > limit || at > limit - bytes) return std::nullopt;
  return at;
}

}  // namespace

std::optional<Placement> firstFitSbuf(const Arch& arch, uint32_t partitions, uint64_t bytes,
                                      const std::vector<SbufRect>& taken) {
  uint64_t quantum = std::max<uint32_t>(arch.sbuf_partition_quantum, 1);
  uint64_t align = std::max<uint32_t>(arch.sbuf_align, 1);
  if (partitions == 0 || partitions > arch.sbuf_partitions) return std::nullopt;
  thread_local std::vector<Span> used;  // scratch: the SBUF colorer's select places every node of every round
  for (uint64_t base = 0; base + partitions <= arch.sbuf_partitions; base += quantum) {
    used.clear();
    for (const SbufRect& r : taken)
      if (r.partitions > 0 && r.bytes > 0 && uint64_t(r.partition) < base + partitions &&
          base < uint64_t(r.partition) + r.partitions)
        used.push_back({r.offset, r.bytes});
    if (std::optional<uint64_t> at = firstGap(used, bytes, align, arch.sbuf_bytes)) {
      Placement pl;
      pl.partition = uint32_t(base);
      pl.offset = *at;
      return pl;
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> firstFitSpan(uint64_t capacity, uint64_t count, const std::vector<Span>& taken) {
  std::vector<Span> used;
  for (const Span& s : taken)
    if (s.count > 0) used.push_back(s);
  return firstGap(used, count, 1, capacity);
}

}  // namespace allocsim
