#include "verify/reference.h"

#include <algorithm>

namespace allocsim {
namespace {

// The names of an original instruction of the allocated program mapped to the reference's: each inserted tensor or
// register read as the one it holds.
class NameMap {
 public:
  NameMap(const Program& a, const std::vector<TensorId>& tensors, const std::vector<RegId>& registers)
      : a_(a), tensor_(tensors), reg_(registers) {}

  TensorId tensor(const Instruction& inst, TensorId t) const {
    if (t == kNone) return t;
    if (t >= tensor_.size() || tensor_[t] == kNone)
      throw InputError(inst.loc, "original instruction names the inserted tensor '" + a_.tensors[t].name +
                                     "', which says no tensor it copies (write !origin(name))");
    return tensor_[t];
  }
  RegId reg(const Instruction& inst, RegId r) const {
    if (r == kNone) return r;
    if (r >= reg_.size() || reg_[r] == kNone)
      throw InputError(inst.loc, "original instruction uses the inserted register '" + a_.registers[r].name +
                                     "', which says no register it copies (write !origin(name))");
    return reg_[r];
  }
  void mapView(const Instruction& inst, AccessPattern& ap) const {
    if (ap.tensor == kNone) return;
    ap.tensor = tensor(inst, ap.tensor);
    for (Index* ix : {&ap.partition, &ap.offset, ap.tile ? &*ap.tile : nullptr}) {
      if (!ix) continue;
      for (IndexTerm& t : ix->terms) t.reg = reg(inst, t.reg);
      ix->normalize();
    }
  }
  // Maps the names of `copy`, a copy of `inst` (its body, for a loop, is the caller's business).
  void mapNames(const Instruction& inst, Instruction& copy) const {
    for (AccessPattern* ap : {&copy.dst, &copy.a, &copy.b}) mapView(inst, *ap);
    if (hasFusedReduce(copy)) mapView(inst, copy.rare.mut().reduce_dst);
    for (ScalarOperand* sc : scalarOperands(copy)) {  // ts's scalar, act's scale and bias
      if (sc->kind == ScalarOperand::Kind::Tensor) mapView(inst, sc->ap);
      if (sc->kind == ScalarOperand::Kind::Reg) sc->reg = reg(inst, sc->reg);
    }
    if (RareOperands* r = copy.rare.ifStored()) {
      for (IndexTerm& t : r->mask.c.terms) t.reg = reg(inst, t.reg);  // affine_select's offset c
      r->mask.c.normalize();
    }
    copy.rd = reg(inst, copy.rd);
    copy.rs = reg(inst, copy.rs);
    copy.rt = reg(inst, copy.rt);
  }
  // The checks of mapNames, in its order, without a copy of the instruction (a loop's would copy its whole body; any
  // other's cost heap allocations for its views' index terms). A loop's views are not looked at, as before.
  void check(const Instruction& inst) const {
    if (inst.op != Op::Loop) {
      for (const AccessPattern* ap : {&inst.dst, &inst.a, &inst.b}) checkView(inst, *ap);
      if (hasFusedReduce(inst)) checkView(inst, inst.rare->reduce_dst);
      for (const ScalarOperand* sc : scalarOperands(inst)) {
        if (sc->kind == ScalarOperand::Kind::Tensor) checkView(inst, sc->ap.get());
        if (sc->kind == ScalarOperand::Kind::Reg) reg(inst, sc->reg);
      }
      for (const IndexTerm& t : inst.rare->mask.c.terms) reg(inst, t.reg);
    }
    reg(inst, inst.rd);
    reg(inst, inst.rs);
    reg(inst, inst.rt);
  }
  void checkView(const Instruction& inst, const AccessPattern& ap) const {
    if (ap.tensor == kNone) return;
    tensor(inst, ap.tensor);
    for (const Index* ix : {&ap.partition, &ap.offset, ap.tile ? &*ap.tile : nullptr})
      if (ix)
        for (const IndexTerm& t : ix->terms) reg(inst, t.reg);
  }

 private:
  const Program& a_;
  const std::vector<TensorId>& tensor_;
  const std::vector<RegId>& reg_;
};

class Builder {
 public:
  Builder(const Program& a, ReferenceBody body) : a_(a), body_(body), names_(a, out_.tensor, reg_) {}

  ReferenceProgram build() {
    out_.program.arch = a_.arch;
    mapTensors();
    mapRegisters();
    uint32_t ids = 0;
    forEachInstruction(a_.body, [&](const Instruction& i) { ids = std::max(ids, i.id + 1); });
    out_.instruction.assign(ids, kNone);
    out_.program.body = mapBody(a_.body, false);
    uint32_t next = 0;
    assignIds(a_.body, next);
    out_.program.renumber();
    return std::move(out_);
  }

 private:
  void mapTensors() {
    out_.program.tensors.reserve(a_.tensors.size());
    std::vector<TensorId> source(a_.tensors.size(), kNone);
    for (TensorId t = 0; t < a_.tensors.size(); ++t) {
      const Tensor& tensor = a_.tensors[t];
      if (tensor.origin != Origin::Source) continue;
      Tensor copy = tensor;
      copy.placement.reset();
      source[t] = TensorId(out_.program.tensors.size());
      out_.program.tensors.push_back(std::move(copy));
    }
    // Inserted tensors: follow copy_of to a source tensor (bounded: a chain longer than the table is a cycle).
    out_.tensor.assign(a_.tensors.size(), kNone);
    for (TensorId t = 0; t < a_.tensors.size(); ++t) {
      TensorId cur = t;
      for (size_t hops = 0; cur != kNone && a_.tensors[cur].origin != Origin::Source; ++hops) {
        if (hops > a_.tensors.size()) throw InputError(a_.tensors[t].loc, "cycle in the tensors '" + a_.tensors[t].name + "' copies");
        cur = a_.tensors[cur].copy_of;
      }
      out_.tensor[t] = cur == kNone ? kNone : source[cur];
    }
  }

  void mapRegisters() {
    out_.program.registers.reserve(a_.registers.size());
    std::vector<RegId> source(a_.registers.size(), kNone);
    for (RegId r = 0; r < a_.registers.size(); ++r) {
      if (a_.registers[r].origin != Origin::Source) continue;
      Register copy = a_.registers[r];
      copy.phys.reset();
      source[r] = RegId(out_.program.registers.size());
      out_.program.registers.push_back(std::move(copy));
    }
    // Inserted registers (REG spill stand-ins): follow copy_of to a source register, as for tensors.
    reg_.assign(a_.registers.size(), kNone);
    for (RegId r = 0; r < a_.registers.size(); ++r) {
      RegId cur = r;
      for (size_t hops = 0; cur != kNone && a_.registers[cur].origin != Origin::Source; ++hops) {
        if (hops > a_.registers.size())
          throw InputError(a_.registers[r].loc, "cycle in the registers '" + a_.registers[r].name + "' copies");
        cur = a_.registers[cur].copy_of;
      }
      reg_[r] = cur == kNone ? kNone : source[cur];
    }
    out_.registers = reg_;
  }

  std::vector<Instruction> mapBody(const std::vector<Instruction>& body, bool insideInserted) {
    std::vector<Instruction> out;
    if (body_ == ReferenceBody::Copy)
      out.reserve(size_t(std::count_if(body.begin(), body.end(), [](const Instruction& i) { return i.origin == Origin::Source; })));
    for (const Instruction& inst : body) {
      bool inserted = inst.origin != Origin::Source;
      if (!inserted && insideInserted)
        throw InputError(inst.loc, "original instruction inside a loop or if the allocator inserted");
      if (inserted) {
        if (hasBody(inst.op)) mapBody(inst.body, true);  // only to reject original instructions inside
        continue;
      }
      if (body_ == ReferenceBody::None) {
        names_.check(inst);
        if (hasBody(inst.op)) mapBody(inst.body, false);
        continue;
      }
      Instruction copy = withoutBody(inst);
      names_.mapNames(inst, copy);
      if (hasBody(copy.op)) copy.body = mapBody(inst.body, false);
      out.push_back(std::move(copy));
    }
    return out;
  }

  // Pairs the allocated ids with the reference ids: both programs number in preorder, the reference
  // simply skipping inserted instructions.
  void assignIds(const std::vector<Instruction>& body, uint32_t& next) {
    for (const Instruction& inst : body) {
      if (inst.origin != Origin::Source) continue;
      if (inst.id < out_.instruction.size()) out_.instruction[inst.id] = next;
      ++next;
      if (hasBody(inst.op)) assignIds(inst.body, next);
    }
  }

  const Program& a_;
  const ReferenceBody body_;
  ReferenceProgram out_;
  std::vector<RegId> reg_;
  const NameMap names_;
};

}  // namespace

ReferenceProgram referenceProgram(const Program& allocated, ReferenceBody body) { return Builder(allocated, body).build(); }

bool runsOnAllocatedInstructions(const Program& allocated, const ReferenceProgram& ref) {
  for (TensorId t = 0; t < allocated.tensors.size(); ++t) {
    const Tensor& a = allocated.tensors[t];
    if (a.origin == Origin::Source) continue;
    if (a.input || a.output) return false;  // the run would load or store it on its own
    if (t >= ref.tensor.size() || ref.tensor[t] == kNone) continue;  // only inserted instructions name it
    const Tensor& r = ref.program.tensors.at(ref.tensor[t]);
    if (a.partitions != r.partitions || a.elements != r.elements || a.tiles != r.tiles ||
        a.dtype != r.dtype)
      return false;
  }
  for (RegId i = 0; i < allocated.registers.size(); ++i) {
    const Register& a = allocated.registers[i];
    if (a.origin == Origin::Source || i >= ref.registers.size() || ref.registers[i] == kNone) continue;
    if (a.width != ref.program.registers.at(ref.registers[i]).width) return false;
  }
  return true;
}

Instruction referenceInstruction(const Program& allocated, const ReferenceProgram& ref, const Instruction& inst) {
  Instruction copy = withoutBody(inst);
  NameMap(allocated, ref.tensor, ref.registers).mapNames(inst, copy);
  copy.id = inst.id < ref.instruction.size() ? ref.instruction[inst.id] : kNone;
  return copy;
}

bool isAllocated(const Program& p) {
  for (const Tensor& t : p.tensors)
    if (t.placement || t.origin != Origin::Source) return true;
  for (const Register& r : p.registers)
    if (r.phys || r.origin != Origin::Source) return true;
  return false;
}

}  // namespace allocsim
