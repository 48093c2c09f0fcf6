#include "alloc/register_lanes.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/first_fit.h"
#include "alloc/first_fit_placer.h"
#include "alloc/liveness.h"

namespace allocsim {
namespace {

// The most lanes that registers live at one position of `self`'s range need together.
uint64_t peakLanes(const Program& p, const std::vector<LiveRange>& ranges, RegId self) {
  const LiveRange& range = ranges[self];
  if (range.empty()) return p.registers[self].lanes();
  std::vector<int64_t> delta(size_t(range.last) + 2, 0);
  for (RegId u = 0; u < ranges.size(); ++u) {
    if (!interferes(ranges[u], range)) continue;
    delta[std::max(ranges[u].first, range.first)] += p.registers[u].lanes();
    delta[size_t(std::min(ranges[u].last, range.last)) + 1] -= p.registers[u].lanes();
  }
  int64_t live = 0, peak = 0;
  for (uint32_t pos = 0; pos <= range.last; ++pos) {
    live += delta[pos];
    if (pos >= range.first) peak = std::max(peak, live);
  }
  return uint64_t(peak);
}

}  // namespace

AllocReport placeRegisterLanes(Program& p, const std::vector<bool>& keep) {
  const Liveness live = computeLiveness(p);
  const auto& ranges = live.registers;
  auto kept = [&](RegId r) { return r < keep.size() && keep[r] && p.registers[r].phys.has_value(); };
  std::vector<RegId> order(p.registers.size());
  std::iota(order.begin(), order.end(), 0u);
  auto key = [&](RegId r) { return ranges[r].empty() ? uint64_t(UINT64_MAX) : uint64_t(ranges[r].first); };
  std::stable_sort(order.begin(), order.end(), [&](RegId a, RegId b) { return key(a) < key(b); });

  std::vector<RegId> placed;
  for (RegId r = 0; r < p.registers.size(); ++r)
    if (kept(r)) placed.push_back(r);
  uint64_t kept_count = placed.size();
  std::vector<bool> used(p.arch.sp_registers, false);
  for (RegId r : order) {
    if (kept(r)) continue;
    Register& x = p.registers[r];
    std::vector<Span> taken;
    for (RegId u : placed)
      if (interferes(ranges[r], ranges[u])) taken.push_back({*p.registers[u].phys, p.registers[u].lanes()});
    std::optional<uint64_t> lane = firstFitSpan(p.arch.sp_registers, x.lanes(), taken);
    if (!lane)
      throw AllocError(x.loc, describeRegister(p, r) +
                                  " does not fit in the SP registers (greedy lane placement, no spilling: the REG "
                                  "colorer is not implemented yet): registers live with it need up to " +
                                  std::to_string(peakLanes(p, ranges, r)) + " lanes, the machine has " +
                                  std::to_string(p.arch.sp_registers));
    x.phys = uint32_t(*lane);
    placed.push_back(r);
  }
  for (const Register& x : p.registers)
    if (x.phys)
      for (uint64_t l = *x.phys; l < uint64_t(*x.phys) + x.lanes() && l < used.size(); ++l) used[l] = true;
  const int64_t lanes_used = std::count(used.begin(), used.end(), true);

  AllocReport r;
  r.line("REG: greedy lane placement (the REG colorer is a later issue): " + std::to_string(p.registers.size()) +
         " registers (" + std::to_string(kept_count) + " kept), " + std::to_string(lanes_used) + " of " +
         std::to_string(p.arch.sp_registers) + " lanes used");
  r.set("reg.method", std::string("greedy"));
  r.set("reg.registers", int64_t(p.registers.size()));
  r.set("reg.kept", int64_t(kept_count));
  r.set("reg.lanes_used", lanes_used);
  r.set("reg.lanes", int64_t(p.arch.sp_registers));
  return r;
}

}  // namespace allocsim
