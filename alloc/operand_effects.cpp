#include "alloc/operand_effects.h"

#include "ir/operand_table.h"

namespace allocsim {
namespace {

class Collector {
 public:
  Collector(const Program& p, OperandEffects& e) : p_(p), e_(e) {}

  void reg(const Index& i) {
    for (const IndexTerm& t : i.terms) readReg(t.reg);
  }
  void readReg(RegId r) {
    if (r < p_.registers.size()) e_.reg_reads.push_back(r);
  }
  void writeReg(RegId r) {
    if (r < p_.registers.size()) e_.reg_writes.push_back(r);
  }
  bool valid(const AccessPattern& ap) const { return ap.tensor < p_.tensors.size(); }
  // The registers an access pattern's address depends on are read whether the view is read or written.
  void addressOf(const AccessPattern& ap) {
    if (!valid(ap)) return;
    reg(ap.partition);
    reg(ap.offset);
  }
  void read(const AccessPattern& ap) {
    addressOf(ap);
    if (valid(ap)) e_.tensor_reads.push_back(ap.tensor);
  }
  void write(const AccessPattern& ap, WriteCover full_cover) {
    if (!valid(ap)) return;
    bool full = isFullAccess(p_, ap);
    e_.tensor_writes.push_back({ap.tensor, full ? full_cover : WriteCover::Partial});
  }

 private:
  const Program& p_;
  OperandEffects& e_;
};

}  // namespace

OperandEffects operandEffects(const Program& p, const Instruction& inst) {
  OperandEffects e;
  operandEffects(p, inst, e);
  return e;
}

void operandEffects(const Program& p, const Instruction& inst, OperandEffects& e) {
  e.tensor_reads.clear();
  e.tensor_writes.clear();
  e.reg_reads.clear();
  e.reg_writes.clear();
  if (inst.op == Op::Loop) return;
  Collector c(p, e);
  // Operands in the order they are written: a destination's address registers before the sources', every
  // register read, then (matmul) the accumulator.
  const OperandUse* accumulator = nullptr;
  for (const OperandUse* u : operandUses(inst)) {
    if (u->operand == Operand::MaskC) {  // affine_select's and iota's offset c, an if's condition
      c.reg(inst.rare->mask.c);
    } else if (u->role == Role::Accumulate) {
      accumulator = u;
    } else if (const AccessPattern* ap = operandView(inst, u->operand)) {
      if (u->role == Role::Read) {
        c.read(*ap);
      } else {  // each writes every element of its view
        c.addressOf(*ap);
        c.write(*ap, WriteCover::Whole);
      }
    } else if (RegId r = operandRegister(inst, u->operand); r != kNone) {
      if (u->role == Role::Read) c.readReg(r);
      else c.writeReg(r);
    }
  }
  if (!accumulator) return;
  const AccessPattern& dst = *operandView(inst, accumulator->operand);
  // Without an unconditional start the matmul adds to what the accumulator holds (on some executions). A full-view
  // start@first matmul reads only in the later iterations of its own loop: its WholeOnFirst write says so, and
  // recording a read here would make it look like a use of the value from before the loop.
  bool first_full = inst.start == When::First && c.valid(dst) && isFullAccess(p, dst);
  if (inst.start == When::Never || (inst.start == When::First && !first_full)) c.read(dst);
  else c.addressOf(dst);
  WriteCover full = inst.start == When::Always  ? WriteCover::Whole
                    : inst.start == When::First ? WriteCover::WholeOnFirst
                                                : WriteCover::Partial;
  c.write(dst, full);
}

OperandViews operandViews(const Instruction& inst) {
  OperandViews v;
  for (const OperandUse* u : operandUses(inst)) {
    const AccessPattern* ap = operandView(inst, u->operand);
    if (!ap) continue;
    if (u->role == Role::Read) v.reads.push_back(ap);
    else if (u->operand == Operand::ReduceDst) v.reduce_write = ap;
    else v.write = ap;
    v.accumulates = v.accumulates || u->role == Role::Accumulate;
  }
  return v;
}

}  // namespace allocsim
