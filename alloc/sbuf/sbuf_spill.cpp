#include "alloc/sbuf/sbuf_spill.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "alloc/alloc_error.h"
#include "alloc/copy_tensor.h"
#include "alloc/instruction_stand_ins.h"
#include "alloc/sbuf/sbuf_accesses.h"
#include "alloc/spill_dma.h"

namespace allocsim {
namespace {

class SpillWriter {
 public:
  SpillWriter(Program& p, uint32_t& next_id, std::vector<bool>& local) : p_(p), next_id_(next_id), local_(local) {}

  void addSlot(TensorId t) {
    const Tensor& orig = p_.tensors[t];
    const TensorId s = addCopyTensor(p_, spillSlotOf(orig, t, Space::Dram), "_Spill", next_id_);
    slot_of_.resize(p_.tensors.size(), kNone);
    slot_of_[t] = s;
  }

  void rewrite(std::vector<Instruction>& body) {
    std::vector<Instruction> out;
    out.reserve(body.size());
    for (Instruction& inst : body) {
      if (inst.op == Op::Loop) {
        rewrite(inst.body);
        out.push_back(std::move(inst));
        continue;
      }
      std::vector<Instruction> before, after;
      rewriteOperands(inst, before, after);
      for (Instruction& i : before) out.push_back(std::move(i));
      out.push_back(std::move(inst));
      for (Instruction& i : after) out.push_back(std::move(i));
    }
    body = std::move(out);
  }

  SbufSpillStats stats;

 private:
  bool spilled(TensorId t) const { return t < slot_of_.size() && slot_of_[t] != kNone; }

  void rewriteOperands(Instruction& inst, std::vector<Instruction>& before, std::vector<Instruction>& after) {
    InstructionStandIns here;
    for (const SbufAccess& a : sbufAccesses(p_, inst)) {
      AccessPattern& ap = operandOf(inst, a.operand);
      const TensorId t = ap.tensor;
      if (!spilled(t)) continue;
      const TensorId r = here.of(t, [&](TensorId x) { return makeStandIn(x); });
      if (a.read && here.firstRead(ap)) {
        const AccessPattern v = reloadView(ap);
        before.push_back(reloadDma(inst.loc, v, r, slot_of_[t]));
        ++stats.reloads;
      }
      const AccessPattern original = ap;
      ap.tensor = r;
      if (a.write) {
        after.push_back(saveDma(inst.loc, original, r, slot_of_[t]));
        ++stats.stores;
      }
    }
  }

  TensorId makeStandIn(TensorId t) {
    const TensorId id = addCopyTensor(p_, reloadStandInOf(p_, t), "_Reload", next_id_);
    local_.resize(p_.tensors.size(), false);
    local_[id] = true;
    return id;
  }

  Program& p_;
  uint32_t& next_id_;
  std::vector<bool>& local_;
  std::vector<TensorId> slot_of_;  // by TensorId: its spill slot, kNone when not spilled
};

void requireDramRoom(const Program& p, const std::vector<TensorId>& moved) {
  uint64_t total = 0;
  for (const Tensor& t : p.tensors)
    if (t.space == Space::Dram) total += t.totalBytes();
  if (total <= p.arch.dram_limit) return;
  const Tensor& culprit = p.tensors[moved.front()];
  throw AllocError(culprit.loc, "spilling SBUF tensors to DRAM (first '" + culprit.name + "') needs " +
                                    std::to_string(total) + " bytes of DRAM tensors in total; dram-limit is " +
                                    std::to_string(p.arch.dram_limit));
}

}  // namespace

SbufSpillStats insertSbufSpillCode(Program& p, const std::vector<TensorId>& spilled,
                                   const std::vector<TensorId>& rehomed, uint32_t& next_id, std::vector<bool>& local) {
  std::vector<TensorId> moved;
  for (TensorId t : rehomed) {
    if (t >= p.tensors.size() || p.tensors[t].space != Space::Sbuf) throw std::logic_error("SBUF rehome of a non-SBUF tensor");
    p.tensors[t].space = Space::Dram;
    p.tensors[t].placement.reset();
    moved.push_back(t);
  }
  SpillWriter w(p, next_id, local);
  for (TensorId t : spilled) {
    if (t >= p.tensors.size() || p.tensors[t].space != Space::Sbuf) throw std::logic_error("SBUF spill of a non-SBUF tensor");
    w.addSlot(t);
    moved.push_back(t);
  }
  w.rewrite(p.body);
  local.resize(p.tensors.size(), false);
  p.renumber();
  if (!moved.empty()) requireDramRoom(p, moved);
  return w.stats;
}

}  // namespace allocsim
