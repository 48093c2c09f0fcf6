#include "alloc/reg/reg_spill.h"

#include <algorithm>
#include <string>

#include "alloc/copy_tensor.h"
#include "alloc/reg/reg_operands.h"
#include "ir/plant.h"

namespace allocsim {
namespace {

class SpillWriter {
 public:
  SpillWriter(Program& p, const std::vector<RegId>& spilled, uint32_t& next_id)
      : p_(p), next_id_(next_id), taken_(p) {
    slot_.assign(p.registers.size(), kNone);
    loop_.assign(p.registers.size(), false);
    inside_.assign(p.registers.size(), false);
    markLoops(p.body);
    for (RegId r : spilled)
      slot_[r] = ALLOCSIM_PLANT("reg_spill_slots_shared") && r != spilled.front() ? slot_[spilled.front()] : addSlot(r);
  }

  RegSpillStats run() {
    p_.body = rewrite(std::move(p_.body));
    p_.renumber();
    return stats_;
  }

 private:
  // A name no tensor or register has; the caller adds it to the program at once (TakenNames confirms a hash hit
  // there): a set of every name, built per spill round, was a node per name.
  std::string freshName(const std::string& base, const char* suffix) {
    std::string name;
    do name = base + suffix + std::to_string(next_id_++);
    while (taken_.contains(name));
    taken_.add(name);
    return name;
  }

  TensorId addSlot(RegId r) {
    const Register& reg = p_.registers[r];
    Tensor slot;
    slot.name = freshName(reg.name, "_RegSpill");
    slot.space = Space::Dram;
    slot.partitions = 1;
    slot.elements = reg.lanes();  // one u32 element per lane: reg_load / reg_store move 4 bytes a lane
    slot.dtype = DType::U32;
    slot.origin = Origin::Spill;
    slot.loc = reg.loc;
    p_.tensors.push_back(std::move(slot));
    return TensorId(p_.tensors.size() - 1);
  }

  RegId addStandIn(RegId r, Origin origin) {
    Register s;
    s.name = freshName(p_.registers[r].name, origin == Origin::Reload ? "_Reload" : "_Spill");
    s.width = p_.registers[r].width;
    s.origin = origin;
    s.copy_of = r;
    s.loc = p_.registers[r].loc;
    p_.registers.push_back(std::move(s));
    return RegId(p_.registers.size() - 1);
  }

  AccessPattern slotView(RegId r) const {
    AccessPattern ap;
    ap.tensor = slot_[r];
    ap.partitions = 1;
    ap.count = p_.registers[r].lanes();
    ap.loc = p_.registers[r].loc;
    return ap;
  }

  void markLoops(const std::vector<Instruction>& body) {
    for (const Instruction& inst : body)
      if (hasBody(inst.op)) {
        if (inst.op == Op::Loop && inst.rd < loop_.size()) loop_[inst.rd] = true;
        markLoops(inst.body);
      }
  }

  // A spilled loop register is spilled inside its loop's body only; elsewhere it keeps its lane.
  bool spilled(RegId r) const { return r < slot_.size() && slot_[r] != kNone && (!loop_[r] || inside_[r]); }

  Instruction storeOf(RegId value, RegId reg, SourceLoc loc) {  // reg_store slot(value), reg
    Instruction store;
    store.op = Op::RegStore;
    store.origin = Origin::Spill;
    store.loc = loc;
    store.rs = reg;
    store.dst = slotView(value);
    ++stats_.stores;
    return store;
  }

  Instruction loadOf(RegId value, RegId reg, SourceLoc loc) {  // reg_load reg, slot(value)
    Instruction load;
    load.op = Op::RegLoad;
    load.origin = Origin::Reload;
    load.loc = loc;
    load.rd = reg;
    load.a = slotView(value);
    ++stats_.reloads;
    return load;
  }

  // The body of a loop whose register r spills: it starts by storing r (the value the sequencer just set), reads
  // it through reloads, and ends by reloading r itself, so that the sequencer finds its value where it steps and
  // tests it. The checker accepts that reload because it gives r back the value it holds (ir/check_trace.cpp).
  std::vector<Instruction> spilledLoopBody(RegId r, std::vector<Instruction> body, SourceLoc loc) {
    inside_[r] = true;
    std::vector<Instruction> inner = rewrite(std::move(body));
    inside_[r] = false;
    std::vector<Instruction> out;
    out.reserve(inner.size() + 2);
    out.push_back(storeOf(r, r, loc));
    for (Instruction& i : inner) out.push_back(std::move(i));
    out.push_back(loadOf(r, r, loc));
    return out;
  }

  std::vector<Instruction> rewrite(std::vector<Instruction> body) {
    std::vector<Instruction> out;
    out.reserve(body.size());
    for (Instruction& inst : body) {
      if (inst.op == Op::Loop) {
        // A register bound reads the enclosing loops' registers themselves on entry: a spilled one is reloaded into
        // its own lanes right before the loop (the value it holds, as at the end of its body).
        std::vector<RegId> bound_reloads;
        for (const IndexTerm& t : inst.rare->mask.c.terms)
          if (t.reg != kNone && spilled(t.reg) &&
              std::find(bound_reloads.begin(), bound_reloads.end(), t.reg) == bound_reloads.end()) {
            bound_reloads.push_back(t.reg);
            out.push_back(loadOf(t.reg, t.reg, inst.loc));
          }
        if (inst.rd < slot_.size() && slot_[inst.rd] != kNone)
          inst.body = spilledLoopBody(inst.rd, std::move(inst.body), inst.loc);
        else
          inst.body = rewrite(std::move(inst.body));
        out.push_back(std::move(inst));
        continue;
      }
      RegisterSlots s = registerSlots(inst);
      // Reloads first, one stand-in per spilled register this instruction reads.
      std::vector<std::pair<RegId, RegId>> reloaded;  // (register, stand-in)
      for (RegId* slot : s.reads) {
        if (!spilled(*slot)) continue;
        RegId stand_in = kNone;
        for (auto& [r, si] : reloaded)
          if (r == *slot) stand_in = si;
        if (stand_in == kNone) {
          stand_in = addStandIn(*slot, Origin::Reload);
          reloaded.push_back({*slot, stand_in});
          out.push_back(loadOf(*slot, stand_in, inst.loc));
        }
        *slot = stand_in;
      }
      RegId stored = kNone, written = kNone;
      if (s.write && spilled(*s.write)) {
        written = *s.write;
        // An instruction that reads the register it writes (`addi x, x, 1`) writes into the stand-in it reloaded:
        // one value's lanes, as in the input; a second stand-in would meet the first at this instruction.
        for (auto& [r, si] : reloaded)
          if (r == written) stored = si;
        if (stored == kNone) stored = addStandIn(written, Origin::Spill);
        *s.write = stored;
      }
      normalizeRegisterTerms(inst);
      // An if's condition was reloaded before it, like any operand; its body is rewritten as a loop's is.
      if (inst.op == Op::If) inst.body = rewrite(std::move(inst.body));
      const SourceLoc loc = inst.loc;
      out.push_back(std::move(inst));
      if (stored != kNone) out.push_back(storeOf(written, stored, loc));
    }
    return out;
  }

  Program& p_;
  uint32_t& next_id_;
  TakenNames taken_;
  std::vector<TensorId> slot_;  // by RegId
  std::vector<bool> loop_;      // by RegId: some loop steps it
  std::vector<bool> inside_;    // by RegId: the rewrite is inside that spilled loop register's body
  RegSpillStats stats_;
};

}  // namespace

RegSpillStats insertRegisterSpills(Program& p, const std::vector<RegId>& spilled, uint32_t& next_id) {
  return SpillWriter(p, spilled, next_id).run();
}

}  // namespace allocsim
