#include "alloc/sbuf/sbuf_placement_policy.h"

#include <algorithm>
#include <cstdint>

#include "ir/plant.h"

namespace allocsim {

const char* sbufPolicyName(SbufPolicy p) {
  switch (p) {
    case SbufPolicy::FirstFit: return "first-fit";
    case SbufPolicy::BestFit: return "best-fit";
    case SbufPolicy::UpperLeft: return "upper-left";
    case SbufPolicy::LowestOffset: return "lowest-offset";
  }
  return "?";
}

namespace {

struct Gap {
  uint64_t offset = 0;  // aligned start
  uint64_t room = 0;    // free bytes from offset to the next obstacle (or the end of the partition)
  bool tail = false;    // no obstacle after it: the room runs to the end of the partition
};

uint64_t alignUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

// The free gaps of band [base, base + partitions) that hold `bytes`, in offset order, into `gaps`; `used` is
// scratch. Both are the caller's, reused over the bands (two heap allocations per band and node before).
void gapsOf(const Arch& arch, uint64_t base, uint32_t partitions, uint64_t bytes, const std::vector<SbufRect>& taken,
            std::vector<std::pair<uint64_t, uint64_t>>& used, std::vector<Gap>& gaps) {
  const uint64_t align = std::max<uint32_t>(arch.sbuf_align, 1);
  used.clear();  // [start, end)
  for (const SbufRect& r : taken)
    if (r.partitions > 0 && r.bytes > 0 && r.partition < base + partitions && base < uint64_t(r.partition) + r.partitions)
      used.push_back({r.offset, r.offset + r.bytes});
  std::sort(used.begin(), used.end());
  used.push_back({arch.sbuf_bytes, arch.sbuf_bytes});  // the end of the partition closes the last gap
  gaps.clear();
  uint64_t at = 0;
  for (const auto& [start, end] : used) {
    const uint64_t from = ALLOCSIM_PLANT("sbuf_gap_unaligned") ? at : alignUp(at, align);
    if (start > from && start - from >= bytes) gaps.push_back({from, start - from, start == arch.sbuf_bytes});
    at = std::max(at, end);
    if (at >= arch.sbuf_bytes) break;
  }
}

}  // namespace

std::optional<Placement> placeSbufRect(const Arch& arch, SbufPolicy policy, uint32_t partitions, uint64_t bytes,
                                       const std::vector<SbufRect>& taken) {
  if (policy == SbufPolicy::FirstFit) return firstFitSbuf(arch, partitions, bytes, taken);
  if (partitions == 0 || partitions > arch.sbuf_partitions || bytes == 0 || bytes > arch.sbuf_bytes)
    return std::nullopt;
  const uint64_t quantum =
      ALLOCSIM_PLANT("sbuf_partition_quantum_ignored") ? 1 : std::max<uint32_t>(arch.sbuf_partition_quantum, 1);
  std::optional<Placement> best;
  uint64_t best_room = 0;
  // Scratch of this thread, kept over calls: the colorer places every node of every round and heuristic, and
  // growing two vectors per call was the SBUF colorer's largest source of heap allocations.
  thread_local std::vector<std::pair<uint64_t, uint64_t>> used;
  thread_local std::vector<Gap> gaps;
  for (uint64_t base = 0; base + partitions <= arch.sbuf_partitions; base += quantum) {
    gapsOf(arch, base, partitions, bytes, taken, used, gaps);
    if (gaps.empty()) continue;
    Placement pl;
    pl.partition = uint32_t(base);
    if (policy == SbufPolicy::LowestOffset) {  // a later band wins only with a lower offset
      if (!best || gaps.front().offset < best->offset) {
        pl.offset = gaps.front().offset;
        best = pl;
      }
      continue;
    }
    if (policy == SbufPolicy::UpperLeft) {  // later bands replace earlier ones
      pl.offset = gaps.front().offset;
      best = pl;
      continue;
    }
    for (const Gap& g : gaps) {
      // The room after the last obstacle counts as unlimited: it is taken only when no gap between obstacles
      // holds the rectangle, so the choice does not depend on the capacity (sbuf_simplify.h plainSbufStack).
      const uint64_t room = g.tail ? UINT64_MAX : g.room;
      if (!best || room < best_room) {
        pl.offset = g.offset;
        best = pl;
        best_room = room;
      }
    }
  }
  return best;
}

}  // namespace allocsim
