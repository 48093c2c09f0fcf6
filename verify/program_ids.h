// Renumbering the tensors and registers a program refers to: how the recovery check lines up an allocated
// program's declarations with the input's by name (verify/implements_input.h), and how the shrinker drops
// declarations nothing uses (harness/shrink.h).
#pragma once

#include <vector>

#include "ir/program.h"

namespace allocsim {

// Every tensor and register reference in `body` (views, register terms of views and of affine_select's offset c,
// ts scalars, rd / rs / rt).
template <typename FT, typename FR>
void forEachReference(std::vector<Instruction>& body, FT&& onTensor, FR&& onRegister) {
  auto view = [&](AccessPattern& ap) {
    if (ap.tensor == kNone) return;
    onTensor(ap.tensor);
    for (Index* ix : {&ap.partition, &ap.offset, ap.tile ? &*ap.tile : nullptr}) {
      if (!ix) continue;
      for (IndexTerm& t : ix->terms) onRegister(t.reg);
      ix->normalize();  // a renumbering may change the terms' register order
    }
  };
  for (Instruction& i : body) {
    view(i.dst);
    view(i.a);
    view(i.b);
    if (hasFusedReduce(i)) view(i.rare.mut().reduce_dst);
    for (ScalarOperand* sc : scalarOperands(i)) {  // ts's scalar, act's scale and bias
      if (sc->kind == ScalarOperand::Kind::Tensor) view(sc->ap);
      if (sc->kind == ScalarOperand::Kind::Reg && sc->reg != kNone) onRegister(sc->reg);
    }
    if (RareOperands* r = i.rare.ifStored()) {
      for (IndexTerm& t : r->mask.c.terms) onRegister(t.reg);  // affine_select's offset c
      r->mask.c.normalize();
    }
    for (RegId* r : {&i.rd, &i.rs, &i.rt})
      if (*r != kNone) onRegister(*r);
    if (hasBody(i.op)) forEachReference(i.body, onTensor, onRegister);
  }
}

// Keeps the tensors and registers whose new id (tensor_to[old], register_to[old]) is not kNone, in the order of
// their new ids, and rewrites every reference. The caller guarantees that no dropped item is referenced and that
// the new ids are 0..n-1.
void renumberDeclarations(Program& p, const std::vector<TensorId>& tensor_to, const std::vector<RegId>& register_to);

// Drops the tensors and registers no instruction refers to (inputs and outputs included: a program that never
// touches them does not need them).
void dropUnusedDeclarations(Program& p);

}  // namespace allocsim
