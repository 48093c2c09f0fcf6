#include "alloc/reg/reg_operands.h"

namespace allocsim {
namespace {

void viewSlots(AccessPattern& ap, std::vector<RegId*>& out) {
  if (ap.tensor == kNone) return;
  // A tile view's tile index names the registers its offset already holds (docs/format.md "Tile arrays"); they
  // are renamed with the offset's so the view still prints and checks as its tile.
  for (Index* ix : {&ap.partition, &ap.offset, ap.tile ? &*ap.tile : nullptr})
    if (ix)
      for (IndexTerm& t : ix->terms)
        if (t.reg != kNone) out.push_back(&t.reg);
}

void normalizeView(AccessPattern& ap) {
  if (ap.tensor == kNone) return;
  ap.partition.normalize();
  ap.offset.normalize();
  if (ap.tile) ap.tile->normalize();
}

}  // namespace

RegisterSlots registerSlots(Instruction& inst) {
  RegisterSlots s;
  registerSlots(inst, s);
  return s;
}

void registerSlots(Instruction& inst, RegisterSlots& s) {
  s.reads.clear();
  s.write = nullptr;
  for (AccessPattern* ap : {&inst.dst, &inst.a, &inst.b}) viewSlots(*ap, s.reads);
  if (hasFusedReduce(inst)) viewSlots(inst.rare.mut().reduce_dst, s.reads);
  for (ScalarOperand* sc : scalarOperands(inst)) {  // ts's scalar, act's scale and bias
    if (sc->kind == ScalarOperand::Kind::Tensor) viewSlots(sc->ap, s.reads);
    if (sc->kind == ScalarOperand::Kind::Reg && sc->reg != kNone) s.reads.push_back(&sc->reg);
  }
  if (RareOperands* r = inst.rare.ifStored())
    for (IndexTerm& t : r->mask.c.terms)  // affine_select's offset c: read like an address term
      if (t.reg != kNone) s.reads.push_back(&t.reg);
  for (RegId* r : {&inst.rs, &inst.rt})
    if (*r != kNone) s.reads.push_back(r);
  if (inst.rd != kNone) s.write = &inst.rd;
}

void normalizeRegisterTerms(Instruction& inst) {
  for (AccessPattern* ap : {&inst.dst, &inst.a, &inst.b}) normalizeView(*ap);
  if (hasFusedReduce(inst)) normalizeView(inst.rare.mut().reduce_dst);
  for (ScalarOperand* sc : scalarOperands(inst))
    if (sc->kind == ScalarOperand::Kind::Tensor) normalizeView(sc->ap);
  if (RareOperands* r = inst.rare.ifStored()) r->mask.c.normalize();
}

}  // namespace allocsim
