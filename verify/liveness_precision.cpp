#include "verify/liveness_precision.h"

#include <algorithm>
#include <map>

#include "alloc/liveness.h"
#include "ir/interp.h"
#include "alloc/psum/psum_bank_model.h"
#include "verify/dynamic_liveness.h"

namespace allocsim {
namespace {

// The weight a tensor adds while live: SBUF bytes per partition, or PSUM banks; 0 for DRAM.
uint64_t weight(const Program& p, const Tensor& t, Space s) {
  if (t.space != s) return 0;
  return s == Space::Sbuf ? t.bytesPerPartition() : psumBanksOf(p.arch, t);
}

// By iteration (LiveSum), or with every position of a segment live on every iteration.
uint64_t staticMax(const Program& p, const Liveness& live, Space s, bool by_iteration) {
  LiveSum sum(live.order.positions.size(), &live.order);
  std::vector<int64_t> delta(live.order.positions.size() + 1, 0);
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const LiveRange& r = live.tensors[t];
    if (r.empty()) continue;
    if (by_iteration) sum.add(r, int64_t(weight(p, p.tensors[t], s)));
    else addOverSegments(delta, r, int64_t(weight(p, p.tensors[t], s)));
  }
  if (by_iteration) return uint64_t(sum.max());
  int64_t now = 0, peak = 0;
  for (int64_t d : delta) peak = std::max(peak, now += d);
  return uint64_t(peak);
}

uint64_t dynamicMax(const Program& p, const DynamicLiveness& live, Space s) {
  std::map<uint64_t, int64_t> delta;  // closed intervals [lo, hi]: + at lo, - at hi + 1
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    int64_t w = int64_t(weight(p, p.tensors[t], s));
    if (w == 0) continue;
    for (const StepInterval& i : live.tensors[t].intervals()) {
      delta[i.lo] += w;
      delta[i.hi + 1] -= w;
    }
  }
  int64_t now = 0, peak = 0;
  for (const auto& [step, d] : delta) peak = std::max(peak, now += d);
  return uint64_t(peak);
}

// The instruction id each step executed (a loop's id for its iteration steps).
class StepIds : public ExecObserver {
 public:
  std::vector<uint32_t> ids{kNone};
  void onExecute(const Instruction& inst, uint64_t step, const ExecAccess&) override {
    if (ids.size() <= step) ids.resize(step + 1, kNone);
    ids[step] = inst.id;
  }
};

// The dynamic liveness folded onto positions: the most weight live at one position.
uint64_t positionalMax(const Program& p, const LinearOrder& order, const std::vector<uint32_t>& pos_of_step,
                       const DynamicLiveness& live, Space s) {
  std::vector<uint64_t> at(order.positions.size(), 0);
  std::vector<uint64_t> seen(order.positions.size(), UINT64_MAX);  // the last tensor counted at each position
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const uint64_t w = weight(p, p.tensors[t], s);
    if (w == 0) continue;
    for (const StepInterval& i : live.tensors[t].intervals())
      for (uint64_t step = i.lo; step <= i.hi && step < pos_of_step.size(); ++step) {
        const uint32_t pos = pos_of_step[step];
        if (seen[pos] == t) continue;
        seen[pos] = t;
        at[pos] += w;
      }
  }
  return at.empty() ? 0 : *std::max_element(at.begin(), at.end());
}

}  // namespace

std::vector<uint32_t> stepPositions(const Program& p, const LinearOrder& order) {
  std::vector<uint32_t> pos_of_id;
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& lp = order.positions[pos];
    if (lp.inst == nullptr || lp.kind == LinearPosition::Kind::LoopEnd) continue;
    if (pos_of_id.size() <= lp.inst->id) pos_of_id.resize(size_t(lp.inst->id) + 1, order.start());
    pos_of_id[lp.inst->id] = pos;
  }
  StepIds steps;
  InterpOptions io;
  io.observer = &steps;
  io.record_reads = false;
  interpret(p, io);
  std::vector<uint32_t> out(steps.ids.size(), order.start());
  for (size_t s = 1; s < steps.ids.size(); ++s)
    if (steps.ids[s] != kNone && steps.ids[s] < pos_of_id.size()) out[s] = pos_of_id[steps.ids[s]];
  return out;
}

LivenessPrecision livenessPrecision(const Program& p, const PrecisionOptions& o) {
  const Liveness st = computeLiveness(p);
  const DynamicLiveness dy = computeDynamicLiveness(p);
  LivenessPrecision out;
  out.static_sbuf_bytes = staticMax(p, st, Space::Sbuf, true);
  out.dynamic_sbuf_bytes = dynamicMax(p, dy, Space::Sbuf);
  out.static_psum_banks = staticMax(p, st, Space::Psum, true);
  out.any_iteration_sbuf_bytes = staticMax(p, st, Space::Sbuf, false);
  out.any_iteration_psum_banks = staticMax(p, st, Space::Psum, false);
  out.dynamic_psum_banks = dynamicMax(p, dy, Space::Psum);
  if (o.positional) {
    const std::vector<uint32_t> pos_of_step = stepPositions(p, st.order);
    out.positional_sbuf_bytes = positionalMax(p, st.order, pos_of_step, dy, Space::Sbuf);
    out.positional_psum_banks = positionalMax(p, st.order, pos_of_step, dy, Space::Psum);
  }
  return out;
}

}  // namespace allocsim
