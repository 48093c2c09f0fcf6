#include "alloc/sbuf/sbuf_accesses.h"

namespace allocsim {

TensorAccessList sbufAccesses(const Program& p, const Instruction& inst) {
  const TensorAccessList all = tensorAccesses(p, inst, Space::Sbuf);
  if (inst.op != Op::Matmul) return all;
  TensorAccessList out;  // the destination is PSUM's, even in a program that names an SBUF tensor there
  for (const SbufAccess& a : all)
    if (a.operand != Operand::Dst) out.push_back(a);
  return out;
}

uint64_t viewBytes(const Program& p, const AccessPattern& ap) {
  if (ap.tensor >= p.tensors.size()) return 0;
  return uint64_t(ap.partitions) * ap.elementsPerPartition() * dtypeSize(p.tensors[ap.tensor].dtype);
}

}  // namespace allocsim
