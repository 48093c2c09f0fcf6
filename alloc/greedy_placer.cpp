#include "alloc/greedy_placer.h"

#include <algorithm>
#include <functional>

#include "alloc/first_fit_placer.h"
#include "alloc/psum/psum_bank_model.h"
#include "alloc/liveness.h"

namespace allocsim {
namespace {

// The most that items live at one position of `ranges[self]` need together (`size` of each counted item; `self`
// alone when it is never live). A difference array over positions: linear in positions + items.
uint64_t peakDemand(const std::vector<LiveRange>& ranges, uint32_t self, const std::function<bool(uint32_t)>& counts,
                    const std::function<uint64_t(uint32_t)>& size) {
  const LiveRange& range = ranges[self];
  if (range.empty()) return size(self);
  std::vector<int64_t> delta(size_t(range.last) + 2, 0);
  for (uint32_t u = 0; u < ranges.size(); ++u) {
    if (!counts(u) || !interferes(ranges[u], range)) continue;
    delta[std::max(ranges[u].first, range.first)] += int64_t(size(u));
    delta[size_t(std::min(ranges[u].last, range.last)) + 1] -= int64_t(size(u));
  }
  int64_t live = 0, peak = 0;
  for (uint32_t pos = 0; pos <= range.last; ++pos) {
    live += delta[pos];
    if (pos >= range.first) peak = std::max(peak, live);
  }
  return uint64_t(peak);
}

std::string where(const LiveRange& r) {
  if (r.empty()) return " (it is never live)";
  return " at positions " + std::to_string(r.first) + ".." + std::to_string(r.last) + " of the linear order";
}

}  // namespace

Program placeGreedy(const Program& p) {
  Liveness live = computeLiveness(p);
  const auto& tr = live.tensors;
  const auto& rr = live.registers;
  auto key = [](const LiveRange& r) { return r.empty() ? uint64_t(UINT64_MAX) : uint64_t(r.first); };
  FirstFitPolicy policy;
  policy.tensor_key = [&](TensorId t) { return key(tr[t]); };
  policy.register_key = [&](RegId r) { return key(rr[r]); };
  policy.tensors_conflict = [&](TensorId a, TensorId b) { return interferes(tr[a], tr[b]); };
  policy.registers_conflict = [&](RegId a, RegId b) { return interferes(rr[a], rr[b]); };
  policy.tensor_shortage = [&](TensorId t) {
    Space space = p.tensors[t].space;
    auto counts = [&](uint32_t u) { return p.tensors[u].space == space; };
    if (space == Space::Sbuf) {
      const Tensor& x = p.tensors[t];
      uint64_t peak = peakDemand(tr, t, counts, [&](uint32_t u) {
        return uint64_t(p.tensors[u].partitions) * p.tensors[u].bytesPerPartition();
      });
      return " (greedy placement, no spilling): no free " + std::to_string(x.partitions) + "-partition x " +
             std::to_string(x.bytesPerPartition()) + "-byte rectangle" + where(tr[t]) + "; tensors live there need up to " +
             std::to_string(peak) + " bytes (partitions x bytes per partition), SBUF has " +
             std::to_string(uint64_t(p.arch.sbuf_partitions) * p.arch.sbuf_bytes) + " (" +
             std::to_string(p.arch.sbuf_partitions) + " partitions x " + std::to_string(p.arch.sbuf_bytes) + " bytes)";
    }
    uint64_t peak = peakDemand(tr, t, counts, [&](uint32_t u) { return psumBanksOf(p.arch, p.tensors[u]); });
    return " (greedy placement, no spilling)" + where(tr[t]) + ": tensors live there need up to " +
           std::to_string(peak) + " banks, PSUM has " + std::to_string(p.arch.psum_banks);
  };
  policy.register_shortage = [&](RegId r) {
    uint64_t peak = peakDemand(
        rr, r, [](uint32_t) { return true; }, [&](uint32_t u) { return uint64_t(p.registers[u].lanes()); });
    return " (greedy placement, no spilling)" + where(rr[r]) + ": registers live there need up to " +
           std::to_string(peak) + " lanes, the machine has " + std::to_string(p.arch.sp_registers);
  };
  return placeFirstFit(p, policy);
}

}  // namespace allocsim
