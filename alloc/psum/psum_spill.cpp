#include "alloc/psum/psum_spill.h"

#include <stdexcept>
#include <string>

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
  struct StandIn {
    AccessPattern original;     // the view of t it replaces
    AccessPattern replacement;  // the operand that reads / writes the stand-in
    bool hull = false;          // holds the contiguous hull of an overlapping source view
  };

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

  static bool isFlat(const AccessPattern& ap) { return ap.count2 <= 1 || ap.step2 >= ap.count; }
  // Elements from an overlapping view's first to its last: one contiguous run, all of them in the view.
  static uint64_t hull(const AccessPattern& ap) { return uint64_t(ap.count2 - 1) * ap.step2 + ap.count; }

  // Sources come before the destination in psumAccesses, so a view both read and written is reloaded before it
  // is saved; an access equal to an earlier one of the same instruction shares its stand-in.
  void rewriteOperands(Instruction& inst, std::vector<Instruction>& before, std::vector<Instruction>& after) {
    std::vector<StandIn> made;
    for (const PsumAccess& a : psumAccesses(p_, inst)) {
      AccessPattern& ap = operandOf(inst, a.operand);
      if (!spilled(ap.tensor)) continue;
      size_t k = 0;
      while (k < made.size() && !(made[k].original == ap && (!a.write || !made[k].hull))) ++k;
      if (k == made.size()) {
        made.push_back(makeStandIn(ap, a.read && !a.write && !isFlat(ap)));
        if (a.read) addReload(inst, made[k], before);
      }
      const StandIn& s = made[k];
      ap = s.replacement;
      if (a.write) addSave(inst, s, after);
    }
  }

  StandIn makeStandIn(const AccessPattern& ap, bool use_hull) {
    const TensorId t = ap.tensor;
    Tensor r;
    r.space = Space::Psum;
    r.partitions = ap.partitions;
    r.elements = uint32_t(use_hull ? hull(ap) : ap.elementsPerPartition());
    r.dtype = p_.tensors[t].dtype;
    r.origin = Origin::Reload;
    r.copy_of = t;
    r.loc = p_.tensors[t].loc;
    const TensorId rid = mint(std::move(r), "_ReloadTensorCopy");
    if (p_.tensors[rid].space != Space::Psum)
      throw std::logic_error("reload_target_memType == PSUM && \"Expected reload to PSUM\"");
    StandIn s;
    s.original = ap;
    s.hull = use_hull;
    if (use_hull) {
      s.replacement = ap;
      s.replacement.tensor = rid;
      s.replacement.partition = Index{};
      s.replacement.offset = Index{};
    } else {
      s.replacement = wholeTensor(p_, rid);
      s.replacement.loc = ap.loc;
    }
    return s;
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

  void addReload(const Instruction& at, const StandIn& s, std::vector<Instruction>& before) {
    AccessPattern dst = wholeTensor(p_, s.replacement.tensor);
    dst.loc = s.original.loc;
    AccessPattern src = s.original;
    src.tensor = slot_of_[s.original.tensor];
    if (s.hull) {
      src.count = uint32_t(hull(s.original));
      src.count2 = 1;
      src.step2 = 0;
    }
    before.push_back(dma(at, Origin::Reload, dst, src));
    ++stats.reloads;
  }

  void addSave(const Instruction& at, const StandIn& s, std::vector<Instruction>& after) {
    AccessPattern slot = s.original;
    slot.tensor = slot_of_[s.original.tensor];
    after.push_back(dma(at, Origin::Spill, slot, s.replacement));
    ++stats.saves;
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
