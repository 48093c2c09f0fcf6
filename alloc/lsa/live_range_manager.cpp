#include "alloc/lsa/live_range_manager.h"

#include <algorithm>

#include "alloc/lsa/best_fit_memory_manager.h"
#include "alloc/operand_effects.h"
#include "ir/plant.h"

namespace allocsim {

bool liveSetComparator(const ActiveEntry& a, const ActiveEntry& b) {
  if (a.end != b.end) return a.end > b.end;
  if (*a.name != *b.name) return *a.name < *b.name;
  if (a.in_instruction != b.in_instruction) return a.in_instruction;
  if (a.size != b.size) return a.size < b.size;
  return a.tensor < b.tensor;
}

LiveRangeManager::LiveRangeManager(const Program& p, const Liveness& live, Space space, const std::vector<bool>& mine)
    : p_(p), live_(live) {
  for (TensorId t = 0; t < p.tensors.size() && t < mine.size(); ++t) {
    if (!mine[t] || p.tensors[t].space != space || t >= live.tensors.size() || live.tensors[t].empty()) continue;
    intervals_.push_back({t, live.tensors[t], BestFitMemoryManager::requestOf(p.arch, p.tensors[t]).area()});
  }
  std::sort(intervals_.begin(), intervals_.end(), [](const LsaInterval& a, const LsaInterval& b) {
    return a.range.first != b.range.first ? a.range.first < b.range.first : a.tensor < b.tensor;
  });
}

std::vector<LsaInterval> LiveRangeManager::expireBefore(uint32_t pos) {
  std::vector<LsaInterval> gone;
  auto keep = std::stable_partition(active_.begin(), active_.end(),
                                    [&](const LsaInterval& iv) {
                                      return ALLOCSIM_PLANT("lsa_expires_at_last_use") ? iv.range.last > pos
                                                                                       : iv.range.last >= pos;
                                    });
  gone.assign(keep, active_.end());
  active_.erase(keep, active_.end());
  return gone;
}

bool LiveRangeManager::mentions(uint32_t pos, TensorId t) const {
  if (pos >= live_.order.positions.size()) return false;
  const LinearPosition& at = live_.order.positions[pos];
  if (at.kind != LinearPosition::Kind::Instruction || !at.inst) return false;
  static thread_local OperandEffects e;  // asked per active tensor at every spill decision: kept, not reallocated
  operandEffects(p_, *at.inst, e);
  if (std::find(e.tensor_reads.begin(), e.tensor_reads.end(), t) != e.tensor_reads.end()) return true;
  for (const TensorWrite& w : e.tensor_writes)
    if (w.tensor == t) return true;
  return false;
}

uint32_t LiveRangeManager::nextRead(uint32_t pos, TensorId t) const {
  const auto& positions = live_.order.positions;
  thread_local OperandEffects e;  // the thread's: its vectors keep their room over the scan and the next ones
  for (uint32_t q = pos; q < positions.size(); ++q) {
    const LinearPosition& at = positions[q];
    if (at.kind != LinearPosition::Kind::Instruction || !at.inst || !at.executes) continue;
    operandEffects(p_, *at.inst, e);
    if (std::find(e.tensor_reads.begin(), e.tensor_reads.end(), t) != e.tensor_reads.end()) return q;
  }
  return kNone;
}

std::vector<ActiveEntry> LiveRangeManager::sorted(uint32_t pos) const {
  std::vector<ActiveEntry> out;
  for (const LsaInterval& iv : active_)
    out.push_back({iv.tensor, iv.range.last, &p_.tensors[iv.tensor].name, mentions(pos, iv.tensor), iv.size});
  std::sort(out.begin(), out.end(), liveSetComparator);
  return out;
}

}  // namespace allocsim
