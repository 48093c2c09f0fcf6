#include "alloc/psum/psum_def_regions.h"

#include <algorithm>
#include <optional>

#include "alloc/linear_order.h"
#include "alloc/operand_effects.h"
#include "alloc/psum/psum_accesses.h"

namespace allocsim {
namespace {

bool usesRegister(const AccessPattern& v, RegId r) { return v.partition.uses(r) || v.offset.uses(r); }

// Whether `inst` (a loop: anywhere in it, its own register included) writes a register `v` is addressed by.
bool writesViewRegister(const Program& p, const Instruction& inst, const AccessPattern& v) {
  if (!v.hasRegister()) return false;
  if (hasBody(inst.op)) {
    if (inst.op == Op::Loop && usesRegister(v, inst.rd)) return true;
    for (const Instruction& i : inst.body)
      if (writesViewRegister(p, i, v)) return true;
    return false;
  }
  for (RegId r : operandEffects(p, inst).reg_writes)
    if (usesRegister(v, r)) return true;
  return false;
}

class Planner {
 public:
  Planner(const Program& p, TensorId t) : p_(p), t_(t) {}

  PsumSpillPlan run() {
    plan_.spillable = block(p_.body, PsumSavedElements{});
    if (plan_.spillable) plan_.why_not.clear();
    else plan_.group_saves.clear();
    return plan_;
  }

 private:
  struct Open {
    AccessPattern view;
  };

  bool fail(const Instruction& at, const std::string& why) {
    plan_.why_not = why + " (line " + std::to_string(at.loc.line) + ")";
    return false;
  }

  bool isGroupMatmul(const Instruction& i) const { return i.op == Op::Matmul && i.dst.tensor == t_; }

  // Whether an operand of `i` (not a loop) names the tensor.
  bool touches(const Instruction& i) const {
    for (const PsumAccess& a : psumAccesses(p_, i))
      if (operandOf(i, a.operand).tensor == t_) return true;
    return false;
  }

  bool mentions(const Instruction& i) const {
    if (!hasBody(i.op)) return touches(i);
    return std::any_of(i.body.begin(), i.body.end(), [&](const Instruction& j) { return mentions(j); });
  }

  // A matmul of a group (the destination is the only operand naming the tensor).
  bool operandsOk(const Instruction& m) const { return m.a.tensor != t_ && m.b.tensor != t_; }

  // Inside an open group on `v`: `i` may only continue it (matmul v, no start, no stop, anywhere in a loop)
  // and may not change a register `v` is addressed by.
  bool continuesOnly(const Instruction& i, const AccessPattern& v) {
    if (writesViewRegister(p_, i, v)) return fail(i, "a register addressing the group's view changes inside it");
    if (hasBody(i.op)) {
      for (const Instruction& j : i.body)
        if (!continuesOnly(j, v)) return false;
      return true;
    }
    if (!touches(i)) return true;
    if (!isGroupMatmul(i) || !operandsOk(i)) return fail(i, "accessed while its accumulation group is open");
    if (i.start != When::Never || i.stop != When::Never || !(i.dst == v))
      return fail(i, "a matmul inside an open group that is not a plain continuation of it");
    return true;
  }

  static bool opensKLoop(const Instruction& loop, TensorId t) {
    for (const Instruction& i : loop.body)
      if (i.op == Op::Matmul && i.dst.tensor == t && i.start == When::First) return true;
    return false;
  }

  // loop { matmul v, start@first ... matmul v, stop@last }: the group spans every iteration.
  bool kLoop(const Instruction& loop) {
    std::vector<const Instruction*> direct;  // the group's matmuls directly in the body, in order
    for (const Instruction& i : loop.body)
      if (isGroupMatmul(i)) direct.push_back(&i);
    const Instruction& first = *direct.front();
    const Instruction& last = *direct.back();
    const AccessPattern v = first.dst;
    if (first.start != When::First || last.stop != When::Last)
      return fail(loop, "a K-loop group that does not open on the first iteration and close on the last");
    if (loopTrips(loop) == 0) return fail(loop, "its K-loop never runs, so there is nothing to save after it");
    if (hasRegisterBound(loop))
      return fail(loop, "its K-loop has a register bound, so on some entries it may not run and save nothing");
    if (writesViewRegister(p_, loop, v)) return fail(loop, "the K-loop changes a register addressing the group");
    // The first mention in the body opens the group and the last closes it; everything else continues it.
    bool seen_first = false;
    for (const Instruction& i : loop.body) {
      if (!mentions(i)) continue;
      if (&i == &first) {
        if (!operandsOk(i) || (&first != &last && i.stop != When::Never))
          return fail(i, "a K-loop group matmul that is not a plain opener");
        seen_first = true;
        continue;
      }
      if (!seen_first) return fail(i, "accessed in its K-loop before the group opens");
      if (&i == &last) {
        if (!operandsOk(i) || i.start != When::Never || !(i.dst == v))
          return fail(i, "a K-loop group matmul that is not a plain closer");
        continue;
      }
      if (!continuesOnly(i, v)) return false;
    }
    plan_.group_saves.push_back({loop.id, v});
    return true;
  }

  // A consumer or a non-matmul writer, outside every group: one whole reload once the slot holds every element,
  // else one per distinct view read; one save if it writes (psum_spill.h), which counts from the next
  // instruction on.
  bool access(const Instruction& i, PsumSavedElements& saved) {
    if (i.op == Op::RegLoad || i.op == Op::RegStore)
      return fail(i, "reg_load / reg_store addresses it (a copied value would not count as the stored one)");
    if (i.op == Op::Matmul) return fail(i, "a matmul operand");
    std::vector<AccessPattern> read, written;
    for (const PsumAccess& a : psumAccesses(p_, i)) {
      const AccessPattern& ap = operandOf(i, a.operand);
      if (ap.tensor != t_) continue;
      const AccessPattern key = saved.whole() ? wholeTensor(p_, t_) : ap;
      if (a.read && std::find(read.begin(), read.end(), key) == read.end()) read.push_back(key);
      if (a.write) {
        ++plan_.writer_saves;
        written.push_back(ap);
      }
    }
    plan_.reloads += uint32_t(read.size());
    for (const AccessPattern& w : written) saved.add(p_, w);
    return true;
  }

  // `saved`: what the slot holds on every path to the start of `body`.
  bool block(const std::vector<Instruction>& body, PsumSavedElements saved) {
    std::optional<Open> open;
    for (const Instruction& i : body) {
      if (open && !isGroupMatmul(i)) {
        if (!continuesOnly(i, open->view)) return false;
        continue;
      }
      if (i.op == Op::If) {  // its body may not run: as a loop that is no K-loop
        if (mentions(i) && !block(i.body, saved)) return false;
        continue;
      }
      if (i.op == Op::Loop) {
        if (!mentions(i)) continue;
        if (!opensKLoop(i, t_)) {
          if (!block(i.body, saved)) return false;  // saves in a loop body do not count after it (0 trips)
          continue;
        }
        if (!kLoop(i)) return false;
        saved.add(p_, plan_.group_saves.back().view);
        continue;
      }
      if (!isGroupMatmul(i)) {
        if (touches(i) && !access(i, saved)) return false;
        continue;
      }
      if (!operandsOk(i)) return fail(i, "a matmul reads its own accumulator as an operand");
      if (!open) {
        if (i.start != When::Always || (i.stop != When::Always && i.stop != When::Never))
          return fail(i, "an accumulation group that does not open and close in one block");
        if (i.stop == When::Always) {
          plan_.group_saves.push_back({i.id, i.dst});
          saved.add(p_, i.dst);
        } else {
          open = Open{i.dst};
        }
        continue;
      }
      if (i.start != When::Never || !(i.dst == open->view) || (i.stop != When::Always && i.stop != When::Never))
        return fail(i, "a matmul inside an open group that is not a plain continuation or close of it");
      if (i.stop == When::Always) {
        plan_.group_saves.push_back({i.id, open->view});
        saved.add(p_, open->view);
        open.reset();
      }
    }
    if (open) return fail(body.back(), "an accumulation group still open at the end of its block");
    return true;
  }

  const Program& p_;
  const TensorId t_;
  PsumSpillPlan plan_;
};

}  // namespace

void PsumSavedElements::add(const Program& p, const AccessPattern& v) {
  if (whole_ || v.tensor >= p.tensors.size()) return;
  const Tensor& t = p.tensors[v.tensor];
  if (!v.partition.isConstant() || v.partition.constant != 0 || v.partitions != t.partitions ||
      !v.offset.isConstant() || v.offset.constant < 0 || v.count2 != 1)
    return;
  uint64_t begin = uint64_t(v.offset.constant), end = begin + v.count;
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& r : ranges_) {
    if (r.second < begin || end < r.first) {
      merged.push_back(r);
      continue;
    }
    begin = std::min(begin, r.first);
    end = std::max(end, r.second);
  }
  merged.push_back({begin, end});
  std::sort(merged.begin(), merged.end());
  ranges_ = std::move(merged);
  whole_ = ranges_.size() == 1 && ranges_[0].first == 0 && ranges_[0].second >= t.elements;
}

PsumSpillPlan planPsumSpill(const Program& p, TensorId t) { return Planner(p, t).run(); }

}  // namespace allocsim
