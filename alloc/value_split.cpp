#include "alloc/value_split.h"

#include <algorithm>
#include <vector>

#include "alloc/copy_tensor.h"
#include "alloc/liveness.h"
#include "alloc/tensor_accesses.h"

namespace allocsim {
namespace {

bool movable(const Tensor& t) {
  return (t.space == Space::Sbuf || t.space == Space::Psum) && !t.placement && !t.pinned && !t.input && !t.output &&
         t.origin == Origin::Source;
}

// The instructions of `body` in the linear order's preorder (alloc/linear_order.h), with their positions: a loop
// takes a header position, its body, and an end position; any other instruction its own position, then the
// positions of a body it holds. Iterative, as linearize: any nesting depth is fine. The caller checks the result
// against the order.
void collect(std::vector<Instruction>& body, std::vector<std::pair<Instruction*, uint32_t>>& out) {
  struct Frame {
    std::vector<Instruction>* body;
    size_t next;
    bool loop;  // the body of a loop: its end takes a position
  };
  uint32_t pos = 1;  // position 0 is the program start
  std::vector<Frame> stack{{&body, 0, false}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.body->size()) {
      pos += top.loop;  // the loop's end
      stack.pop_back();
      continue;
    }
    Instruction& inst = (*top.body)[top.next++];
    if (inst.op == Op::Loop) ++pos;  // its header
    else out.push_back({&inst, pos++});
    if (!inst.body.empty() || inst.op == Op::Loop) stack.push_back({&inst.body, 0, inst.op == Op::Loop});
  }
}

}  // namespace

ValueSplitStats splitValues(Program& p) {
  ValueSplitStats stats;
  const Liveness live = computeLiveness(p);  // its order points into p's instructions, which stay where they are
  const std::vector<std::vector<uint32_t>>& starts = live.value_starts;
  std::vector<TensorId> split;
  for (TensorId t = 0; t < p.tensors.size() && t < starts.size(); ++t)
    if (!starts[t].empty() && movable(p.tensors[t])) split.push_back(t);
  if (split.empty()) return stats;

  std::vector<std::pair<Instruction*, uint32_t>> insts;
  collect(p.body, insts);
  for (const auto& [inst, at] : insts)  // the walk above is the linear order's: a mismatch would misfile operands
    if (at >= live.order.positions.size() || live.order.positions[at].inst != inst) return stats;
  // Which value each operand of a split tensor belongs to; a tensor whose operand both reads and writes at a value's
  // start cannot be cut there (no such operand is a full write, but a malformed program is left as it is).
  auto valueOf = [&](TensorId t, uint32_t at, bool write) {
    const std::vector<uint32_t>& s = starts[t];
    return uint32_t(write ? std::upper_bound(s.begin(), s.end(), at) - s.begin()
                          : std::lower_bound(s.begin(), s.end(), at) - s.begin());
  };
  std::vector<bool> is_split(p.tensors.size(), false);
  for (TensorId t : split) is_split[t] = true;
  for (const auto& [inst, at] : insts)
    for (Space space : {Space::Sbuf, Space::Psum})
      for (const TensorAccess& a : tensorAccesses(p, *inst, space)) {
        const TensorId t = operandOf(*inst, a.operand).tensor;
        if (is_split[t] && a.read && a.write && valueOf(t, at, true) != valueOf(t, at, false)) is_split[t] = false;
      }

  // The new tensors, by split tensor and value (value 0 keeps the tensor).
  std::vector<std::vector<TensorId>> value_tensor(p.tensors.size());
  TakenNames taken(p);
  uint32_t next_id = 1;
  for (TensorId t : split) {
    if (!is_split[t]) continue;
    ++stats.tensors;
    value_tensor[t].push_back(t);
    for (size_t v = 0; v < starts[t].size(); ++v) {
      Tensor copy = p.tensors[t];
      copy.origin = Origin::Copy;
      copy.copy_of = t;
      copy.placement.reset();
      value_tensor[t].push_back(addCopyTensor(p, copy, "_Val", next_id, taken));
      ++stats.values;
    }
  }
  for (const auto& [inst, at] : insts)
    for (Space space : {Space::Sbuf, Space::Psum})
      for (const TensorAccess& a : tensorAccesses(p, *inst, space)) {
        AccessPattern& ap = operandOf(*inst, a.operand);
        const TensorId t = ap.tensor;
        if (t >= value_tensor.size() || value_tensor[t].empty()) continue;
        ap.tensor = value_tensor[t][valueOf(t, at, a.write)];
      }
  p.renumber();
  return stats;
}

}  // namespace allocsim
