#include "alloc/psum/psum_spill.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "alloc/psum/psum_accesses.h"

namespace allocsim {
namespace {

class SpillWriter {
 public:
  SpillWriter(Program& p, uint32_t& next_id) : p_(p), next_id_(next_id) {}

  void addSlot(TensorId t) {
    const Tensor& orig = p_.tensors[t];
    if (orig.space != Space::Psum)
      throw std::logic_error("memType == bir::MemoryType::PSUM && \"Expected save from PSUM\"");
    Tensor slot;
    slot.space = orig.bytesPerPartition() <= p_.arch.sbuf_bytes ? Space::Sbuf : Space::Dram;
    slot.partitions = orig.partitions;
    slot.elements = orig.elements;
    slot.dtype = orig.dtype;
    slot.origin = Origin::Spill;
    slot.copy_of = t;
    slot.loc = orig.loc;
    if (slot_of_.size() < p_.tensors.size()) slot_of_.resize(p_.tensors.size(), kNone);
    slot_of_[t] = mint(std::move(slot), "_SpillTensorCopy");
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

  PsumSpillStats stats;

 private:
  bool spilled(TensorId t) const { return t < slot_of_.size() && slot_of_[t] != kNone; }

  TensorId mint(Tensor t, const char* suffix) {
    const std::string base = p_.tensors[t.copy_of].name + suffix;
    std::string name;
    do name = base + std::to_string(next_id_++);
    while (p_.findTensor(name) != kNone || p_.findRegister(name) != kNone);
    t.name = name;
    p_.tensors.push_back(std::move(t));
    return TensorId(p_.tensors.size() - 1);
  }

  // A view whose second dimension overlaps itself is moved as its contiguous hull (all of whose elements the
  // view covers), so that the reload's destination does not overlap itself.
  static AccessPattern moved(AccessPattern ap) {
    if (ap.count2 > 1 && ap.step2 < ap.count) {
      ap.count = uint32_t(uint64_t(ap.count2 - 1) * ap.step2 + ap.count);
      ap.count2 = 1;
      ap.step2 = 0;
    }
    return ap;
  }
  static AccessPattern on(AccessPattern ap, TensorId t) {
    ap.tensor = t;
    return ap;
  }

  // One stand-in per spilled tensor the instruction touches, laid out like the tensor (the verifier reads an
  // inserted tensor as the one it copies, element for element). Every distinct view read is reloaded before
  // the instruction, the view written is saved after it.
  void rewriteOperands(Instruction& inst, std::vector<Instruction>& before, std::vector<Instruction>& after) {
    std::vector<std::pair<TensorId, TensorId>> stand_in;  // (spilled tensor, its stand-in here)
    std::vector<AccessPattern> reloaded;
    for (const PsumAccess& a : psumAccesses(p_, inst)) {
      AccessPattern& ap = operandOf(inst, a.operand);
      const TensorId t = ap.tensor;
      if (!spilled(t)) continue;
      TensorId r = kNone;
      for (const auto& [from, to] : stand_in)
        if (from == t) r = to;
      if (r == kNone) {
        r = makeStandIn(t);
        stand_in.push_back({t, r});
      }
      if (a.read && std::find(reloaded.begin(), reloaded.end(), ap) == reloaded.end()) {
        reloaded.push_back(ap);
        const AccessPattern v = moved(ap);
        before.push_back(dma(inst, Origin::Reload, on(v, r), on(v, slot_of_[t])));
        ++stats.reloads;
      }
      const AccessPattern original = ap;
      ap.tensor = r;
      if (a.write) {
        after.push_back(dma(inst, Origin::Spill, on(original, slot_of_[t]), on(original, r)));
        ++stats.saves;
      }
    }
  }

  TensorId makeStandIn(TensorId t) {
    Tensor r = p_.tensors[t];
    r.placement.reset();
    r.pinned = false;
    r.origin = Origin::Reload;
    r.copy_of = t;
    const TensorId rid = mint(std::move(r), "_ReloadTensorCopy");
    if (p_.tensors[rid].space != Space::Psum)
      throw std::logic_error("reload_target_memType == PSUM && \"Expected reload to PSUM\"");
    return rid;
  }

  Instruction dma(const Instruction& at, Origin origin, AccessPattern dst, AccessPattern src) const {
    Instruction c;
    c.op = Op::Dma;
    c.origin = origin;
    c.loc = at.loc;
    c.dst = std::move(dst);
    c.a = std::move(src);
    return c;
  }

  Program& p_;
  uint32_t& next_id_;
  std::vector<TensorId> slot_of_;  // by TensorId: its spill slot, kNone when not spilled
};

}  // namespace

PsumSpillStats insertPsumSpillCode(Program& p, const std::vector<TensorId>& spilled, uint32_t& next_id) {
  SpillWriter w(p, next_id);
  for (TensorId t : spilled) {
    if (t >= p.tensors.size()) throw std::logic_error("PSUM spill of an unknown tensor");
    w.addSlot(t);
  }
  w.rewrite(p.body);
  p.renumber();
  return w.stats;
}

}  // namespace allocsim
