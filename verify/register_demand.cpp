#include "verify/register_demand.h"

#include <algorithm>
#include <map>
#include <vector>

#include "verify/operands.h"

namespace allocsim {
namespace {

class Walk {
 public:
  explicit Walk(const Program& p) : p_(p), owner_(p.registers.size(), nullptr), loops_(p.registers.size(), 0) {
    countLoops(p.body);
    for (RegId r = 0; r < p.registers.size(); ++r)
      if (loops_[r] > 1) out_.confined = false;  // two loops share a register: it links them
  }

  RegisterDemand run() {
    std::vector<RegId> around;
    walk(p_.body, around);
    return out_;
  }

 private:
  void countLoops(const std::vector<Instruction>& body) {
    for (const Instruction& i : body)
      if (hasBody(i.op)) {
        if (i.op == Op::Loop && i.rd < p_.registers.size()) {
          ++loops_[i.rd];
          owner_[i.rd] = &i;
        }
        countLoops(i.body);
      }
  }

  uint32_t lanes(const std::vector<RegId>& regs) const {
    std::vector<RegId> u = regs;
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
    uint32_t n = 0;
    for (RegId r : u) n += p_.registers[r].lanes();
    return n;
  }

  void walk(const std::vector<Instruction>& body, std::vector<RegId>& around) {
    for (const Instruction& inst : body) {
      std::vector<RegId> named;
      if (inst.op == Op::Loop) {
        if (inst.rd < p_.registers.size()) named.push_back(inst.rd);
        note(named, around);
        const bool pushed = inst.rd < p_.registers.size();
        if (pushed) around.push_back(inst.rd);
        walk(inst.body, around);
        if (pushed) around.pop_back();
        continue;
      }
      if (inst.op == Op::If) walk(inst.body, around);  // after the condition's registers are noted below
      for (const RegisterOperand& op : registerOperands(p_, inst)) named.push_back(op.reg);
      if (inst.rd < p_.registers.size()) named.push_back(inst.rd);
      for (RegId r : named) {
        if (r >= p_.registers.size() || !owner_[r]) continue;
        if (std::find(around.begin(), around.end(), r) == around.end()) out_.confined = false;
      }
      std::erase_if(named, [&](RegId r) { return r >= p_.registers.size(); });
      note(named, around);
    }
  }

  void note(const std::vector<RegId>& named, const std::vector<RegId>& around) {
    out_.unavoidable_lanes = std::max(out_.unavoidable_lanes, lanes(named));
    std::vector<RegId> nest = named;
    nest.insert(nest.end(), around.begin(), around.end());
    out_.nest_lanes = std::max(out_.nest_lanes, lanes(nest));
  }

  const Program& p_;
  std::vector<const Instruction*> owner_;  // by RegId: the loop that steps it
  std::vector<uint32_t> loops_;            // by RegId: how many loops step it
  RegisterDemand out_;
};

}  // namespace

RegisterDemand registerDemand(const Program& p) { return Walk(p).run(); }

}  // namespace allocsim
