#include "alloc/sbuf/sbuf_recent_bytes.h"

#include <algorithm>
#include <vector>

namespace allocsim {

uint32_t keepRecentBytesApart(const Program& p, const SbufGraph& g, const LinearOrder& order, SbufPolicy policy,
                              SbufSelection& s) {
  if (!s.failed.empty()) return 0;
  const Arch& arch = p.arch;
  const size_t n = g.nodes.size();
  auto rectOf = [&](uint32_t i) {
    return SbufRect{s.at[i]->partition, g.nodes[i].partitions, s.at[i]->offset, g.nodes[i].bytes};
  };
  auto live = [&](uint32_t i) { return s.at[i] && !g.nodes[i].range.empty(); };

  // The ceiling: per partition, the selection's high-water mark; the bytes above it as obstacles, one rectangle
  // per run of partitions with the same mark.
  std::vector<uint64_t> high(arch.sbuf_partitions, 0);
  for (uint32_t i = 0; i < n; ++i)
    if (live(i)) {
      const SbufRect r = rectOf(i);
      for (uint64_t q = r.partition; q < uint64_t(r.partition) + r.partitions && q < high.size(); ++q)
        high[q] = std::max(high[q], r.offset + r.bytes);
    }
  std::vector<SbufRect> ceiling;
  for (uint32_t q = 0; q < arch.sbuf_partitions;) {
    uint32_t r = q;
    while (r < arch.sbuf_partitions && high[r] == high[q]) ++r;
    if (high[q] < arch.sbuf_bytes) ceiling.push_back({q, r - q, high[q], arch.sbuf_bytes - high[q]});
    q = r;
  }

  std::vector<uint32_t> by_last, by_first;
  for (uint32_t i = 0; i < n; ++i)
    if (live(i)) {
      by_last.push_back(i);
      const Origin origin = p.tensors[g.nodes[i].tensor].origin;
      if (!g.nodes[i].fixed && origin != Origin::Spill && origin != Origin::Reload) by_first.push_back(i);
    }
  std::sort(by_last.begin(), by_last.end(), [&](uint32_t a, uint32_t b) {
    return g.nodes[a].range.last != g.nodes[b].range.last ? g.nodes[a].range.last < g.nodes[b].range.last : a < b;
  });
  std::sort(by_first.begin(), by_first.end(), [&](uint32_t a, uint32_t b) {
    return g.nodes[a].range.first != g.nodes[b].range.first ? g.nodes[a].range.first < g.nodes[b].range.first
                                                            : a < b;
  });

  uint32_t moved = 0;
  std::vector<std::pair<uint64_t, uint32_t>> near;  // (distance, node)
  std::vector<SbufRect> recent, taken;              // recent: nearest first
  for (uint32_t i : by_first) {
    const SbufNode& node = g.nodes[i];
    const uint32_t from = node.range.first, to = node.range.last;
    int32_t outer = from < order.positions.size() ? order.positions[from].loop : -1;
    if (outer < 0) continue;
    while (order.loops[size_t(outer)].parent >= 0) outer = order.loops[size_t(outer)].parent;
    const uint32_t header = order.loops[size_t(outer)].header, end = order.loops[size_t(outer)].end;
    if (to >= end) continue;  // live past the loop: its bytes are not the loop's to trade

    // Ranges that end before `from` (this iteration) or start after `to` and end in the loop (the iteration
    // before, around the back edge) do not interfere with this node's. The latest of each, at most kRecentOccupants.
    near.clear();
    auto it = std::lower_bound(by_last.begin(), by_last.end(), from,
                               [&](uint32_t j, uint32_t pos) { return g.nodes[j].range.last < pos; });
    for (auto k = it; k != by_last.begin() && near.size() < kRecentOccupants;) {
      const uint32_t j = *--k;
      if (g.nodes[j].range.last <= header) break;
      near.push_back({from - g.nodes[j].range.last, j});
    }
    const size_t before = near.size();
    auto e = std::lower_bound(by_last.begin(), by_last.end(), end,
                              [&](uint32_t j, uint32_t pos) { return g.nodes[j].range.last < pos; });
    for (uint32_t steps = 0; e != by_last.begin() && steps < 2 * kRecentOccupants &&
                             near.size() - before < kRecentOccupants;
         ++steps) {
      const uint32_t j = *--e;
      if (g.nodes[j].range.last <= to) break;
      if (g.nodes[j].range.first > to) near.push_back({uint64_t(from - header) + (end - g.nodes[j].range.last), j});
    }
    std::sort(near.begin(), near.end());
    if (near.size() > kRecentOccupants) near.resize(kRecentOccupants);

    recent.clear();
    bool clash = false;
    const SbufRect mine = rectOf(i);
    for (const auto& [distance, j] : near) {
      recent.push_back(rectOf(j));
      clash = clash || overlaps(recent.back(), mine);
    }
    if (!clash) continue;

    taken.clear();
    for (uint32_t j : g.neighbours[i])
      if (s.at[j]) taken.push_back(rectOf(j));
    taken.insert(taken.end(), ceiling.begin(), ceiling.end());
    const size_t base = taken.size();
    for (size_t keep = recent.size(); keep > 0; keep /= 2) {
      // Only the nearest `keep` count; stop at the first list the current place already avoids.
      if (std::none_of(recent.begin(), recent.begin() + ptrdiff_t(keep),
                       [&](const SbufRect& r) { return overlaps(r, mine); }))
        break;
      taken.resize(base);
      taken.insert(taken.end(), recent.begin(), recent.begin() + ptrdiff_t(keep));
      if (std::optional<Placement> pl = placeSbufRect(arch, policy, node.partitions, node.bytes, taken)) {
        s.at[i] = *pl;
        ++moved;
        break;
      }
    }
  }
  return moved;
}

}  // namespace allocsim
