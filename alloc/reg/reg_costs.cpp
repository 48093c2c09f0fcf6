#include "alloc/reg/reg_costs.h"

#include <algorithm>
#include <cmath>

#include "alloc/reg/reg_operands.h"

namespace allocsim {
namespace {

double weightAt(uint32_t depth) { return std::pow(kLoopWeight, double(std::min(depth, kMaxWeightedDepth))); }

void walk(const Program& p, const std::vector<Instruction>& body, uint32_t depth, RegCosts& c,
          std::vector<uint32_t>& loops) {
  const double weight = weightAt(depth);
  for (const Instruction& inst : body) {
    if (inst.op == Op::Loop) {
      if (inst.rd < p.registers.size()) {
        c.loop_register[inst.rd] = true;
        ++loops[inst.rd];
        // Spilled, its body starts with a store and ends with a reload of it, every iteration.
        c.cost[inst.rd] += 2 * weightAt(depth + 1) * p.registers[inst.rd].lanes();
      }
      // A register bound is read on every entry: spilled, each entry is preceded by a reload.
      for (const IndexTerm& t : inst.rare->mask.c.terms)
        if (t.reg < p.registers.size()) c.cost[t.reg] += weight * p.registers[t.reg].lanes();
      walk(p, inst.body, depth + 1, c, loops);
      continue;
    }
    if (inst.op == Op::If) walk(p, inst.body, depth, c, loops);  // its condition's reads are counted below
    // registerSlots hands out mutable slots; costs only read them. Kept: asked for every instruction of every round.
    thread_local RegisterSlots s;
    registerSlots(const_cast<Instruction&>(inst), s);
    auto charge = [&](RegId r) {
      if (r < p.registers.size()) c.cost[r] += weight * p.registers[r].lanes();
    };
    for (RegId* r : s.reads) charge(*r);
    if (s.write) charge(*s.write);
  }
}

bool flagged(const std::vector<bool>& v, RegId r) { return r < v.size() && v[r]; }

}  // namespace

RegCosts findRegisterCosts(const Program& p, const std::vector<bool>& kept, const std::vector<bool>& loop_spilled) {
  RegCosts c;
  c.cost.assign(p.registers.size(), 0);
  c.spillable.assign(p.registers.size(), true);
  c.loop_register.assign(p.registers.size(), false);
  c.why.assign(p.registers.size(), Unspillable::No);
  std::vector<uint32_t> loops(p.registers.size(), 0);
  walk(p, p.body, 0, c, loops);
  for (RegId r = 0; r < p.registers.size(); ++r) {
    // A value web of the SSA split (Origin::Copy) is a source register's value like any other: it spills.
    const bool value = p.registers[r].origin == Origin::Source || p.registers[r].origin == Origin::Copy;
    const bool loop_done = c.loop_register[r] && (loops[r] > 1 || flagged(loop_spilled, r));
    c.why[r] = !value               ? Unspillable::StandIn
               : flagged(kept, r)   ? Unspillable::Kept
               : loop_done          ? Unspillable::LoopDone
                                    : Unspillable::No;
    c.spillable[r] = c.why[r] == Unspillable::No;
  }
  return c;
}

std::string unspillableReason(const RegCosts& c, RegId r, bool brief) {
  switch (r < c.why.size() ? c.why[r] : Unspillable::No) {
    case Unspillable::No: return "";
    case Unspillable::StandIn: return brief ? "a spill stand-in" : "a spill stand-in, one def or use long already";
    case Unspillable::Kept: return brief ? "kept placement" : "its placement is kept";
    case Unspillable::LoopDone:
      return brief ? "loop register spilled already" : "a loop register spilled already or stepped by several loops";
  }
  return "";
}

}  // namespace allocsim
