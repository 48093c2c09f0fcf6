#include "sim/reg_load_slice.h"

#include <algorithm>

#include "ir/operand_table.h"
#include "sim/footprint.h"

namespace allocsim::sim {

namespace {

// Whether a view without register terms lies inside its tensor (a view outside fails the run in both modes; it
// then stands for its whole tensor here, like a view with register terms).
bool inside(const Tensor& t, const AccessPattern& ap) {
  const int64_t p = ap.partition.constant, o = ap.offset.constant;
  if (p < 0 || o < 0 || ap.count2 == 0) return false;
  const __int128 last = __int128(o) + __int128(ap.count2 - 1) * ap.step2 + ap.count;
  return uint64_t(p) + ap.partitions <= t.partitions && last <= t.elements;
}

bool isStatic(const Program& p, const AccessPattern& ap) {
  return ap.tensor < p.tensors.size() && !ap.hasRegister() && inside(p.tensors[ap.tensor], ap);
}

// The rectangle a view can touch: its own without register terms, else its tensor's (empty for no tensor).
Footprint footprintOf(const Program& p, const MachineLayout& layout, const AccessPattern& ap) {
  if (ap.tensor >= p.tensors.size()) return {};
  const Tensor& t = p.tensors[ap.tensor];
  ResolvedView v;
  v.tensor = ap.tensor;
  v.dtype = t.dtype;
  v.elem_size = dtypeSize(t.dtype);
  if (isStatic(p, ap)) {
    v.partition = uint32_t(ap.partition.constant);
    v.partitions = ap.partitions;
    v.offset = uint64_t(ap.offset.constant);
    v.count = ap.count;
    v.step2 = ap.step2;
    v.count2 = ap.count2;
  } else {
    v.partitions = t.partitions;
    v.count = t.elements;
  }
  return viewFootprint(layout, v);
}

// The same elements: the same tensor, shape and indexes (registers included; where a view was written is not part
// of it).
bool sameView(const AccessPattern& a, const AccessPattern& b) {
  return a.tensor == b.tensor && a.partitions == b.partitions && a.count == b.count && a.step2 == b.step2 &&
         a.count2 == b.count2 && a.partition == b.partition && a.offset == b.offset;
}

struct Live {
  Footprint fp;
  // The view that made it live while the registers of its terms keep their values; null after one is written.
  const AccessPattern* view;
  bool operator==(const Live& o) const {
    const Footprint &f = fp, &g = o.fp;
    return f.resource == g.resource && f.row_lo == g.row_lo && f.row_hi == g.row_hi && f.byte_lo == g.byte_lo &&
           f.byte_hi == g.byte_hi && (view && o.view ? sameView(*view, *o.view) : view == o.view);
  }
};
using LiveSet = std::vector<Live>;

// Adds `l` unless it is there; true when added.
bool add(LiveSet& set, const Live& l) {
  if (l.fp.empty() || std::find(set.begin(), set.end(), l) != set.end()) return false;
  set.push_back(l);
  return true;
}

class Slicer {
 public:
  Slicer(const Program& p, const MachineLayout& layout, std::vector<bool>& computed)
      : p_(p), layout_(layout), computed_(computed) {}
  // The live set before `body`, given the one after it; false when a loop did not settle (then nothing is known).
  bool walk(const std::vector<Instruction>& body, LiveSet& live) {
    for (auto it = body.rbegin(); it != body.rend(); ++it)
      if (!step(*it, live)) return false;
    return true;
  }

 private:
  // Loops settle within a few passes (each pass can only add rectangles, and there are finitely many): the bound
  // keeps a pathological nest from running long; a loop that reaches it marks everything instead.
  static constexpr int kMaxPasses = 64;

  bool step(const Instruction& inst, LiveSet& live) {
    if (inst.op == Op::Loop) return loop(inst, live);
    if (inst.op == Op::If) {
      LiveSet taken = live;
      if (!walk(inst.body, taken)) return false;
      for (const Live& l : taken) add(live, l);
      return true;
    }
    // Its views by what it does with them (ir/operand_table.h); a register it writes moves the views naming it.
    const AccessPattern* writes[5];
    const AccessPattern* reads[5];
    size_t nw = 0, nr = 0;
    for (const OperandUse* use : operandUses(inst)) {
      const AccessPattern* view = operandView(inst, use->operand);
      if (!view) {
        if (use->role == Role::Write) written(operandRegister(inst, use->operand), live);
        continue;
      }
      if (use->role != Role::Read) writes[nw++] = view;
      if (use->role != Role::Write) reads[nr++] = view;  // a matmul's accumulator is both
    }
    if (engineOf(inst.op) != Engine::SP) {  // the SP's always run
      bool needed = false;
      for (size_t i = 0; i < nw; ++i) {
        const Footprint f = footprintOf(p_, layout_, *writes[i]);
        for (const Live& l : live) needed |= f.overlaps(l.fp);
      }
      if (!needed) return true;
      computed_[inst.id] = true;
    }
    // Its reads happen before its writes.
    for (size_t i = 0; i < nw; ++i) overwrite(*writes[i], live);
    for (size_t i = 0; i < nr; ++i) read(*reads[i], live);
    return true;
  }

  // The loop sets its register before each pass of the body and once more when it ends.
  bool loop(const Instruction& inst, LiveSet& live) {
    written(inst.rd, live);
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      LiveSet head = live;
      if (!walk(inst.body, head)) return false;
      written(inst.rd, head);
      bool grew = false;
      for (const Live& l : head) grew |= add(live, l);
      if (!grew) return true;
    }
    return false;
  }

  void read(const AccessPattern& ap, LiveSet& live) {
    add(live, {footprintOf(p_, layout_, ap), ap.hasRegister() ? &ap : nullptr});
  }

  // Register r gets a new value: the views with r in their terms name other elements before this point.
  void written(RegId r, LiveSet& live) {
    if (r == kNone) return;
    LiveSet kept;
    for (Live l : live) {
      if (l.view && (l.view->partition.uses(r) || l.view->offset.uses(r))) l.view = nullptr;
      add(kept, l);
    }
    live = std::move(kept);
  }

  // Drops what a write of `ap` surely overwrites.
  void overwrite(const AccessPattern& ap, LiveSet& live) {
    if (ap.tensor >= p_.tensors.size()) return;
    const Footprint f = footprintOf(p_, layout_, ap);
    const bool exact = isStatic(p_, ap) && (ap.count2 == 1 || ap.step2 == ap.count) &&
                       (f.resource == Footprint::kSbuf ||
                        (f.resource != Footprint::kPsum && f.resource != Footprint::kRegisters && ap.partitions == 1));
    auto covered = [&](const Live& l) {
      if (l.view && sameView(*l.view, ap)) return true;
      return exact && l.fp.resource == f.resource && f.row_lo <= l.fp.row_lo && l.fp.row_hi <= f.row_hi &&
             f.byte_lo <= l.fp.byte_lo && l.fp.byte_hi <= f.byte_hi;
    };
    live.erase(std::remove_if(live.begin(), live.end(), covered), live.end());
  }

  const Program& p_;
  const MachineLayout& layout_;
  std::vector<bool>& computed_;
};

bool hasRegLoad(const std::vector<Instruction>& body) {
  for (const Instruction& inst : body)
    if (inst.op == Op::RegLoad || hasRegLoad(inst.body)) return true;
  return false;
}

bool numberedInPreorder(const std::vector<Instruction>& body, uint32_t& next) {
  for (const Instruction& inst : body)
    if (inst.id != next++ || !numberedInPreorder(inst.body, next)) return false;
  return true;
}

}  // namespace

RegLoadSlice regLoadSlice(const Program& p, const MachineLayout& layout) {
  RegLoadSlice s;
  if (!hasRegLoad(p.body)) return s;
  uint32_t next = 0, ids = 0;
  const bool preorder = numberedInPreorder(p.body, next);
  forEachInstruction(p.body, [&](const Instruction& inst) { ids = std::max(ids, inst.id + 1); });
  s.computed.assign(ids, false);
  s.inputs.assign(p.tensors.size(), false);
  LiveSet live;
  if (!preorder || !Slicer(p, layout, s.computed).walk(p.body, live)) {
    std::fill(s.computed.begin(), s.computed.end(), true);
    for (TensorId t = 0; t < p.tensors.size(); ++t) s.inputs[t] = p.tensors[t].input;
    return s;
  }
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& tensor = p.tensors[t];
    if (!tensor.input || tensor.space != Space::Dram) continue;
    const Footprint f = footprintOf(p, layout, wholeTensor(p, t));
    s.inputs[t] = std::any_of(live.begin(), live.end(), [&](const Live& l) { return f.overlaps(l.fp); });
  }
  // Nothing to compute (every reg_load reads what a reg_store wrote, say): as for a program without reg_load.
  auto none = [](const std::vector<bool>& v) { return std::find(v.begin(), v.end(), true) == v.end(); };
  if (none(s.computed) && none(s.inputs)) return RegLoadSlice{};
  return s;
}

}  // namespace allocsim::sim
