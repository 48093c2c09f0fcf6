#include "alloc/psum/psum_recent_banks.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "alloc/recent_occupants.h"

namespace allocsim {

uint32_t keepRecentBanksApart(const Program& p, const PsumGraph& g, const LinearOrder& order, PsumSelection& s) {
  if (!s.failed.empty()) return 0;
  const uint32_t banks = p.arch.psum_banks;
  const size_t n = g.nodes.size();
  std::vector<const LiveRange*> ranges(n, nullptr);
  std::vector<uint32_t> movable;
  for (uint32_t i = 0; i < n; ++i) {
    if (!s.base[i] || g.nodes[i].range.empty()) continue;
    ranges[i] = &g.nodes[i].range;
    const Origin origin = p.tensors[g.nodes[i].tensor].origin;
    if (!g.nodes[i].pinned && origin != Origin::Spill && origin != Origin::Reload) movable.push_back(i);
  }
  const RecentOccupants occupants(order, std::move(ranges));

  constexpr uint64_t kNoOccupant = std::numeric_limits<uint64_t>::max();
  uint32_t moved = 0;
  std::vector<std::pair<uint64_t, uint32_t>> near;
  std::vector<bool> occupied(banks);
  std::vector<uint64_t> nearest(banks);  // per bank: the distance of its nearest recent occupant
  for (uint32_t i : occupants.byFirst(std::move(movable))) {
    const PsumNode& node = g.nodes[i];
    if (node.banks == 0 || node.banks > banks) continue;
    occupants.find(i, kRecentBankOccupants, near);
    if (near.empty()) continue;
    nearest.assign(banks, kNoOccupant);
    for (const auto& [distance, j] : near)
      for (uint32_t b = *s.base[j]; b < *s.base[j] + g.nodes[j].banks && b < banks; ++b)
        nearest[b] = std::min(nearest[b], distance);
    occupied.assign(banks, false);
    for (uint32_t j : g.neighbours[i])
      if (s.base[j])
        for (uint32_t b = *s.base[j]; b < *s.base[j] + g.nodes[j].banks && b < banks; ++b) occupied[b] = true;
    // A window's score: the distance of the nearest recent occupant of one of its banks (larger is better).
    auto score = [&](uint32_t base) {
      uint64_t d = kNoOccupant;
      for (uint32_t b = base; b < base + node.banks; ++b) d = std::min(d, nearest[b]);
      return d;
    };
    const uint32_t here = *s.base[i];
    uint32_t best = here;
    uint64_t best_score = score(here);
    for (uint32_t base = 0; base + node.banks <= banks; ++base) {
      bool free = true;
      for (uint32_t b = base; b < base + node.banks && free; ++b) free = !occupied[b];
      if (!free) continue;
      const uint64_t d = score(base);
      if (d > best_score) best = base, best_score = d;
    }
    if (best != here) {
      s.base[i] = best;
      ++moved;
    }
  }
  return moved;
}

}  // namespace allocsim
