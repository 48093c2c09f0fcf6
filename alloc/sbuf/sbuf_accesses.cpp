#include "alloc/sbuf/sbuf_accesses.h"

namespace allocsim {

std::vector<SbufAccess> sbufAccesses(const Program& p, const Instruction& inst) {
  std::vector<SbufAccess> out;
  auto add = [&](Operand o, bool read) {
    TensorId t = operandOf(inst, o).tensor;
    if (t < p.tensors.size() && p.tensors[t].space == Space::Sbuf) out.push_back({o, read, !read});
  };
  switch (inst.op) {
    case Op::Dma:
    case Op::Copy:
    case Op::Act:
    case Op::Reduce:
      add(Operand::A, true);
      add(Operand::Dst, false);
      break;
    case Op::TT:
      add(Operand::A, true);
      add(Operand::B, true);
      add(Operand::Dst, false);
      break;
    case Op::TS:
      add(Operand::A, true);
      if (inst.scalar.kind == ScalarOperand::Kind::Tensor) add(Operand::Scalar, true);
      add(Operand::Dst, false);
      break;
    case Op::Matmul:  // the destination is PSUM
      add(Operand::A, true);
      add(Operand::B, true);
      break;
    case Op::RegLoad:
      add(Operand::A, true);
      break;
    case Op::Memset:
    case Op::RegStore:
      add(Operand::Dst, false);
      break;
    default:
      break;
  }
  return out;
}

AccessPattern reloadView(AccessPattern ap) {
  const uint64_t hull = uint64_t(ap.count2 - 1) * ap.step2 + ap.count;
  if (ap.count2 > 1 && ap.step2 < ap.count && hull <= UINT32_MAX) {
    ap.count = uint32_t(hull);
    ap.count2 = 1;
    ap.step2 = 0;
  }
  return ap;
}

uint64_t viewBytes(const Program& p, const AccessPattern& ap) {
  if (ap.tensor >= p.tensors.size()) return 0;
  return uint64_t(ap.partitions) * ap.elementsPerPartition() * dtypeSize(p.tensors[ap.tensor].dtype);
}

}  // namespace allocsim
