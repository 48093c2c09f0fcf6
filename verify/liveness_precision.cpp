#include "verify/liveness_precision.h"

#include <algorithm>
#include <map>

#include "alloc/liveness.h"
#include "alloc/psum/psum_bank_model.h"
#include "verify/dynamic_liveness.h"

namespace allocsim {
namespace {

// The weight a tensor adds while live: SBUF bytes per partition, or PSUM banks; 0 for DRAM.
uint64_t weight(const Program& p, const Tensor& t, Space s) {
  if (t.space != s) return 0;
  return s == Space::Sbuf ? t.bytesPerPartition() : psumBanksOf(p.arch, t);
}

uint64_t staticMax(const Program& p, const Liveness& live, Space s) {
  std::vector<int64_t> delta(live.order.positions.size() + 1, 0);
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const LiveRange& r = live.tensors[t];
    if (r.empty()) continue;
    addOverSegments(delta, r, int64_t(weight(p, p.tensors[t], s)));
  }
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

}  // namespace

LivenessPrecision livenessPrecision(const Program& p) {
  const Liveness st = computeLiveness(p);
  const DynamicLiveness dy = computeDynamicLiveness(p);
  LivenessPrecision out;
  out.static_sbuf_bytes = staticMax(p, st, Space::Sbuf);
  out.dynamic_sbuf_bytes = dynamicMax(p, dy, Space::Sbuf);
  out.static_psum_banks = staticMax(p, st, Space::Psum);
  out.dynamic_psum_banks = dynamicMax(p, dy, Space::Psum);
  return out;
}

}  // namespace allocsim
