#include "verify/operands.h"

#include <algorithm>

#include "ir/print.h"

namespace allocsim {
namespace {

// A view's few index terms in `key` order, equal keys as they were: an insertion sort (std::stable_sort takes a
// heap buffer, and this runs for every operand the oracles describe).
template <class Key>
void sortStably(std::vector<RegId>& regs, const Key& key) {
  for (size_t i = 1; i < regs.size(); ++i)
    for (size_t j = i; j > 0 && key(regs[j]) < key(regs[j - 1]); --j) std::swap(regs[j], regs[j - 1]);
}

std::string named(const Program& p, const char* role, const AccessPattern& ap) {
  return std::string(role) + " '" + printAccessPattern(p, ap) + "'";
}

}  // namespace

std::vector<RegisterOperand> registerOperands(const Program& p, const Instruction& inst,
                                              const std::vector<RegId>* term_order) {
  std::vector<RegisterOperand> out;
  auto key = [&](RegId r) { return term_order && r < term_order->size() ? (*term_order)[r] : r; };
  auto view = [&](const char* role, const AccessPattern& ap) {
    if (ap.tensor == kNone) return;
    for (const Index* ix : {&ap.partition, &ap.offset}) {
      std::vector<RegId> regs;
      for (const IndexTerm& t : ix->terms) regs.push_back(t.reg);
      sortStably(regs, key);
      for (RegId r : regs) out.push_back({r, "address of " + named(p, role, ap)});
    }
  };
  switch (inst.op) {
    case Op::Dma:
    case Op::Copy:
    case Op::Reduce:
      view("destination", inst.dst);
      view("source", inst.a);
      break;
    case Op::Act:  // the interpreter reads the scale, then the bias, then resolves R (ir/interp.cpp)
      view("destination", inst.dst);
      view("source", inst.a);
      for (const ScalarOperand* sc : scalarOperands(inst)) {
        const char* role = sc == &inst.rare->scale ? "scale" : "bias";
        if (sc->kind == ScalarOperand::Kind::Tensor) view(role, sc->ap);
        if (sc->kind == ScalarOperand::Kind::Reg) out.push_back({sc->reg, role});
      }
      if (hasFusedReduce(inst)) view("reduction destination", inst.rare->reduce_dst);
      break;
    case Op::Matmul:
      view("destination", inst.dst);
      view("stationary", inst.a);
      view("moving", inst.b);
      break;
    case Op::TT:
      view("destination", inst.dst);
      view("source a", inst.a);
      view("source b", inst.b);
      break;
    case Op::TS:
      view("destination", inst.dst);
      view("source", inst.a);
      for (const ScalarOperand* sc : scalarOperands(inst)) {  // the scalar, then the second op's (ir/interp.cpp)
        const char* role = sc == &inst.scalar ? "scalar" : "second scalar";
        if (sc->kind == ScalarOperand::Kind::Tensor) view(role, sc->ap);
        if (sc->kind == ScalarOperand::Kind::Reg) out.push_back({sc->reg, role});
      }
      if (hasFusedReduce(inst)) view("reduction destination", inst.rare->reduce_dst);
      break;
    case Op::Memset: view("destination", inst.dst); break;
    case Op::Transpose:
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr:
      view("destination", inst.dst);
      view("source", inst.a);
      break;
    case Op::TTScan:  // the views, then the initial value (ir/interp.cpp)
      view("destination", inst.dst);
      view("source a", inst.a);
      view("source b", inst.b);
      if (inst.scalar.kind == ScalarOperand::Kind::Tensor) view("initial value", inst.scalar.ap);
      if (inst.scalar.kind == ScalarOperand::Kind::Reg) out.push_back({inst.scalar.reg, "initial value"});
      break;
    case Op::Iota:
    case Op::Select: {  // the mask's offset c after the views, as the interpreter reads it
      view("destination", inst.dst);
      if (inst.op == Op::Select) view("source", inst.a);
      std::vector<RegId> regs;
      for (const IndexTerm& t : inst.rare->mask.c.terms) regs.push_back(t.reg);
      sortStably(regs, key);
      for (RegId r : regs) out.push_back({r, "mask offset c"});
      break;
    }
    case Op::If: {
      std::vector<RegId> regs;
      for (const IndexTerm& t : inst.rare->mask.c.terms) regs.push_back(t.reg);
      sortStably(regs, key);
      for (RegId r : regs) out.push_back({r, "condition"});
      break;
    }
    case Op::RegLoad: view("source", inst.a); break;
    case Op::RegStore:
      view("destination", inst.dst);
      out.push_back({inst.rs, "source"});
      break;
    case Op::Addi:
    case Op::Mov: out.push_back({inst.rs, "source"}); break;
    case Op::Add:
      out.push_back({inst.rs, "first source"});
      out.push_back({inst.rt, "second source"});
      break;
    case Op::Li:
    case Op::Loop: break;
  }
  return out;
}

std::vector<std::string> readOperandNames(const Program& p, const Instruction& inst, size_t reads) {
  std::vector<std::string> out;
  switch (inst.op) {
    case Op::Dma:
    case Op::Copy:
    case Op::Reduce:
    case Op::Select:
    case Op::Transpose:
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr:
    case Op::RegLoad: out.push_back(named(p, "source", inst.a)); break;
    case Op::TTScan:
      out.push_back(named(p, "source a", inst.a));
      out.push_back(named(p, "source b", inst.b));
      if (inst.scalar.kind == ScalarOperand::Kind::Tensor) out.push_back(named(p, "initial value", inst.scalar.ap));
      break;
    case Op::Act:
      out.push_back(named(p, "source", inst.a));
      for (const ScalarOperand* sc : scalarOperands(inst))
        if (sc->kind == ScalarOperand::Kind::Tensor) out.push_back(named(p, sc == &inst.rare->scale ? "scale" : "bias", sc->ap));
      break;
    case Op::Matmul:
      if (reads > 2) out.push_back(named(p, "accumulator", inst.dst));
      out.push_back(named(p, "stationary", inst.a));
      out.push_back(named(p, "moving", inst.b));
      break;
    case Op::TT:
      out.push_back(named(p, "source a", inst.a));
      out.push_back(named(p, "source b", inst.b));
      break;
    case Op::TS:
      out.push_back(named(p, "source", inst.a));
      for (const ScalarOperand* sc : scalarOperands(inst))
        if (sc->kind == ScalarOperand::Kind::Tensor)
          out.push_back(named(p, sc == &inst.scalar ? "scalar" : "second scalar", sc->ap));
      break;
    default: break;
  }
  while (out.size() < reads) out.push_back("operand " + std::to_string(out.size() + 1));
  out.resize(reads);
  return out;
}

}  // namespace allocsim
