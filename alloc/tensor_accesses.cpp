#include "alloc/tensor_accesses.h"

#include <utility>

namespace allocsim {

const AccessPattern& operandOf(const Instruction& inst, Operand o) {
  switch (o) {
    case Operand::Dst: return inst.dst;
    case Operand::A: return inst.a;
    case Operand::B: return inst.b;
    case Operand::Scalar: return inst.scalar.ap;
    case Operand::Scale: return inst.rare->scale.ap;
    case Operand::Bias: return inst.rare->bias.ap;
    case Operand::Scalar2: return inst.rare->scalar2.ap;
    case Operand::ReduceDst: return inst.rare->reduce_dst;
  }
  return inst.dst;
}

AccessPattern& operandOf(Instruction& inst, Operand o) {
  return const_cast<AccessPattern&>(operandOf(std::as_const(inst), o));  // the same choice, on a mutable inst
}

TensorAccessList tensorAccesses(const Program& p, const Instruction& inst, Space space) {
  TensorAccessList out;
  auto add = [&](Operand o, bool read, bool write) {
    TensorId t = operandOf(inst, o).tensor;
    if (t < p.tensors.size() && p.tensors[t].space == space) out.push_back({o, read, write});
  };
  switch (inst.op) {
    case Op::Dma:
    case Op::Copy:
    case Op::Reduce:
    case Op::Select:
    case Op::Transpose:
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr:
    case Op::RegLoad:
      add(Operand::A, true, false);
      break;
    case Op::Act:
      add(Operand::A, true, false);
      if (inst.rare->scale.kind == ScalarOperand::Kind::Tensor) add(Operand::Scale, true, false);
      if (inst.rare->bias.kind == ScalarOperand::Kind::Tensor) add(Operand::Bias, true, false);
      break;
    case Op::TT:
    case Op::Matmul:
      add(Operand::A, true, false);
      add(Operand::B, true, false);
      break;
    case Op::TTScan:
      add(Operand::A, true, false);
      add(Operand::B, true, false);
      if (inst.scalar.kind == ScalarOperand::Kind::Tensor) add(Operand::Scalar, true, false);
      break;
    case Op::TS:
      add(Operand::A, true, false);
      if (inst.scalar.kind == ScalarOperand::Kind::Tensor) add(Operand::Scalar, true, false);
      if (hasSecondOp(inst) && inst.rare->scalar2.kind == ScalarOperand::Kind::Tensor) add(Operand::Scalar2, true, false);
      break;
    default:
      break;
  }
  switch (inst.op) {
    case Op::Dma:
    case Op::Copy:
    case Op::Act:
    case Op::Reduce:
    case Op::TT:
    case Op::TS:
    case Op::Memset:
    case Op::Select:
    case Op::Iota:
    case Op::Transpose:
    case Op::Broadcast:
    case Op::TTScan:
    case Op::BnStats:
    case Op::BnAggr:
    case Op::RegStore:
      add(Operand::Dst, false, true);
      break;
    case Op::Matmul:
      add(Operand::Dst, inst.start != When::Always, true);
      break;
    default:
      break;
  }
  if (hasFusedReduce(inst)) add(Operand::ReduceDst, false, true);  // a second write operand (docs/format.md)
  return out;
}

}  // namespace allocsim
