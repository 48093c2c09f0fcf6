#include "alloc/reg/reg_operands.h"

namespace allocsim {
namespace {

void viewSlots(AccessPattern& ap, std::vector<RegId*>& out) {
  if (ap.tensor == kNone) return;
  for (RegId* r : {&ap.partition.reg, &ap.offset.reg})
    if (*r != kNone) out.push_back(r);
}

}  // namespace

RegisterSlots registerSlots(Instruction& inst) {
  RegisterSlots s;
  for (AccessPattern* ap : {&inst.dst, &inst.a, &inst.b}) viewSlots(*ap, s.reads);
  if (inst.op == Op::TS) {
    if (inst.scalar.kind == ScalarOperand::Kind::Tensor) viewSlots(inst.scalar.ap, s.reads);
    if (inst.scalar.kind == ScalarOperand::Kind::Reg && inst.scalar.reg != kNone) s.reads.push_back(&inst.scalar.reg);
  }
  for (RegId* r : {&inst.rs, &inst.rt})
    if (*r != kNone) s.reads.push_back(r);
  if (inst.rd != kNone) s.write = &inst.rd;
  return s;
}

}  // namespace allocsim
