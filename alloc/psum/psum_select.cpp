#include "alloc/psum/psum_select.h"

#include <stdexcept>

#include "ir/plant.h"

namespace allocsim {

std::optional<uint32_t> firstFitBank(const std::vector<bool>& occupied, uint32_t banks) {
  const size_t n = occupied.size();
  if (banks == 0) return n > 0 ? std::optional<uint32_t>(0) : std::nullopt;
  uint32_t run = 0;
  for (size_t b = 0; b < n; ++b) {
    run = occupied[b] ? 0 : run + 1;
    if (run == banks) return uint32_t(b + 1 - banks);
    if (ALLOCSIM_PLANT("psum_first_fit_resets_late") && occupied[b] && b + 1 < n) run = 0, ++b;
  }
  return std::nullopt;
}

void countPsumBanks(const Program& p, const PsumGraph& g, PsumSelection& s) {
  const uint32_t psum_size = p.arch.psum_banks;
  std::vector<bool> used(psum_size, false);
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (!s.base[i] || g.nodes[i].range.empty()) continue;
    for (uint32_t b = *s.base[i]; b < *s.base[i] + g.nodes[i].banks && b < psum_size; ++b) used[b] = true;
  }
  s.banks_used = 0;
  for (bool u : used) s.banks_used += u;
}

namespace {

// `s.banks_used` and `s.score` from its bases and spill cost.
void scorePsumSelection(const Program& p, const PsumGraph& g, PsumSelection& s) {
  const uint32_t psum_size = p.arch.psum_banks;
  countPsumBanks(p, g, s);
  s.score = s.spill_cost + double(s.banks_used) / double(psum_size + 1);
  if (ALLOCSIM_PLANT("psum_score_ignores_spill")) s.score = double(s.banks_used) / double(psum_size + 1);
}

}  // namespace

PsumSelection selectPsum(const Program& p, const PsumGraph& g, const std::vector<uint32_t>& stack) {
  const uint32_t psum_size = p.arch.psum_banks;
  const size_t n = g.nodes.size();
  PsumSelection s;
  s.base.assign(n, std::nullopt);
  for (uint32_t i = 0; i < n; ++i)
    if (g.nodes[i].pinned) s.base[i] = p.tensors[g.nodes[i].tensor].placement->bank;

  std::vector<bool> occupied(psum_size);
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    const uint32_t i = *it;
    if (s.base[i]) throw std::logic_error("PSUM select popped an allocated node");
    occupied.assign(psum_size, false);
    for (uint32_t j : g.neighbours[i]) {
      if (!s.base[j]) continue;
      if (*s.base[j] >= psum_size)
        throw std::logic_error("info[neighbor_index].address < PSUM_SIZE && \"bad PSUM address during select\"");
      const uint32_t held = ALLOCSIM_PLANT("psum_select_first_bank_only") ? 1 : g.nodes[j].banks;
      for (uint32_t b = *s.base[j]; b < *s.base[j] + held && b < psum_size; ++b) occupied[b] = true;
    }
    s.base[i] = firstFitBank(occupied, g.nodes[i].banks);
    if (!s.base[i]) {
      s.failed.push_back(i);  // " cannot allocate "
      s.spill_cost += g.nodes[i].cost;
    }
  }

  scorePsumSelection(p, g, s);
  return s;
}


}  // namespace allocsim
