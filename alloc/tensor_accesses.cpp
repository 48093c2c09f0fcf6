#include "alloc/tensor_accesses.h"

namespace allocsim {

TensorAccessList tensorAccesses(const Program& p, const Instruction& inst, Space space) {
  TensorAccessList out;
  auto add = [&](Operand o, bool read, bool write) {
    TensorId t = operandOf(inst, o).tensor;
    if (t < p.tensors.size() && p.tensors[t].space == space) out.push_back({o, read, write});
  };
  const OperandUses uses = operandUses(inst);
  for (const OperandUse* u : uses)  // sources first
    if (u->role == Role::Read && operandView(inst, u->operand)) add(u->operand, true, false);
  for (const OperandUse* u : uses) {  // then the destination, then a fused reduction's
    if (u->role == Role::Read || !operandView(inst, u->operand)) continue;
    // A matmul without an unconditional start reads its accumulator: it adds to what the bank holds.
    add(u->operand, u->role == Role::Accumulate && inst.start != When::Always, true);
  }
  return out;
}

}  // namespace allocsim
