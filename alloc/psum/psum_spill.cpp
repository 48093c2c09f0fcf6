#include "alloc/psum/psum_spill.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "alloc/psum/psum_accesses.h"
#include "alloc/copy_tensor.h"
#include "alloc/instruction_stand_ins.h"
#include "alloc/psum/psum_def_regions.h"
#include "alloc/spill_dma.h"

namespace allocsim {
namespace {

class SpillWriter {
 public:
  SpillWriter(Program& p, uint32_t& next_id) : p_(p), next_id_(next_id) {}

  void addSlot(TensorId t) {
    const Tensor& orig = p_.tensors[t];
    if (orig.space != Space::Psum)
      throw std::logic_error("memType == bir::MemoryType::PSUM && \"Expected save from PSUM\"");
    Tensor slot = spillSlotOf(orig, t, orig.bytesPerPartition() <= p_.arch.sbuf_bytes ? Space::Sbuf : Space::Dram);
    if (slot_of_.size() < p_.tensors.size()) slot_of_.resize(p_.tensors.size(), kNone);
    slot_of_[t] = addCopyTensor(p_, std::move(slot), "_SpillTensorCopy", next_id_);
  }

  // The saves of accumulation groups, by the id of the instruction they follow (a closing matmul or a K-loop).
  void addGroupSaves(TensorId t, const std::vector<PsumGroupSave>& saves) {
    for (const PsumGroupSave& s : saves) group_saves_.push_back({s.after, t, s.view});
  }

  void rewrite(std::vector<Instruction>& body) {
    std::vector<Instruction> out;
    out.reserve(body.size());
    for (Instruction& inst : body) {
      const uint32_t id = inst.id;
      if (hasBody(inst.op)) {
        const std::vector<PsumSavedElements> outside = saved_;  // a loop or if body may not run: its saves stay inside
        rewrite(inst.body);
        saved_ = outside;
        out.push_back(std::move(inst));
      } else {
        std::vector<Instruction> before, after;
        rewriteOperands(inst, before, after);
        for (Instruction& i : before) out.push_back(std::move(i));
        out.push_back(std::move(inst));
        for (Instruction& i : after) out.push_back(std::move(i));
      }
      const SourceLoc loc = out.back().loc;
      for (const GroupSave& s : group_saves_) {
        if (s.after != id) continue;
        out.push_back(spillDma(loc, Origin::Spill, viewOn(s.view, slot_of_[s.tensor]), s.view));
        ++stats.saves;
        savedOf(s.tensor).add(p_, s.view);
      }
    }
    body = std::move(out);
  }

  PsumSpillStats stats;

 private:
  bool spilled(TensorId t) const { return t < slot_of_.size() && slot_of_[t] != kNone; }

  PsumSavedElements& savedOf(TensorId t) {
    if (saved_.size() <= t) saved_.resize(size_t(t) + 1);
    return saved_[t];
  }

  // One stand-in per spilled tensor the instruction touches, laid out like the tensor (the verifier reads an
  // inserted tensor as the one it copies, element for element). Once the slot holds every element
  // (PsumSavedElements) the stand-in is reloaded whole — one reload, and a whole write, so the stand-in is not
  // live around an enclosing loop; before that, every distinct view read is reloaded. The view written is
  // saved after the instruction.
  void rewriteOperands(Instruction& inst, std::vector<Instruction>& before, std::vector<Instruction>& after) {
    InstructionStandIns here;
    std::vector<std::pair<TensorId, AccessPattern>> saved_here;  // counts from the next instruction on
    for (const PsumAccess& a : psumAccesses(p_, inst)) {
      AccessPattern& ap = operandOf(inst, a.operand);
      const TensorId t = ap.tensor;
      if (!spilled(t)) continue;
      if (inst.op == Op::Matmul && a.operand == Operand::Dst) continue;  // a group member: the accumulator stays
      const AccessPattern original = ap;
      const AccessPattern reloaded = savedOf(t).whole() ? wholeTensor(p_, t) : ap;
      const auto make = [&](TensorId x) { return makeStandIn(x); };
      const InstructionStandIns::Copies c =
          here.moveOperand(ap, reloaded, a.read, a.write, slot_of_[t], inst.loc, make, before, after);
      stats.reloads += c.reloaded;
      stats.saves += c.saved;
      if (c.saved) saved_here.push_back({t, original});
    }
    for (const auto& [t, v] : saved_here) savedOf(t).add(p_, v);
  }

  TensorId makeStandIn(TensorId t) {
    const TensorId rid = addCopyTensor(p_, reloadStandInOf(p_, t), "_ReloadTensorCopy", next_id_);
    if (p_.tensors[rid].space != Space::Psum)
      throw std::logic_error("reload_target_memType == PSUM && \"Expected reload to PSUM\"");
    return rid;
  }

  struct GroupSave {
    uint32_t after;
    TensorId tensor;
    AccessPattern view;
  };

  Program& p_;
  uint32_t& next_id_;
  std::vector<TensorId> slot_of_;  // by TensorId: its spill slot, kNone when not spilled
  std::vector<GroupSave> group_saves_;  // in the order of the spilled list, then of program order
  // By TensorId: what its slot holds on every path to the current point of the rewrite.
  std::vector<PsumSavedElements> saved_;
};

}  // namespace

PsumSpillStats insertPsumSpillCode(Program& p, const std::vector<TensorId>& spilled, uint32_t& next_id) {
  p.renumber();  // the plans name instructions by id
  SpillWriter w(p, next_id);
  for (TensorId t : spilled) {
    if (t >= p.tensors.size()) throw std::logic_error("PSUM spill of an unknown tensor");
    w.addSlot(t);
    const PsumSpillPlan plan = planPsumSpill(p, t);
    if (!plan.spillable) throw std::logic_error("PSUM spill of an un-spillable tensor: " + plan.why_not);
    w.addGroupSaves(t, plan.group_saves);
  }
  w.rewrite(p.body);
  p.renumber();
  return w.stats;
}

}  // namespace allocsim
