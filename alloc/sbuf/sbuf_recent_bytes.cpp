#include "alloc/sbuf/sbuf_recent_bytes.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "alloc/recent_occupants.h"

namespace allocsim {

namespace {

// Each partition's high-water mark in `s` (a selection without failures).
std::vector<uint64_t> highWaterMarks(const Arch& arch, const SbufGraph& g, const SbufSelection& s) {
  std::vector<uint64_t> high(arch.sbuf_partitions, 0);
  for (uint32_t i = 0; i < g.nodes.size(); ++i)
    if (s.at[i] && !g.nodes[i].range.empty()) {
      const uint64_t first = s.at[i]->partition, end = first + g.nodes[i].partitions;
      for (uint64_t q = first; q < end && q < high.size(); ++q)
        high[q] = std::max(high[q], s.at[i]->offset + g.nodes[i].bytes);
    }
  return high;
}

// The pass of keepRecentBytesApart below the per-partition ceiling `high`, moving only the nodes `may_move` allows
// (null: every node it may move at all).
uint32_t moveApart(const Program& p, const SbufGraph& g, const LinearOrder& order, SbufPolicy policy,
                   const std::vector<uint64_t>& high, const std::vector<bool>* may_move, SbufSelection& s) {
  const Arch& arch = p.arch;
  const size_t n = g.nodes.size();
  auto rectOf = [&](uint32_t i) {
    return SbufRect{s.at[i]->partition, g.nodes[i].partitions, s.at[i]->offset, g.nodes[i].bytes};
  };
  auto live = [&](uint32_t i) { return s.at[i] && !g.nodes[i].range.empty(); };

  // The bytes above the ceiling as obstacles, one rectangle per run of partitions with the same mark.
  std::vector<SbufRect> ceiling;
  for (uint32_t q = 0; q < arch.sbuf_partitions;) {
    uint32_t r = q;
    while (r < arch.sbuf_partitions && high[r] == high[q]) ++r;
    if (high[q] < arch.sbuf_bytes) ceiling.push_back({q, r - q, high[q], arch.sbuf_bytes - high[q]});
    q = r;
  }

  std::vector<const LiveRange*> ranges(n, nullptr);
  std::vector<uint32_t> movable;
  for (uint32_t i = 0; i < n; ++i)
    if (live(i)) {
      ranges[i] = &g.nodes[i].range;
      const Origin origin = p.tensors[g.nodes[i].tensor].origin;
      if (!g.nodes[i].fixed && origin != Origin::Spill && origin != Origin::Reload && (!may_move || (*may_move)[i]))
        movable.push_back(i);
    }
  const RecentOccupants occupants(order, std::move(ranges));

  uint32_t moved = 0;
  std::vector<std::pair<uint64_t, uint32_t>> near;  // (distance, node), nearest first
  std::vector<SbufRect> recent, taken;              // recent: nearest first
  std::vector<size_t> cuts;
  for (uint32_t i : occupants.byFirst(std::move(movable))) {
    const SbufNode& node = g.nodes[i];
    occupants.find(i, kRecentOccupants, near);
    if (near.empty()) continue;

    recent.clear();
    const SbufRect mine = rectOf(i);
    // `avoided`: how many of the nearest the current place avoids (it overlaps the next one, if any).
    size_t avoided = near.size();
    for (size_t k = 0; k < near.size(); ++k) {
      recent.push_back(rectOf(near[k].second));
      if (avoided == near.size() && overlaps(recent.back(), mine)) avoided = k;
    }
    if (avoided == near.size()) continue;

    // The cuts: list lengths that end between two distances (occupants freed at the same distance are avoided
    // together or not at all). Avoiding the nearest k is possible whenever avoiding more is, so the longest list
    // a place avoids is found by bisection over the cuts longer than `avoided`.
    cuts.clear();
    for (size_t k = avoided + 1; k <= near.size(); ++k)
      if (k == near.size() || near[k].first != near[k - 1].first) cuts.push_back(k);
    taken.clear();
    for (uint32_t j : g.neighbours[i])
      if (s.at[j]) taken.push_back(rectOf(j));
    taken.insert(taken.end(), ceiling.begin(), ceiling.end());
    const size_t base = taken.size();
    std::optional<Placement> best;
    size_t lo = 0, hi = cuts.size();  // cuts[0, lo) are known to be placeable, cuts[hi, ...) not
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      taken.resize(base);
      taken.insert(taken.end(), recent.begin(), recent.begin() + ptrdiff_t(cuts[mid]));
      if (std::optional<Placement> pl = placeSbufRect(arch, policy, node.partitions, node.bytes, taken)) {
        best = pl;
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo > 0) {  // `best` is the place found for cuts[lo - 1], the last success of the bisection
      s.at[i] = *best;
      ++moved;
    }
  }
  return moved;
}

}  // namespace

uint32_t keepRecentBytesApart(const Program& p, const SbufGraph& g, const LinearOrder& order, SbufPolicy policy,
                              SbufCeiling ceiling, SbufSelection& s) {
  if (!s.failed.empty()) return 0;
  std::vector<uint64_t> high = highWaterMarks(p.arch, g, s);
  if (ceiling == SbufCeiling::Peak && !high.empty())
    high.assign(high.size(), *std::max_element(high.begin(), high.end()));
  return moveApart(p, g, order, policy, high, nullptr, s);
}

uint64_t loadHeadroomLimit(const Arch& arch, const SbufGraph& g, uint32_t pct) {
  const uint64_t parts = std::max<uint64_t>(arch.sbuf_partitions, 1);
  return (g.max_live + parts - 1) / parts * (100 + uint64_t(pct)) / 100;
}

uint32_t keepLoadsApart(const Program& p, const SbufGraph& g, const LinearOrder& order, SbufPolicy policy,
                        uint64_t limit, SbufSelection& s) {
  if (!s.failed.empty()) return 0;
  std::vector<uint64_t> high = highWaterMarks(p.arch, g, s);
  const uint64_t peak = high.empty() ? 0 : *std::max_element(high.begin(), high.end());
  limit = std::min<uint64_t>(limit, p.arch.sbuf_bytes);
  if (limit <= peak) return 0;
  // The destinations of loads: SBUF tensors a DMA writes from DRAM.
  std::vector<bool> loaded(p.tensors.size(), false);
  forEachInstruction(p.body, [&](const Instruction& inst) {
    if (inst.op == Op::Dma && inst.dst.tensor < p.tensors.size() && inst.a.tensor < p.tensors.size() &&
        p.tensors[inst.a.tensor].space == Space::Dram && p.tensors[inst.dst.tensor].space == Space::Sbuf)
      loaded[inst.dst.tensor] = true;
  });
  std::vector<bool> may_move(g.nodes.size(), false);
  bool any = false;
  for (uint32_t i = 0; i < g.nodes.size(); ++i) any |= may_move[i] = loaded[g.nodes[i].tensor];
  if (!any) return 0;
  high.assign(high.size(), limit);
  return moveApart(p, g, order, policy, high, &may_move, s);
}

}  // namespace allocsim
