#include "alloc/iteration_coverage.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "alloc/operand_effects.h"
#include "ir/values.h"

namespace allocsim {

enum class CoverageQuestion : uint8_t {
  Reads,             // iterationCoverage
  LaterReads,        // laterIterationCoverage
  IterationRewrite,  // iterationRewrite
  RunRewrite,        // runRewrite
  RunReads           // runCoverage
};

// See CoverageCache in the header. Slot states are those of CoverageWalk::noteSlots without the tested tensor's
// exclusion (isSlot applies it), so that they hold for every tensor.
struct CoverageCache::Data {
  const Program* program = nullptr;
  const LinearOrder* order = nullptr;
  struct Slots {
    bool done = false;
    std::vector<uint8_t> state;
  };
  struct Enclosing {
    bool written_done = false, taint_done = false;
    std::vector<RegId> regs;       // registers its body writes (loop registers included)
    std::vector<TensorId> slots;   // slots its body stores
    std::vector<bool> tainted;     // registers that may depend on its register (dependsOn's closure)
    uint64_t taint_units = 0;      // what computing the closure spent: charged again on every reuse
  };
  std::vector<Slots> slots;          // by loop index (of an outermost loop)
  std::vector<Enclosing> enclosing;  // by loop index

  void reset(const Program& p, const LinearOrder& o) {
    if (program == &p && order == &o) return;
    program = &p;
    order = &o;
    slots.assign(o.loops.size(), Slots{});
    enclosing.assign(o.loops.size(), Enclosing{});
  }
};
CoverageCache::CoverageCache() : data_(std::make_unique<Data>()) {}
CoverageCache::~CoverageCache() = default;

namespace {

// One bit per element of a [partitions, elements] tensor: "written by the current iteration".
class ElementBits {
 public:
  // `storage` is the caller's (kept from one decision to the next, see WalkScratch).
  ElementBits(std::vector<uint64_t>& storage, uint32_t rows, uint64_t elements)
      : words_((elements + 63) / 64), bits_(storage) {
    bits_.assign(size_t(rows) * words_, 0);
  }
  uint64_t words() const { return bits_.size(); }
  void clear() { std::fill(bits_.begin(), bits_.end(), 0); }

  // Sets or tests elements [lo, hi) of `row`; returns the words touched (the walk's cost).
  uint64_t set(uint32_t row, uint64_t lo, uint64_t hi) {
    return forWords(row, lo, hi, [](uint64_t& w, uint64_t mask) {
      w |= mask;
      return true;
    });
  }
  // all = whether every element of [lo, hi) is set.
  uint64_t test(uint32_t row, uint64_t lo, uint64_t hi, bool& all) const {
    all = true;
    return const_cast<ElementBits*>(this)->forWords(row, lo, hi, [&](uint64_t& w, uint64_t mask) {
      if ((w & mask) != mask) all = false;
      return all;
    });
  }

 private:
  template <typename F>
  uint64_t forWords(uint32_t row, uint64_t lo, uint64_t hi, F&& f) {
    if (lo >= hi) return 0;
    uint64_t* base = bits_.data() + size_t(row) * words_;
    uint64_t first = lo / 64, last = (hi - 1) / 64, touched = 0;
    for (uint64_t w = first; w <= last; ++w) {
      uint64_t from = w == first ? lo % 64 : 0, to = w == last ? (hi - 1) % 64 + 1 : 64;
      uint64_t mask = (to == 64 ? ~uint64_t(0) : (uint64_t(1) << to) - 1) & ~((uint64_t(1) << from) - 1);
      ++touched;
      if (!f(base[w], mask)) break;
    }
    return touched;
  }

  uint64_t words_;
  std::vector<uint64_t>& bits_;
};

// A view evaluated for one execution: partitions [partition, partition + partitions), per partition the runs
// offset + j * step2 + [0, count) for j < count2.
struct Box {
  uint64_t partition = 0, partitions = 0, offset = 0, count = 0, step2 = 0, count2 = 0;
};

// The plan of a tested loop's body (see CoverageWalk, "The plan").
struct Step {
  enum class Kind : uint8_t { Instruction, Loop, LeftOutLoop, If } kind;
  const Instruction* inst;
  uint64_t units;      // budget units spent on reaching it: the left-out instructions before it, and itself
  OperandViews views;  // Instruction: its views, computed once
  uint32_t block = 0;  // Loop, If: its body's plan (an index into blocks_)
  uint32_t binds_begin = 0, binds_end = 0;  // LeftOutLoop: the loop registers it leaves (in binds_)
};
struct Block {
  std::vector<Step> steps;
  uint64_t tail = 0;  // units of the left-out instructions after the last step
};
struct Bind {
  RegId reg;
  uint64_t value;
};

struct Flags {
  bool first, last;
};

// An enclosing loop of the tested one (see CoverageWalk::outer): what every iteration of it may change (the
// registers and spill slots its body writes, anywhere in it: forgotten when an iteration starts, since the code
// after the inner loop is not walked), and whether its first iteration stands for all.
struct Level {
  uint32_t regs_begin, regs_end;    // in WalkScratch::forget_regs
  uint32_t slots_begin, slots_end;  // in WalkScratch::forget_slots
  bool first_only;
};

// Every vector a decision uses, kept from one decision to the next (one set per thread): liveness asks for a
// decision per tensor and enclosing loop on every allocator round, so allocating them per decision would dominate the
// heap allocations of an allocation.
struct WalkScratch {
  std::vector<uint64_t> bits;
  std::vector<std::optional<uint64_t>> regs;
  std::vector<bool> named, written;
  std::vector<const Instruction*> chain;
  std::vector<Flags> flags;
  std::vector<Block> blocks;  // blocks[0, blocks_used) are this decision's; the rest keep their room
  size_t blocks_used = 0;
  std::vector<Bind> binds;
  std::vector<uint8_t> slot_state;                    // by TensorId: see CoverageWalk::collect
  std::vector<const AccessPattern*> slot_view;        // by TensorId: a slot's one view
  std::vector<std::optional<uint64_t>> slot_value;    // by TensorId: what the slot holds, when the walk knows it
  std::vector<uint32_t> slot_width;                   // by TensorId: the width of the register stored there
  std::vector<Level> levels;                          // by enclosing loop, outermost first: see CoverageWalk::outer
  std::vector<RegId> forget_regs;                     // Level::regs_* index this
  std::vector<TensorId> forget_slots;                 // Level::slots_* index this
  std::vector<bool> tainted_regs, tainted_slots;      // dependsOn's
  std::vector<size_t> chain_index;

  // A huge tensor's bitmap, or a huge body's plan, is not kept for the next decision.
  void trim() {
    constexpr size_t kKeep = size_t(1) << 16;  // elements of any one vector
    if (bits.capacity() > kKeep) std::vector<uint64_t>().swap(bits);
    size_t steps = 0;
    for (const Block& b : blocks) steps += b.steps.capacity();
    if (steps > kKeep || blocks.size() > kKeep) std::vector<Block>().swap(blocks);
  }
};

class CoverageWalk {
 public:
  CoverageWalk(const Program& p, TensorId t, uint64_t budget, WalkScratch& scratch, CoverageCache::Data& cache,
               CoverageQuestion question)
      : p_(p), t_(t), budget_(budget), question_(question), bits_(scratch.bits, p.tensors[t].partitions, p.tensors[t].elements),
        regs_(scratch.regs), flags_(scratch.flags), named_(scratch.named),
        written_(scratch.written), blocks_(scratch.blocks), blocks_used_(scratch.blocks_used), binds_(scratch.binds),
        chain_(scratch.chain), slot_state_(scratch.slot_state), slot_view_(scratch.slot_view),
        slot_value_(scratch.slot_value), slot_width_(scratch.slot_width), levels_(scratch.levels),
        forget_regs_(scratch.forget_regs), forget_slots_(scratch.forget_slots), tainted_regs_(scratch.tainted_regs),
        tainted_slots_(scratch.tainted_slots), cache_(cache), chain_index_(scratch.chain_index) {
    regs_.assign(p.registers.size(), std::nullopt);
    flags_.clear();
    blocks_used_ = 0;
    binds_.clear();
  }

  IterationCoverage run(const LinearOrder& order, int32_t loop) {
    std::vector<const Instruction*>& chain = chain_;
    chain.clear();
    chain_index_.clear();
    for (int32_t l = loop; l >= 0; l = order.loops[size_t(l)].parent) {
      chain.push_back(order.loops[size_t(l)].inst);
      chain_index_.push_back(size_t(l));
    }
    std::reverse(chain.begin(), chain.end());
    std::reverse(chain_index_.begin(), chain_index_.end());
    findInvariance(chain);
    root_ = plan(chain.back()->body);
    outer(chain, 0);
    // A write the walk skipped (unknown address) might have covered the read found uncovered.
    if (verdict_ == IterationCoverage::Carried && (skipped_write_ || uncertain_seen_)) return IterationCoverage::Undecidable;
    return verdict_;
  }

 private:
  bool done() const { return verdict_ != IterationCoverage::Covered; }

  bool spend(uint64_t units) {
    if (units > budget_) {
      verdict_ = IterationCoverage::Undecidable;
      return false;
    }
    budget_ -= units;
    return true;
  }

  // Which iterations can differ. Every iteration of the tested loop starts with nothing written, so its verdict
  // depends only on where t's views land and on the first / last flags (start@first, stop@last). When no view of t
  // in the body names the tested loop's register or a register the body writes (other than inner loops' own,
  // which restart from constants every iteration), every iteration but the first and the last is the second one
  // again: walking those three decides the loop. An enclosing loop on whose register nothing the walk reads depends
  // (dependsOn) runs the tested loop the same way on every iteration (its flags are not the tested body's): one
  // iteration decides it. Exact, and the walk no longer grows with trip counts where the views do not move.
  void findInvariance(const std::vector<const Instruction*>& chain) {
    const Instruction& tested = *chain.back();
    named_.assign(regs_.size(), false);
    std::vector<bool>& written = written_;
    written.assign(regs_.size(), false);
    slot_value_.assign(p_.tensors.size(), std::nullopt);
    slot_width_.assign(p_.tensors.size(), 0);
    // The walk reads slots in the enclosing bodies too (prewalk): those of the outermost loop's body, once per cache.
    CoverageCache::Data::Slots& slots = cache_.slots[chain_index_.front()];
    if (!slots.done) {
      slot_state_.assign(p_.tensors.size(), kSlotUnseen);
      slot_view_.assign(p_.tensors.size(), nullptr);
      if (namesSlotCandidate(chain.front()->body)) collectSlots(chain.front()->body);
      slots.state = slot_state_;
      slots.done = true;
    } else {
      slot_state_ = slots.state;
    }
    collect(tested.body, written);
    // The bounds of the loops of the chain, and the conditions of the ifs between them, decide which iterations of
    // the tested loop run: an enclosing loop they depend on is walked in full.
    for (size_t i = 0; i < chain.size(); ++i) {
      nameCondition(*chain[i]);
      if (i + 1 < chain.size()) namePath(chain[i]->body, chain[i + 1]);
    }
    tested_invariant_ = !names(tested.rd);
    for (RegId r = 0; r < regs_.size(); ++r)
      if (named_[r] && written[r]) tested_invariant_ = false;
    levels_.clear();
    forget_regs_.clear();
    forget_slots_.clear();
    for (size_t i = 0; i + 1 < chain.size(); ++i) {
      Level lv{uint32_t(forget_regs_.size()), 0, uint32_t(forget_slots_.size()), 0, false};
      CoverageCache::Data::Enclosing& en = cache_.enclosing[chain_index_[i]];
      if (!en.written_done) {
        writtenBy(chain[i]->body);
        en.regs.assign(forget_regs_.begin() + lv.regs_begin, forget_regs_.end());
        en.slots.assign(forget_slots_.begin() + lv.slots_begin, forget_slots_.end());
        en.written_done = true;
      } else {
        forget_regs_.insert(forget_regs_.end(), en.regs.begin(), en.regs.end());
        forget_slots_.insert(forget_slots_.end(), en.slots.begin(), en.slots.end());
      }
      lv.regs_end = uint32_t(forget_regs_.size());
      lv.slots_end = uint32_t(forget_slots_.size());
      lv.first_only = !dependsOn(*chain[i], en);
      levels_.push_back(lv);
    }
  }
  // Names the conditions of the ifs around `inner` in `b`; true when `inner` lies in `b`.
  bool namePath(const std::vector<Instruction>& b, const Instruction* inner) {
    for (const Instruction& inst : b) {
      if (&inst == inner) return true;
      if (inst.op == Op::If && namePath(inst.body, inner)) {
        nameCondition(inst);
        return true;
      }
    }
    return false;
  }
  static bool contains(const std::vector<Instruction>& b, const Instruction* inner) {
    for (const Instruction& inst : b)
      if (&inst == inner || (inst.op == Op::If && contains(inst.body, inner))) return true;
    return false;
  }
  static bool namesSlotCandidate(const std::vector<Instruction>& b) {
    for (const Instruction& inst : b)
      if (hasBody(inst.op) ? namesSlotCandidate(inst.body) : inst.op == Op::RegStore || inst.op == Op::RegLoad)
        return true;
    return false;
  }
  void collectSlots(const std::vector<Instruction>& b) {
    for (const Instruction& inst : b)
      if (hasBody(inst.op))
        collectSlots(inst.body);
      else
        noteSlots(inst, operandViews(inst));
  }
  void collect(const std::vector<Instruction>& b, std::vector<bool>& written) {
    for (const Instruction& inst : b) {
      if (hasBody(inst.op)) {
        // An if's condition and a loop's register bound decide what the body does with t, per iteration.
        nameCondition(inst);
        if (inst.op == Op::Loop && inst.rd < written.size()) written[inst.rd] = true;
        collect(inst.body, written);
        continue;
      }
      if (inst.rd < written.size()) written[inst.rd] = true;
      const OperandViews v = operandViews(inst);
      InlineList<const AccessPattern*, 5> mine;  // the reads, the write and the reduction's write
      for (const AccessPattern* ap : v.reads)
        if (ap->tensor == t_) mine.push_back(ap);
      if (v.write && v.write->tensor == t_) mine.push_back(v.write);
      if (v.reduce_write && v.reduce_write->tensor == t_) mine.push_back(v.reduce_write);
      for (const AccessPattern* ap : mine)
        for (const Index* ix : {&ap->partition, &ap->offset})
          for (const IndexTerm& term : ix->terms)
            if (term.reg < named_.size()) named_[term.reg] = true;
    }
  }
  void nameCondition(const Instruction& inst) {
    if (inst.op != Op::If && !hasRegisterBound(inst)) return;
    for (const IndexTerm& term : inst.rare->mask.c.terms)
      if (term.reg < named_.size()) named_[term.reg] = true;
  }
  // Appends to forget_regs_ / forget_slots_ every register (loop registers included) and slot that `b` writes.
  void writtenBy(const std::vector<Instruction>& b) {
    for (const Instruction& inst : b) {
      if (hasBody(inst.op)) writtenBy(inst.body);
      if ((computesRegister(inst.op) || inst.op == Op::Loop) && inst.rd < regs_.size()) forget_regs_.push_back(inst.rd);
      if (inst.op == Op::RegStore && isRawSlot(inst.dst.tensor)) forget_slots_.push_back(inst.dst.tensor);
    }
  }
  // Whether a register named by a view of t in the tested body may depend on the value of l's register: a
  // flow-insensitive closure over l's body of what li / addi / add / mov and the spill slots carry (a superset).
  // The closure is the same for every tensor (slots as the cache keeps them, the tested tensor included): computed
  // once per cache, and what it spent is charged again on every reuse, so that the verdict does not depend on it.
  bool dependsOn(const Instruction& l, CoverageCache::Data::Enclosing& en) {
    if (names(l.rd)) return true;
    bool any = false;  // no view of t names a register: nothing to depend on
    for (RegId r = 0; r < regs_.size() && !any; ++r) any = named_[r];
    if (!any || l.rd >= regs_.size()) return false;
    if (en.taint_done) {
      if (!spend(en.taint_units)) return true;
    } else {
      tainted_regs_.assign(regs_.size(), false);
      tainted_slots_.assign(p_.tensors.size(), false);
      tainted_regs_[l.rd] = true;
      const uint64_t before = budget_;
      for (bool changed = true; changed && !done();) {
        changed = false;
        taint(l.body, changed);
      }
      if (done()) return true;  // out of budget: the verdict is Undecidable anyway
      en.tainted = tainted_regs_;
      en.taint_units = before - budget_;
      en.taint_done = true;
    }
    for (RegId r = 0; r < regs_.size(); ++r)
      if (named_[r] && en.tainted[r]) return true;
    return false;
  }
  void taint(const std::vector<Instruction>& b, bool& changed) {
    auto reg = [&](RegId r) { return r < regs_.size() && tainted_regs_[r]; };
    for (const Instruction& inst : b) {
      if (!spend(1)) return;
      bool from = false;
      switch (inst.op) {
        case Op::If:
        case Op::Loop: {
          // A body run or not, or a number of times, by a tainted register: what it writes depends on it too.
          bool control = false;
          if (inst.op == Op::If || hasRegisterBound(inst))
            for (const IndexTerm& term : inst.rare->mask.c.terms) control = control || reg(term.reg);
          if (control) taintWrites(inst, changed);
          taint(inst.body, changed);
          continue;
        }
        case Op::Addi:
        case Op::Mov: from = reg(inst.rs); break;
        case Op::Add: from = reg(inst.rs) || reg(inst.rt); break;
        case Op::RegLoad: from = isRawSlot(inst.a.tensor) && tainted_slots_[inst.a.tensor]; break;
        case Op::RegStore:
          if (isRawSlot(inst.dst.tensor) && reg(inst.rs) && !tainted_slots_[inst.dst.tensor])
            changed = tainted_slots_[inst.dst.tensor] = true;
          continue;
        default: continue;
      }
      if (from && inst.rd < regs_.size() && !tainted_regs_[inst.rd]) changed = tainted_regs_[inst.rd] = true;
    }
  }
  void taintWrites(const Instruction& inst, bool& changed) {
    if (inst.op == Op::Loop && inst.rd < regs_.size() && !tainted_regs_[inst.rd]) changed = tainted_regs_[inst.rd] = true;
    for (const Instruction& x : inst.body) {
      if (hasBody(x.op)) {
        taintWrites(x, changed);
        continue;
      }
      if (computesRegister(x.op) && x.rd < regs_.size() && !tainted_regs_[x.rd]) changed = tainted_regs_[x.rd] = true;
      if (x.op == Op::RegStore && isRawSlot(x.dst.tensor) && !tainted_slots_[x.dst.tensor])
        changed = tainted_slots_[x.dst.tensor] = true;
    }
  }
  bool names(RegId r) const { return r < named_.size() && named_[r]; }

  // Register spill slots. The REG colorer spills a register with `reg_store SLOT, r` and reloads it with
  // `reg_load r', SLOT` (alloc/reg/reg_spill.h); an address computed from r' is as known as r was. A DRAM tensor
  // (not t) is a slot for this decision when, in the tested body, only reg_store and reg_load name it, all through
  // one view with constant indexes: the walk then sees every write to it and carries the stored value to the loads
  // (when the widths agree). Without this, the program after REG had addresses the walk did not know where the
  // program before REG had none, and liveness on the driver's output was coarser than the colorers' own.
  static constexpr uint8_t kSlotUnseen = 0, kSlot = 1, kNotSlot = 2;
  static bool sameView(const AccessPattern& a, const AccessPattern& b) {
    return a.partition.constant == b.partition.constant && a.offset.constant == b.offset.constant &&
           a.partitions == b.partitions && a.count == b.count && a.step2 == b.step2 && a.count2 == b.count2;
  }
  void noteSlots(const Instruction& inst, const OperandViews& v) {
    const AccessPattern* slot = inst.op == Op::RegStore ? &inst.dst : inst.op == Op::RegLoad ? &inst.a : nullptr;
    auto disqualify = [&](const AccessPattern* ap) {
      if (ap && ap->tensor < slot_state_.size() && ap != slot) slot_state_[ap->tensor] = kNotSlot;
    };
    for (const AccessPattern* ap : v.reads) disqualify(ap);
    disqualify(v.write);
    disqualify(v.reduce_write);
    if (!slot || slot->tensor >= slot_state_.size()) return;
    uint8_t& state = slot_state_[slot->tensor];
    if (state == kNotSlot) return;
    const bool constant = slot->partition.isConstant() && slot->offset.isConstant();
    if (p_.tensors[slot->tensor].space != Space::Dram || !constant ||
        (slot_view_[slot->tensor] && !sameView(*slot_view_[slot->tensor], *slot))) {
      state = kNotSlot;
      return;
    }
    state = kSlot;
    slot_view_[slot->tensor] = slot;
  }
  // The tested tensor is never a slot for its own decision.
  bool isRawSlot(TensorId x) const { return x < slot_state_.size() && slot_state_[x] == kSlot; }
  bool isSlot(TensorId x) const { return x != t_ && isRawSlot(x); }

  // Runs the loops of `chain` from `i` on; the last one is the loop under test, whose every iteration starts
  // with nothing written. An iteration of an enclosing loop starts by forgetting what its body may have left from
  // the previous one (the walk does not follow the code after the inner loop), then walks the registers and spill
  // slots its body computes before the inner loop (prewalk): a register the REG colorer spilled there and reloads in
  // the tested body keeps its value (without this, O7's checker would refuse a placement the driver made). Nothing
  // before the outermost loop is walked: what it leaves is unknown.
  void outer(const std::vector<const Instruction*>& chain, size_t i) {
    const Instruction& l = *chain[i];
    if (i + 1 == chain.size()) {
      if (question_ == CoverageQuestion::RunRewrite || question_ == CoverageQuestion::RunReads) {
        // One run of the loop, what its iterations wrote kept from one to the next. The iterations the sampling
        // leaves out write where the second one does (findInvariance), so they add nothing to the union.
        if (!spend(bits_.words())) return;
        bits_.clear();
        iterate(l, tested_invariant_ ? Sampling::FirstSecondLast : Sampling::All, [&] { walk(root_); });
        if (question_ == CoverageQuestion::RunRewrite && !done() && !allWritten() && !done())
          verdict_ = IterationCoverage::Carried;
        return;
      }
      iterate(l, tested_invariant_ ? Sampling::FirstSecondLast : Sampling::All, [&] {
        if (!spend(bits_.words())) return;
        bits_.clear();
        tested_first_ = flags_.back().first;
        walk(root_);
        // The rewrite question: the iteration must also have written every element by its end.
        if (question_ == CoverageQuestion::IterationRewrite && !done() && !allWritten() && !done())
          verdict_ = IterationCoverage::Carried;
      });
      return;
    }
    const Level& lv = levels_[i];
    iterate(l, lv.first_only ? Sampling::First : Sampling::All, [&] {
      if (!spend(uint64_t(lv.regs_end - lv.regs_begin) + (lv.slots_end - lv.slots_begin))) return;
      for (uint32_t k = lv.regs_begin; k < lv.regs_end; ++k)
        if (forget_regs_[k] != l.rd) regs_[forget_regs_[k]] = std::nullopt;
      for (uint32_t k = lv.slots_begin; k < lv.slots_end; ++k) slot_value_[forget_slots_[k]] = std::nullopt;
      if (prewalk(l.body, chain[i + 1]) && !done()) outer(chain, i + 1);
    });
  }

  // The instructions of an enclosing body before `inner` (the next loop of the chain): what they compute in
  // registers and slots (scalar). A loop or an if among them is not walked: what it writes becomes unknown, but a
  // loop's register holds its exit value. An if around `inner` is entered: false when its condition is known not to
  // hold (the inner loop does not run on this iteration); one whose condition is unknown is taken as holding, and
  // the verdict can then be Covered or Undecidable only (uncertain_seen_).
  bool prewalk(const std::vector<Instruction>& b, const Instruction* inner) {
    for (const Instruction& inst : b) {
      if (&inst == inner || done() || !spend(1)) return !done();
      if (inst.op == Op::If && contains(inst.body, inner)) {
        const std::optional<__int128> c = index(inst.rare->mask.c);
        if (c && !conditionHolds(inst.rare->mask.cmp, *c)) return false;
        if (!c) uncertain_seen_ = true;
        return prewalk(inst.body, inner);
      }
      if (!hasBody(inst.op)) {
        scalar(inst);
        continue;
      }
      forgetWrites(inst);
      if (done()) return false;
      if (inst.op == Op::Loop) {
        const std::optional<__int128> hi = upperBound(inst);
        bind(inst.rd, inst.step > 0 && hi ? std::optional<uint64_t>(exitValue(inst, *hi)) : std::nullopt);
      }
    }
    return !done();
  }

  // Forgets every register and slot that the body of `inst` (a loop or an if) writes.
  void forgetWrites(const Instruction& inst) {
    const size_t regs = forget_regs_.size(), slots = forget_slots_.size();
    writtenBy(inst.body);
    if (!spend(forget_regs_.size() - regs + forget_slots_.size() - slots)) return;
    for (size_t k = regs; k < forget_regs_.size(); ++k) regs_[forget_regs_[k]] = std::nullopt;
    for (size_t k = slots; k < forget_slots_.size(); ++k) slot_value_[forget_slots_[k]] = std::nullopt;
    forget_regs_.resize(regs);
    forget_slots_.resize(slots);
  }

  // A loop's upper bound on this entry: hi, or its register bound when the walk knows its registers (at most hi).
  std::optional<__int128> upperBound(const Instruction& l) const {
    if (!hasRegisterBound(l)) return __int128(l.hi);
    const std::optional<__int128> b = index(l.rare->mask.c);
    if (!b) return std::nullopt;
    return std::min<__int128>(*b, l.hi);
  }

  enum class Sampling : uint8_t { All, FirstSecondLast, First };

  // Binds l's register to each of its values in turn (the checker keeps loop registers unwritten inside their
  // loops) and calls f, then leaves the exit value, as ir/interp.h does. A sampling other than All visits only
  // those iterations (see findInvariance).
  // A loop with a register bound runs to that bound when the walk knows it; otherwise to hi, with its body
  // uncertain (its iterations may not run: see uncertain_) and its exit value unknown.
  template <typename F>
  void iterate(const Instruction& l, Sampling sampling, F&& f) {
    if (l.step <= 0) return;
    const std::optional<__int128> bound = upperBound(l);
    const __int128 hi = bound ? *bound : __int128(l.hi);
    if (!bound) ++uncertain_, uncertain_seen_ = true;
    __int128 v = l.lo;
    const __int128 last = hi > l.lo ? l.lo + (hi - l.lo - 1) / l.step * l.step : l.lo;
    // Every iteration costs a unit, so that empty bodies and loops that never reach the tested one still end
    // within the budget.
    for (; v < hi && !done() && spend(1); v += l.step) {
      if (sampling == Sampling::First && v != l.lo) break;
      if (sampling == Sampling::FirstSecondLast && v == l.lo + 2 * __int128(l.step) && last > v) v = last;
      bind(l.rd, uint64_t(int64_t(v)));
      flags_.push_back({v == l.lo, v + l.step >= hi});
      f();
      flags_.pop_back();
    }
    if (!bound) {
      --uncertain_;
      forgetWrites(l);
      bind(l.rd, std::nullopt);
      return;
    }
    bind(l.rd, exitValue(l, hi));  // the exit value, however many were visited
  }

  void bind(RegId r, std::optional<uint64_t> v) {
    if (r >= regs_.size()) return;
    if (v && p_.registers[r].width == 32) *v &= 0xffffffffu;
    regs_[r] = v;
  }
  std::optional<uint64_t> reg(RegId r) const { return r < regs_.size() ? regs_[r] : std::nullopt; }

  // ---- The plan (built once per decision, walked on every visited iteration) ----
  // Only three kinds of instruction can change what the walk decides: one that mentions t (its views), one that
  // computes a register (li / addi / add / mov / reg_load: a later view of t may name it), and a loop (it binds its
  // register). Every other instruction, and every loop whose body holds none of the first two, is left out of the
  // plan; what the walk spent on them (a budget unit per instruction visited and per iteration) is charged in one
  // sum where they stood, and a left-out loop still leaves its register (and those of the loops inside it) at the
  // exit value. The verdict is the same as walking every instruction, budget exhaustion included; the walk's cost
  // no longer grows with the instructions that do not touch t.
  static uint64_t add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
  static bool computesRegister(Op op) {
    return op == Op::Li || op == Op::Addi || op == Op::Add || op == Op::Mov || op == Op::RegLoad;
  }
  bool mentions(const OperandViews& v) const {
    for (const AccessPattern* ap : v.reads)
      if (ap->tensor == t_) return true;
    return (v.write && v.write->tensor == t_) || (v.reduce_write && v.reduce_write->tensor == t_);
  }
  bool storesSlot(const Instruction& inst) const { return inst.op == Op::RegStore && isSlot(inst.dst.tensor); }
  // An if, and a loop with a register bound, are always walked (so a left-out loop holds neither).
  bool needed(const std::vector<Instruction>& b) const {
    for (const Instruction& inst : b)
      if (inst.op == Op::If || hasRegisterBound(inst) ||
          (inst.op == Op::Loop ? needed(inst.body)
                               : computesRegister(inst.op) || storesSlot(inst) || mentions(operandViews(inst))))
        return true;
    return false;
  }

  // Iterations of a loop with step > 0 (as iterate visits them with Sampling::All), and the value it leaves.
  static unsigned __int128 trips(const Instruction& l) {
    return l.hi > l.lo ? (unsigned __int128)((__int128(l.hi) - l.lo - 1) / l.step) + 1 : 0;
  }
  static uint64_t exitValue(const Instruction& l) { return exitValue(l, l.hi); }
  static uint64_t exitValue(const Instruction& l, __int128 hi) {
    const __int128 last = hi > l.lo ? l.lo + (hi - l.lo - 1) / l.step * l.step : l.lo;
    return uint64_t(int64_t(hi > l.lo ? last + l.step : l.lo));
  }

  // What walking a left-out loop would spend: its own unit, and per iteration a unit and its body's.
  static uint64_t leftOutUnits(const Instruction& l) {
    if (l.step <= 0) return 1;
    uint64_t inner = 1;
    for (const Instruction& x : l.body) inner = add(inner, x.op == Op::Loop ? leftOutUnits(x) : 1);
    const unsigned __int128 n = trips(l) * inner;  // both below 2^64: no overflow in 128 bits
    return add(1, n > UINT64_MAX ? UINT64_MAX : uint64_t(n));
  }
  // The registers a left-out loop leaves, in the order walking it would bind them (its last iteration's inner
  // loops, then its own exit value).
  void leftOutBinds(const Instruction& l) {
    if (l.step <= 0) return;
    if (trips(l) > 0)
      for (const Instruction& x : l.body)
        if (x.op == Op::Loop) leftOutBinds(x);
    binds_.push_back({l.rd, exitValue(l)});
  }

  uint32_t plan(const std::vector<Instruction>& b) {
    const uint32_t id = uint32_t(blocks_used_++);
    if (blocks_.size() < blocks_used_) blocks_.emplace_back();
    blocks_[id].steps.clear();
    uint64_t pending = 0;
    for (const Instruction& inst : b) {
      Step s{Step::Kind::Instruction, &inst, 0, {}, 0, 0, 0};
      if (inst.op == Op::If) {
        s.kind = Step::Kind::If;
        s.units = add(pending, 1);
        s.block = plan(inst.body);
      } else if (inst.op == Op::Loop && (hasRegisterBound(inst) || needed(inst.body))) {
        s.kind = Step::Kind::Loop;
        s.units = add(pending, 1);
        s.block = plan(inst.body);
      } else if (inst.op == Op::Loop) {
        s.kind = Step::Kind::LeftOutLoop;
        s.units = add(pending, leftOutUnits(inst));
        s.binds_begin = uint32_t(binds_.size());
        leftOutBinds(inst);
        s.binds_end = uint32_t(binds_.size());
      } else {
        s.views = operandViews(inst);
        if (!computesRegister(inst.op) && !storesSlot(inst) && !mentions(s.views)) {
          pending = add(pending, 1);
          continue;
        }
        s.units = add(pending, 1);
      }
      pending = 0;
      blocks_[id].steps.push_back(s);
    }
    blocks_[id].tail = pending;
    return id;
  }

  void walk(uint32_t block) {
    const Block& b = blocks_[block];
    for (const Step& s : b.steps) {
      if (done() || !spend(s.units)) return;
      switch (s.kind) {
        case Step::Kind::Instruction: instruction(*s.inst, s.views); break;
        case Step::Kind::Loop: iterate(*s.inst, Sampling::All, [&] { walk(s.block); }); break;
        case Step::Kind::LeftOutLoop:
          for (uint32_t i = s.binds_begin; i < s.binds_end; ++i) bind(binds_[i].reg, binds_[i].value);
          break;
        case Step::Kind::If: {
          // Known: the body runs or not, exactly. Unknown: it is walked as uncertain, and what it computes is
          // forgotten after it.
          const std::optional<__int128> c = index(s.inst->rare->mask.c);
          if (c) {
            if (conditionHolds(s.inst->rare->mask.cmp, *c)) walk(s.block);
            break;
          }
          ++uncertain_;
          uncertain_seen_ = true;
          walk(s.block);
          --uncertain_;
          forgetWrites(*s.inst);
          break;
        }
      }
    }
    if (!done()) spend(b.tail);
  }

  bool startHolds(When w) const {
    switch (w) {
      case When::Always: return true;
      case When::Never: return false;
      case When::First: return flags_.empty() || flags_.back().first;
      case When::Last: return flags_.empty() || flags_.back().last;
    }
    return false;
  }

  void instruction(const Instruction& inst, const OperandViews& v) {
    for (const AccessPattern* ap : v.reads)
      if (ap->tensor == t_) read(*ap);
    if (v.write && v.write->tensor == t_) {
      if (v.accumulates && !startHolds(inst.start)) read(*v.write);
      write(*v.write);
    }
    if (v.reduce_write && v.reduce_write->tensor == t_) write(*v.reduce_write);
    scalar(inst);
  }

  // Register values computed inside the walk from known ones; anything else written becomes unknown.
  void scalar(const Instruction& inst) {
    switch (inst.op) {
      case Op::Li: bind(inst.rd, immToRegister(inst.imm)); break;
      case Op::Addi: {
        auto s = reg(inst.rs);
        bind(inst.rd, s ? std::optional<uint64_t>(*s + immToRegister(inst.imm)) : std::nullopt);
        break;
      }
      case Op::Add: {
        auto s = reg(inst.rs), u = reg(inst.rt);
        bind(inst.rd, s && u ? std::optional<uint64_t>(*s + *u) : std::nullopt);
        break;
      }
      case Op::Mov: bind(inst.rd, reg(inst.rs)); break;
      case Op::RegStore:
        if (isSlot(inst.dst.tensor) && inst.rs < regs_.size()) {
          slot_value_[inst.dst.tensor] = reg(inst.rs);
          slot_width_[inst.dst.tensor] = p_.registers[inst.rs].width;
        }
        break;
      case Op::RegLoad: {
        const TensorId x = inst.a.tensor;
        const bool known = isSlot(x) && inst.rd < regs_.size() && slot_width_[x] == p_.registers[inst.rd].width;
        bind(inst.rd, known ? slot_value_[x] : std::nullopt);
        break;
      }
      default: break;
    }
  }

  std::optional<__int128> index(const Index& i) const {
    // Every term; partial sums clamped to +-2^100 as in ir/view.cpp (exact wherever an element can be named).
    const __int128 limit = __int128(1) << 100;
    auto clamp = [&](__int128 v) { return v > limit ? limit : v < -limit ? -limit : v; };
    __int128 sum = i.constant;
    for (const IndexTerm& t : i.terms) {
      auto r = reg(t.reg);
      if (!r) return std::nullopt;
      sum = clamp(sum + clamp(__int128(t.scale) * __int128(t.apply(*r))));
    }
    return sum;
  }

  // The view for this execution, or nothing when it cannot be evaluated (`unknown`: a register the walk does not
  // know) or lies outside its tensor (the verdict is then Undecidable).
  std::optional<Box> box(const AccessPattern& ap, bool& unknown) {
    const Tensor& t = p_.tensors[t_];
    auto part = index(ap.partition), off = index(ap.offset);
    unknown = !part || !off;
    bool empty = ap.count == 0 || ap.count2 == 0 || ap.partitions == 0;
    if (part && off && !empty) {
      __int128 last = *off + __int128(ap.count2 - 1) * ap.step2 + ap.count - 1;
      if (*part >= 0 && *part + ap.partitions <= t.partitions && *off >= 0 && last < t.elements)
        return Box{uint64_t(*part), ap.partitions, uint64_t(*off), ap.count, ap.step2, ap.count2};
    }
    if (part && off && empty) return Box{};
    if (!unknown) verdict_ = IterationCoverage::Undecidable;
    return std::nullopt;
  }

  // Whether every element of t is written by this iteration so far: then a read is covered wherever it lands.
  bool allWritten() {
    const Tensor& t = p_.tensors[t_];
    for (uint32_t q = 0; q < t.partitions; ++q) {
      bool all = true;
      if (!spend(bits_.test(q, 0, t.elements, all) + 1)) return false;
      if (!all) return false;
    }
    return true;
  }

  void read(const AccessPattern& ap) {
    bool unknown = false;
    auto b = box(ap, unknown);
    // The later-iterations question leaves out what the first iteration of each run reads.
    if (question_ == CoverageQuestion::LaterReads && tested_first_) return;
    // A read at an address the walk does not know (a register loaded from memory: e.g. a spilled register's
    // reload, alloc/reg/reg_spill.h) is decided only when it cannot miss: the whole tensor is written.
    if (!b) {
      if (unknown && !allWritten() && !done()) verdict_ = IterationCoverage::Undecidable;
      return;
    }
    for (uint64_t q = 0; q < b->partitions; ++q)
      for (uint64_t j = 0; j < b->count2; ++j) {
        bool all = true;
        uint64_t lo = b->offset + j * b->step2;
        if (!spend(bits_.test(uint32_t(b->partition + q), lo, lo + b->count, all) + 1)) return;
        if (!all) {
          // A read that may not run decides nothing.
          verdict_ = uncertain_ ? IterationCoverage::Undecidable : IterationCoverage::Carried;
          return;
        }
      }
  }

  void write(const AccessPattern& ap) {
    bool unknown = false;
    auto b = box(ap, unknown);
    // A write at an unknown address can only add coverage: leaving it out keeps a Covered verdict sound, and turns
    // a Carried one into Undecidable (run).
    if (!b && unknown) skipped_write_ = true;
    if (!b) return;
    // A write that may not run is left out, as one at an unknown address.
    if (uncertain_) {
      skipped_write_ = true;
      return;
    }
    for (uint64_t q = 0; q < b->partitions; ++q)
      for (uint64_t j = 0; j < b->count2; ++j) {
        uint64_t lo = b->offset + j * b->step2;
        if (!spend(bits_.set(uint32_t(b->partition + q), lo, lo + b->count) + 1)) return;
      }
  }

  const Program& p_;
  TensorId t_;
  uint64_t budget_;
  CoverageQuestion question_;
  bool tested_first_ = false;  // the walk is in the first iteration of a run of the tested loop
  ElementBits bits_;
  // The rest live in the thread's WalkScratch.
  std::vector<std::optional<uint64_t>>& regs_;  // by RegId: the value, when the walk knows it
  std::vector<Flags>& flags_;                   // the enclosing loops' first / last iteration, innermost last
  IterationCoverage verdict_ = IterationCoverage::Covered;
  bool skipped_write_ = false;  // a write of t at an address the walk did not know was left out
  uint32_t uncertain_ = 0;      // the walk is inside bodies that may not run (an if or a register bound it cannot evaluate)
  bool uncertain_seen_ = false;  // it was, somewhere (a Carried verdict may then come from code that does not run)
  std::vector<bool>& named_;    // by RegId: an index term of a view of t in the tested body
  std::vector<bool>& written_;  // findInvariance's
  bool tested_invariant_ = false;  // see findInvariance
  std::vector<Block>& blocks_;     // the plan of the tested loop's body (blocks_[root_]) and of the loops in it
  size_t& blocks_used_;
  std::vector<Bind>& binds_;
  std::vector<const Instruction*>& chain_;
  std::vector<uint8_t>& slot_state_;
  std::vector<const AccessPattern*>& slot_view_;
  std::vector<std::optional<uint64_t>>& slot_value_;
  std::vector<uint32_t>& slot_width_;
  std::vector<Level>& levels_;  // by enclosing loop of the tested one, outermost first
  std::vector<RegId>& forget_regs_;
  std::vector<TensorId>& forget_slots_;
  std::vector<bool>& tainted_regs_;  // dependsOn's
  std::vector<bool>& tainted_slots_;
  CoverageCache::Data& cache_;
  std::vector<size_t>& chain_index_;  // order.loops indexes of chain_
  uint32_t root_ = 0;
};

}  // namespace

// The three questions (the friend of CoverageCache).
IterationCoverage decideCoverage(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                                 CoverageCache& cache, uint64_t budget, CoverageQuestion question) {
  if (t >= p.tensors.size() || loop < 0 || size_t(loop) >= order.loops.size()) return IterationCoverage::Undecidable;
  const Tensor& x = p.tensors[t];
  // The bitmap itself counts against the budget: a huge tensor is not worth an exact answer.
  uint64_t words = uint64_t(x.partitions) * ((uint64_t(x.elements) + 63) / 64);
  if (words > budget) return IterationCoverage::Undecidable;
  static thread_local WalkScratch scratch;
  cache.data_->reset(p, order);
  IterationCoverage verdict = CoverageWalk(p, t, budget, scratch, *cache.data_, question).run(order, loop);
  scratch.trim();
  return verdict;
}

IterationCoverage iterationCoverage(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                                    CoverageCache& cache, uint64_t budget) {
  return decideCoverage(p, order, t, loop, cache, budget, CoverageQuestion::Reads);
}

IterationCoverage iterationRewrite(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                                   CoverageCache& cache, uint64_t budget) {
  return decideCoverage(p, order, t, loop, cache, budget, CoverageQuestion::IterationRewrite);
}

IterationCoverage laterIterationCoverage(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                                         CoverageCache& cache, uint64_t budget) {
  return decideCoverage(p, order, t, loop, cache, budget, CoverageQuestion::LaterReads);
}

IterationCoverage runRewrite(const Program& p, const LinearOrder& order, TensorId t, int32_t loop, CoverageCache& cache,
                             uint64_t budget) {
  return decideCoverage(p, order, t, loop, cache, budget, CoverageQuestion::RunRewrite);
}

IterationCoverage runCoverage(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                              CoverageCache& cache, uint64_t budget) {
  return decideCoverage(p, order, t, loop, cache, budget, CoverageQuestion::RunReads);
}

IterationCoverage iterationCoverage(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                                    uint64_t budget) {
  CoverageCache cache;
  return iterationCoverage(p, order, t, loop, cache, budget);
}

}  // namespace allocsim
