#include "alloc/reg/reg_costs.h"

#include <algorithm>
#include <cmath>

#include "alloc/reg/reg_operands.h"

namespace allocsim {
namespace {

void walk(const Program& p, const std::vector<Instruction>& body, uint32_t depth, RegCosts& c) {
  const double weight = std::pow(kLoopWeight, double(std::min(depth, kMaxWeightedDepth)));
  for (const Instruction& inst : body) {
    if (inst.op == Op::Loop) {
      if (inst.rd < p.registers.size()) c.loop_register[inst.rd] = true;
      walk(p, inst.body, depth + 1, c);
      continue;
    }
    Instruction copy = inst;  // registerSlots hands out mutable slots; costs only read them
    copy.body.clear();
    RegisterSlots s = registerSlots(copy);
    auto charge = [&](RegId r) {
      if (r < p.registers.size()) c.cost[r] += weight * p.registers[r].lanes();
    };
    for (RegId* r : s.reads) charge(*r);
    if (s.write) charge(*s.write);
  }
}

}  // namespace

RegCosts findRegisterCosts(const Program& p, const std::vector<bool>& kept) {
  RegCosts c;
  c.cost.assign(p.registers.size(), 0);
  c.spillable.assign(p.registers.size(), true);
  c.loop_register.assign(p.registers.size(), false);
  walk(p, p.body, 0, c);
  for (RegId r = 0; r < p.registers.size(); ++r) {
    const bool is_kept = r < kept.size() && kept[r];
    // A value web of the SSA split (Origin::Copy) is a source register's value like any other: it spills.
    const bool value = p.registers[r].origin == Origin::Source || p.registers[r].origin == Origin::Copy;
    if (c.loop_register[r] || !value || is_kept) c.spillable[r] = false;
  }
  return c;
}

}  // namespace allocsim
