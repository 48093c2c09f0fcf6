#include "alloc/operand_effects.h"

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
  // An instruction that replaces its destination view on every execution (all but matmul): the view's address
  // registers, then the sources (`sources` records them), then the write.
  template <class Sources>
  void replace(const AccessPattern& dst, Sources sources) {
    addressOf(dst);
    sources();
    write(dst, WriteCover::Whole);
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
  Collector c(p, e);
  switch (inst.op) {
    case Op::Dma:
    case Op::Copy:
    case Op::Reduce:
    case Op::Transpose:  // each writes every element of its destination view
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr:
      c.replace(inst.dst, [&] { c.read(inst.a); });
      break;
    case Op::TTScan:
      c.replace(inst.dst, [&] {
        c.read(inst.a);
        c.read(inst.b);
        if (inst.scalar.kind == ScalarOperand::Kind::Tensor) c.read(inst.scalar.ap);
        if (inst.scalar.kind == ScalarOperand::Kind::Reg) c.readReg(inst.scalar.reg);
      });
      break;
    case Op::Iota:  // every element written with a value of p, e and c
      c.replace(inst.dst, [&] { c.reg(inst.rare->mask.c); });
      break;
    case Op::TT:
      c.replace(inst.dst, [&] {
        c.read(inst.a);
        c.read(inst.b);
      });
      break;
    case Op::Act:  // its scale and bias, when given, are operands like ts's scalars
    case Op::TS:
      c.replace(inst.dst, [&] {
        c.read(inst.a);
        for (const ScalarOperand* s : scalarOperands(inst)) {
          if (s->kind == ScalarOperand::Kind::Tensor) c.read(s->ap);
          if (s->kind == ScalarOperand::Kind::Reg) c.readReg(s->reg);
        }
      });
      // A fused reduction writes its destination R too, a write operand like any other (docs/format.md).
      if (hasFusedReduce(inst)) c.replace(inst.rare->reduce_dst, [] {});
      break;
    case Op::Memset:
      c.replace(inst.dst, [] {});
      break;
    case Op::Select:  // every element of the view is written: the source's where the mask keeps it, the fill elsewhere
      c.replace(inst.dst, [&] {
        c.read(inst.a);
        c.reg(inst.rare->mask.c);
      });
      break;
    case Op::Matmul: {
      c.read(inst.a);
      c.read(inst.b);
      // Without an unconditional start the matmul adds to what the accumulator holds (on some executions). A
      // full-view start@first matmul reads only in the later iterations of its own loop: its WholeOnFirst write
      // says so, and recording a read here would make it look like a use of the value from before the loop.
      bool first_full = inst.start == When::First && c.valid(inst.dst) && isFullAccess(p, inst.dst);
      if (inst.start == When::Never || (inst.start == When::First && !first_full)) c.read(inst.dst);
      else c.addressOf(inst.dst);
      WriteCover full = inst.start == When::Always  ? WriteCover::Whole
                        : inst.start == When::First ? WriteCover::WholeOnFirst
                                                    : WriteCover::Partial;
      c.write(inst.dst, full);
      break;
    }
    case Op::Li:
      c.writeReg(inst.rd);
      break;
    case Op::Addi:
    case Op::Mov:
      c.readReg(inst.rs);
      c.writeReg(inst.rd);
      break;
    case Op::Add:
      c.readReg(inst.rs);
      c.readReg(inst.rt);
      c.writeReg(inst.rd);
      break;
    case Op::RegLoad:
      c.read(inst.a);
      c.writeReg(inst.rd);
      break;
    case Op::RegStore:
      c.replace(inst.dst, [&] { c.readReg(inst.rs); });
      break;
    case Op::If:  // the condition's registers; the body's instructions have positions of their own
      c.reg(inst.rare->mask.c);
      break;
    case Op::Loop:
      break;
  }
}

OperandViews operandViews(const Instruction& inst) {
  OperandViews v;
  switch (inst.op) {
    case Op::Dma:
    case Op::Copy:
    case Op::Reduce:
    case Op::Select:
    case Op::Transpose:
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr:
      v.reads = {&inst.a};
      v.write = &inst.dst;
      break;
    case Op::TT:
      v.reads = {&inst.a, &inst.b};
      v.write = &inst.dst;
      break;
    case Op::TTScan:
      v.reads = {&inst.a, &inst.b};
      if (inst.scalar.kind == ScalarOperand::Kind::Tensor) v.reads.push_back(&inst.scalar.ap.get());
      v.write = &inst.dst;
      break;
    case Op::Act:
    case Op::TS:
      v.reads = {&inst.a};
      for (const ScalarOperand* s : scalarOperands(inst))
        if (s->kind == ScalarOperand::Kind::Tensor) v.reads.push_back(&s->ap.get());
      v.write = &inst.dst;
      if (hasFusedReduce(inst)) v.reduce_write = &inst.rare->reduce_dst;
      break;
    case Op::Memset:
    case Op::Iota:
    case Op::RegStore:
      v.write = &inst.dst;
      break;
    case Op::Matmul:
      v.reads = {&inst.a, &inst.b};
      v.write = &inst.dst;
      v.accumulates = true;
      break;
    case Op::RegLoad:
      v.reads = {&inst.a};
      break;
    case Op::Li:
    case Op::Addi:
    case Op::Add:
    case Op::Mov:
    case Op::Loop:
    case Op::If:
      break;
  }
  return v;
}

}  // namespace allocsim
