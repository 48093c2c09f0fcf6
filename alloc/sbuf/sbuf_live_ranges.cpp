#include "alloc/sbuf/sbuf_live_ranges.h"

#include <algorithm>

#include "alloc/operand_effects.h"

namespace allocsim {

double executionsOf(const LinearOrder& order, uint32_t pos) {
  if (pos >= order.positions.size() || !order.positions[pos].executes) return 0;
  double n = 1;
  for (int32_t l = order.positions[pos].loop; l >= 0; l = order.loops[size_t(l)].parent)
    n *= double(order.loops[size_t(l)].trips);
  return n;
}

Liveness sbufLiveness(const Program& p, const std::vector<bool>& local) {
  Liveness live = computeLiveness(p);
  bool any = false;
  for (TensorId t = 0; t < local.size() && t < live.tensors.size(); ++t)
    if (local[t]) {
      live.tensors[t] = {};
      any = true;
    }
  if (!any) return live;
  const LinearOrder& order = live.order;
  thread_local OperandEffects e;  // the thread's, kept from one instruction and one call to the next
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& at = order.positions[pos];
    if (!at.executes || at.kind != LinearPosition::Kind::Instruction) continue;
    operandEffects(p, *at.inst, e);
    auto mention = [&](TensorId t) {
      if (t >= local.size() || !local[t]) return;
      LiveRange& r = live.tensors[t];
      if (r.empty()) r = {pos, pos};
      r.last = std::max(r.last, pos);
    };
    for (TensorId t : e.tensor_reads) mention(t);
    for (const TensorWrite& w : e.tensor_writes) mention(w.tensor);
  }
  return live;
}

}  // namespace allocsim
