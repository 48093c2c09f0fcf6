#include "alloc/sbuf/sbuf_spill.h"

#include <stdexcept>
#include <string>
#include <type_traits>
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
  SpillWriter(Program& p, uint32_t& next_id, std::vector<bool>& local)
      : p_(p), next_id_(next_id), local_(local), taken_(p) {}

  void addSlot(TensorId t) {
    const Tensor& orig = p_.tensors[t];
    const TensorId s = addCopyTensor(p_, spillSlotOf(orig, t, Space::Dram), "_Spill", next_id_, taken_);
    slot_of_.resize(p_.tensors.size(), kNone);
    slot_of_[t] = s;
  }

  // `out` = `in` with the spill code. The instructions that change (and each loop, its body rewritten) are made
  // first, in program order, which mints the stand-ins in the order it always did; then `out` is filled, allocated
  // once at its final size. Growing it moved every instruction again, and rewriting in place after copying the
  // program copied it twice (an Instruction is ~1.5 KB, and under pressure these moves and the page faults of the
  // vectors they filled dominate the SBUF colorer's time). `Body` is a const body, whose
  // instructions are copied, or a body about to be dropped, whose instructions are moved (each copy allocates its
  // operands' index terms: the largest heap-allocation site of the linear-scan fuzz target).
  template <class Body>
  void rewrite(Body& in, std::vector<Instruction>& out) {
    constexpr bool kMove = !std::is_const_v<Body>;
    auto take = [](auto& inst) -> Instruction {
      if constexpr (kMove) return std::move(inst);
      else return inst;
    };
    struct Edit {
      size_t at;
      Instruction inst;
      std::vector<Instruction> before, after;
    };
    std::vector<Edit> edits;
    size_t extra = 0;
    for (size_t k = 0; k < in.size(); ++k) {
      if (hasBody(in[k].op)) {
        Edit e{k, {}, {}, {}};
        if constexpr (kMove) {
          std::vector<Instruction> body = std::move(in[k].body);
          e.inst = std::move(in[k]);
          e.inst.body.clear();
          rewrite(body, e.inst.body);
        } else {
          e.inst = withoutBody(in[k]);
          rewrite(in[k].body, e.inst.body);
        }
        edits.push_back(std::move(e));
        continue;
      }
      if (!touchesSpilled(in[k])) continue;
      Edit e{k, take(in[k]), {}, {}};
      rewriteOperands(e.inst, e.before, e.after);
      extra += e.before.size() + e.after.size();
      edits.push_back(std::move(e));
    }
    out.clear();
    out.reserve(in.size() + extra);
    auto e = edits.begin();
    for (size_t k = 0; k < in.size(); ++k) {
      if (e == edits.end() || e->at != k) {
        out.push_back(take(in[k]));
        continue;
      }
      for (Instruction& i : e->before) out.push_back(std::move(i));
      out.push_back(std::move(e->inst));
      for (Instruction& i : e->after) out.push_back(std::move(i));
      ++e;
    }
  }

  SbufSpillStats stats;

 private:
  bool spilled(TensorId t) const { return t < slot_of_.size() && slot_of_[t] != kNone; }

  bool touchesSpilled(const Instruction& inst) const {
    for (const SbufAccess& a : sbufAccesses(p_, inst))
      if (spilled(operandOf(inst, a.operand).tensor)) return true;
    return false;
  }

  void rewriteOperands(Instruction& inst, std::vector<Instruction>& before, std::vector<Instruction>& after) {
    InstructionStandIns here;
    for (const SbufAccess& a : sbufAccesses(p_, inst)) {
      AccessPattern& ap = operandOf(inst, a.operand);
      const TensorId t = ap.tensor;
      if (!spilled(t)) continue;
      const InstructionStandIns::Copies c = here.moveOperand(
          ap, ap, a.read, a.write, slot_of_[t], inst.loc, [&](TensorId x) { return makeStandIn(x); }, before, after);
      stats.reloads += c.reloaded;
      stats.stores += c.saved;
    }
  }

  TensorId makeStandIn(TensorId t) {
    const TensorId id = addCopyTensor(p_, reloadStandInOf(p_, t), "_Reload", next_id_, taken_);
    local_.resize(p_.tensors.size(), false);
    local_[id] = true;
    return id;
  }

  Program& p_;
  uint32_t& next_id_;
  std::vector<bool>& local_;
  std::vector<TensorId> slot_of_;  // by TensorId: its spill slot, kNone when not spilled
  TakenNames taken_;
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

// `Body`: const std::vector<Instruction> (from's body is copied) or std::vector<Instruction> (moved out of).
template <class Body>
SbufSpillStats insertSpillCode(const Program& from, Body& from_body, Program& p, const std::vector<TensorId>& spilled,
                               const std::vector<TensorId>& rehomed, uint32_t& next_id, std::vector<bool>& local) {
  p.arch = from.arch;  // every part of the program but its body, which the writer rewrites from `from`'s
  p.tensors = from.tensors;
  p.registers = from.registers;
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
  w.rewrite(from_body, p.body);
  local.resize(p.tensors.size(), false);
  p.renumber();
  if (!moved.empty()) requireDramRoom(p, moved);
  return w.stats;
}

}  // namespace

SbufSpillStats insertSbufSpillCode(const Program& from, Program& p, const std::vector<TensorId>& spilled,
                                   const std::vector<TensorId>& rehomed, uint32_t& next_id, std::vector<bool>& local) {
  return insertSpillCode(from, from.body, p, spilled, rehomed, next_id, local);
}

SbufSpillStats insertSbufSpillCode(Program& p, const std::vector<TensorId>& spilled,
                                   const std::vector<TensorId>& rehomed, uint32_t& next_id, std::vector<bool>& local) {
  Program from = std::move(p);
  return insertSpillCode(from, from.body, p, spilled, rehomed, next_id, local);
}

}  // namespace allocsim
