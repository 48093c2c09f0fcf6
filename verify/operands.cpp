#include "verify/operands.h"

#include <algorithm>

#include "ir/operand_table.h"
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
  if (inst.op == Op::Loop) return out;  // its register and bound are the sequencer's, not an executed step's
  auto key = [&](RegId r) { return term_order && r < term_order->size() ? (*term_order)[r] : r; };
  auto terms = [&](const Index& ix, const std::string& role) {
    std::vector<RegId> regs;
    for (const IndexTerm& t : ix.terms) regs.push_back(t.reg);
    sortStably(regs, key);
    for (RegId r : regs) out.push_back({r, role});
  };
  // In the order the interpreter resolves them (ir/interp.cpp): operand by operand as written, a view's partition
  // before its offset, the mask's offset c after the views.
  for (const OperandUse* u : operandUses(inst)) {
    if (u->operand == Operand::MaskC) {
      terms(inst.rare->mask.c, u->name);
    } else if (const AccessPattern* ap = operandView(inst, u->operand)) {
      if (ap->tensor == kNone || (ap->partition.terms.empty() && ap->offset.terms.empty())) continue;
      const std::string role = "address of " + named(p, u->name, *ap);
      terms(ap->partition, role);
      terms(ap->offset, role);
    } else if (u->role == Role::Read) {
      out.push_back({operandRegister(inst, u->operand), u->name});
    }
  }
  return out;
}

std::vector<std::string> readOperandNames(const Program& p, const Instruction& inst, size_t reads) {
  std::vector<std::string> out;
  const OperandUses uses = operandUses(inst);
  size_t sources = 0;
  for (const OperandUse* u : uses) sources += u->role == Role::Read && operandView(inst, u->operand);
  for (const OperandUse* u : uses) {
    const AccessPattern* ap = operandView(inst, u->operand);
    if (!ap) continue;
    // A matmul reads its accumulator first, on the executions where it has no start.
    if (u->role == Role::Accumulate && reads > sources) out.push_back(named(p, "accumulator", *ap));
    if (u->role == Role::Read) out.push_back(named(p, u->name, *ap));
  }
  while (out.size() < reads) out.push_back("operand " + std::to_string(out.size() + 1));
  out.resize(reads);
  return out;
}

}  // namespace allocsim
