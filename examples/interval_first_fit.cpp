#include "interval_first_fit.h"

#include <algorithm>
#include <string>
#include <vector>

namespace example {

using namespace allocsim;

namespace {

struct Interval {
  size_t first = SIZE_MAX, last = 0;
  bool used() const { return first != SIZE_MAX; }
  void cover(size_t a, size_t b) {
    first = std::min(first, a);
    last = std::max(last, b);
  }
};

// Preorder index of every instruction (inside loops and ifs); each reference extends its item's interval over the outermost
// enclosing loop (loop_start..loop_end), or just the instruction itself outside loops.
class Intervals {
 public:
  explicit Intervals(const Program& p) : tensors(p.tensors.size()), registers(p.registers.size()) {
    size_t index = 0;
    walk(p.body, index, SIZE_MAX, 0);
  }
  std::vector<Interval> tensors, registers;

 private:
  static size_t subtreeSize(const Instruction& i) {
    size_t n = 1;
    for (const Instruction& c : i.body) n += subtreeSize(c);
    return n;
  }
  void walk(const std::vector<Instruction>& body, size_t& index, size_t loop_first, size_t loop_last) {
    for (const Instruction& inst : body) {
      const size_t at = index++;
      size_t lf = loop_first, ll = loop_last;
      if (inst.op == Op::Loop && loop_first == SIZE_MAX) lf = at, ll = at + subtreeSize(inst) - 1;
      const size_t a = lf == SIZE_MAX ? at : lf, b = lf == SIZE_MAX ? at : ll;
      auto reg = [&](RegId r) {
        if (r != kNone) registers[r].cover(a, b);
      };
      auto view = [&](const AccessPattern& ap) {
        if (ap.tensor == kNone) return;
        tensors[ap.tensor].cover(a, b);
        for (const Index* ix : {&ap.partition, &ap.offset})
          for (const IndexTerm& t : ix->terms) reg(t.reg);
      };
      view(inst.dst), view(inst.a), view(inst.b);
      if (hasFusedReduce(inst)) view(inst.rare->reduce_dst);  // a second destination (docs/format.md "Fused reduction")
      for (const ScalarOperand* sc : scalarOperands(inst)) {  // ts's scalar, act's scale and bias
        if (sc->kind == ScalarOperand::Kind::Tensor) view(sc->ap);
        if (sc->kind == ScalarOperand::Kind::Reg) reg(sc->reg);
      }
      for (const IndexTerm& t : inst.rare->mask.c.terms) reg(t.reg);  // affine_select's offset c
      reg(inst.rd), reg(inst.rs), reg(inst.rt);
      if (hasBody(inst.op)) walk(inst.body, index, lf, ll);  // a loop's body, or an if's: both run in place
    }
  }
};

// The occupants of one storage class: [lo, hi) ranges on two axes (partitions x bytes, banks x 1, lanes x 1).
struct Box {
  uint64_t p0, p1, b0, b1;
  Interval live;
};

class FirstFit {
 public:
  explicit FirstFit(LiveEnd end) : end_(end) {}

  bool overlapsInTime(const Interval& x, const Interval& y) const {
    if (end_ == LiveEnd::Inclusive) return x.first <= y.last && y.first <= x.last;
    return x.first < y.last && y.first < x.last;  // the bug: [first, last) -- free at the last use
  }
  bool fits(uint64_t p0, uint64_t p1, uint64_t b0, uint64_t b1, const Interval& live) const {
    for (const Box& o : boxes)
      if (p0 < o.p1 && o.p0 < p1 && b0 < o.b1 && o.b0 < b1 && overlapsInTime(live, o.live)) return false;
    return true;
  }
  // Lowest second-axis position, then lowest first-axis position (multiples of the steps) where it fits.
  bool place(uint64_t height, uint64_t p_limit, uint64_t p_step, uint64_t width, uint64_t b_limit, uint64_t b_step,
             const Interval& live, uint64_t& p_out, uint64_t& b_out) {
    std::vector<uint64_t> starts = {0};
    for (const Box& o : boxes) starts.push_back((o.b1 + b_step - 1) / b_step * b_step);
    std::sort(starts.begin(), starts.end());
    for (uint64_t b : starts) {
      if (b + width > b_limit) break;
      for (uint64_t p = 0; p + height <= p_limit; p += p_step)
        if (fits(p, p + height, b, b + width, live)) {
          boxes.push_back({p, p + height, b, b + width, live});
          p_out = p, b_out = b;
          return true;
        }
    }
    return false;
  }
  std::vector<Box> boxes;

 private:
  LiveEnd end_;
};

Interval wholeProgram() { return {0, SIZE_MAX - 1}; }

}  // namespace

Program IntervalFirstFit::allocate(const Program& input) {
  Program out = input;
  const Arch& arch = out.arch;
  Intervals live(out);
  FirstFit sbuf(end_), psum(end_), regs(end_);
  auto banksOf = [&](const Tensor& t) { return (t.bytesPerPartition() + arch.psum_bank_bytes - 1) / arch.psum_bank_bytes; };
  auto bytesOf = [&](const Tensor& t) {
    const uint64_t align = std::max<uint64_t>(arch.sbuf_align, 1);
    return (t.bytesPerPartition() + align - 1) / align * align;
  };
  // Placements the input fixes (pinned, or given) stay, reserved for the whole program.
  for (const Tensor& t : out.tensors) {
    if (!t.placement) continue;
    if (t.space == Space::Sbuf)
      sbuf.boxes.push_back({t.placement->partition, t.placement->partition + t.partitions, t.placement->offset,
                            t.placement->offset + bytesOf(t), wholeProgram()});
    if (t.space == Space::Psum)
      psum.boxes.push_back({0, 1, t.placement->bank, t.placement->bank + banksOf(t), wholeProgram()});
  }
  for (const Register& r : out.registers)
    if (r.phys) regs.boxes.push_back({0, 1, *r.phys, *r.phys + r.lanes(), wholeProgram()});

  // In order of first reference; unreferenced items still need a place (the oracles require one).
  std::vector<TensorId> order;
  for (TensorId t = 0; t < out.tensors.size(); ++t) order.push_back(t);
  std::stable_sort(order.begin(), order.end(),
                   [&](TensorId x, TensorId y) { return live.tensors[x].first < live.tensors[y].first; });
  for (TensorId id : order) {
    Tensor& t = out.tensors[id];
    if (t.placement || t.space == Space::Dram) continue;
    Interval when = live.tensors[id].used() ? live.tensors[id] : Interval{0, 0};
    uint64_t p = 0, b = 0;
    if (t.space == Space::Sbuf) {
      if (!sbuf.place(t.partitions, arch.sbuf_partitions, std::max(arch.sbuf_partition_quantum, 1u), bytesOf(t),
                      arch.sbuf_bytes, std::max(arch.sbuf_align, 1u), when, p, b))
        throw AllocatorRefusal("SBUF is full: no room for '" + t.name + "'");
      t.placement = Placement{uint32_t(p), b, 0};
    } else {
      if (!psum.place(1, 1, 1, banksOf(t), arch.psum_banks, 1, when, p, b))
        throw AllocatorRefusal("PSUM is full: no bank for '" + t.name + "'");
      t.placement = Placement{0, 0, uint32_t(b)};
    }
  }
  for (RegId id = 0; id < out.registers.size(); ++id) {
    Register& r = out.registers[id];
    if (r.phys) continue;
    Interval when = live.registers[id].used() ? live.registers[id] : Interval{0, 0};
    uint64_t p = 0, lane = 0;
    if (!regs.place(1, 1, 1, r.lanes(), arch.sp_registers, 1, when, p, lane))
      throw AllocatorRefusal("out of SP registers for '" + r.name + "'");
    r.phys = uint32_t(lane);
  }
  return out;
}

}  // namespace example
