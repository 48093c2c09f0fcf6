#include "alloc/loop_gaps.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <vector>

#include "alloc/operand_effects.h"

namespace allocsim {
namespace {

// Elements of one tensor written since the walk began, one bit each.
class Marks {
 public:
  Marks(uint32_t rows, uint64_t elements) : rows_(rows), elements_(elements), words_((elements + 63) / 64) {
    bits_.assign(size_t(rows) * words_, 0);
  }
  bool complete() const { return marked_ == uint64_t(rows_) * elements_; }
  // Marks (write) or tests (!write) elements [lo, hi) of `row`; `units` counts the words touched. A test answers
  // whether every element is marked.
  bool visit(uint32_t row, uint64_t lo, uint64_t hi, bool write, uint64_t& units) {
    uint64_t* base = bits_.data() + size_t(row) * words_;
    for (uint64_t w = lo / 64; lo < hi && w <= (hi - 1) / 64; ++w) {
      const uint64_t from = w == lo / 64 ? lo % 64 : 0, to = w == (hi - 1) / 64 ? (hi - 1) % 64 + 1 : 64;
      const uint64_t mask = (to == 64 ? ~uint64_t(0) : (uint64_t(1) << to) - 1) & ~((uint64_t(1) << from) - 1);
      ++units;
      if (write) {
        marked_ += uint64_t(std::popcount(mask & ~base[w]));
        base[w] |= mask;
      } else if ((base[w] & mask) != mask) {
        return false;
      }
    }
    return true;
  }

 private:
  uint32_t rows_;
  uint64_t elements_, words_;
  std::vector<uint64_t> bits_;
  uint64_t marked_ = 0;
};

using Registers = std::vector<std::optional<int64_t>>;

// The value of an index under `regs`; nullopt when it names a register the walk does not know, or one holding a
// negative value, or leaves int64_t.
std::optional<int64_t> evaluate(const Index& idx, const Registers& regs) {
  __int128 sum = idx.constant;
  for (const IndexTerm& term : idx.terms) {
    if (term.reg >= regs.size() || !regs[term.reg] || *regs[term.reg] < 0) return std::nullopt;
    sum += __int128(term.scale) * __int128(term.apply(uint64_t(*regs[term.reg])));
    if (sum > INT64_MAX || sum < INT64_MIN) return std::nullopt;
  }
  return int64_t(sum);
}

enum class Visit : uint8_t { Done, Unknown, Uncovered };

// Marks or tests the elements of view `ap` of tensor `t`. Unknown: an index the walk cannot evaluate, or a view
// outside the tensor.
Visit visitView(const Tensor& t, const AccessPattern& ap, const Registers& regs, bool write, Marks& marks,
                uint64_t& units) {
  const std::optional<int64_t> part = evaluate(ap.partition, regs), off = evaluate(ap.offset, regs);
  if (!part || !off || *part < 0 || *off < 0) return Visit::Unknown;
  if (uint64_t(*part) + ap.partitions > t.partitions) return Visit::Unknown;
  if (ap.count2 > 0 && ap.count > 0 && uint64_t(*off) + uint64_t(ap.count2 - 1) * ap.step2 + ap.count > t.elements)
    return Visit::Unknown;
  for (uint64_t row = uint64_t(*part); row < uint64_t(*part) + ap.partitions; ++row)
    for (uint64_t j = 0; j < ap.count2; ++j) {
      const uint64_t lo = uint64_t(*off) + j * ap.step2;
      if (!marks.visit(uint32_t(row), lo, lo + ap.count, write, units)) return Visit::Uncovered;
    }
  return Visit::Done;
}

// The loop whose header is at `pos` (loops are in preorder of their headers), or -1.
int32_t loopAt(const LinearOrder& order, uint32_t pos) {
  auto it = std::lower_bound(order.loops.begin(), order.loops.end(), pos,
                             [](const LinearLoop& l, uint32_t x) { return l.header < x; });
  return it != order.loops.end() && it->header == pos ? int32_t(it - order.loops.begin()) : -1;
}

struct Active {
  int32_t loop;
  uint64_t iteration;
};

class GapWalk {
 public:
  GapWalk(const Program& p, const LinearOrder& order, TensorId t, uint32_t last, uint64_t& units, uint64_t budget,
          uint32_t stop = kNone)
      : p_(p), order_(order), t_(t), tensor_(p.tensors[t]), last_(last), units_(units), budget_(budget), stop_(stop) {}

  // One walk from `from`, with the loops around it at the iterations `stack` holds.
  bool run(uint32_t from, std::vector<Active> stack) {
    Marks marks(tensor_.partitions, tensor_.elements);
    Registers regs(p_.registers.size());
    for (const Active& a : stack) {
      const Instruction& l = *order_.loops[size_t(a.loop)].inst;
      if (l.rd < regs.size()) regs[l.rd] = l.lo + int64_t(a.iteration) * l.step;
    }
    for (uint32_t pos = from;;) {
      if (++units_ > budget_) return false;
      if (pos == stop_) return marks.complete();  // writtenWhole: reads are not looked at
      // Past the value's last mention with no back edge that can return to it: nothing reads the value any more.
      if (pos > last_ && (stack.empty() || order_.loops[size_t(stack.front().loop)].header > last_)) return true;
      const LinearPosition& at = order_.positions[pos];
      switch (at.kind) {
        case LinearPosition::Kind::Start: ++pos; continue;
        case LinearPosition::Kind::End:
          return !tensor_.output || pos > last_;  // an output is read whole at the end (not complete: checked below)
        case LinearPosition::Kind::LoopHeader: {
          const int32_t li = loopAt(order_, pos);
          if (li < 0) return false;
          const LinearLoop& l = order_.loops[size_t(li)];
          if (!at.executes || l.trips == 0) {
            pos = l.end + 1;
            continue;
          }
          if (hasRegisterBound(*l.inst) || l.inst->lo < 0 || l.inst->step <= 0) return false;
          stack.push_back({li, 0});
          if (l.inst->rd < regs.size()) regs[l.inst->rd] = l.inst->lo;
          ++pos;
          continue;
        }
        case LinearPosition::Kind::LoopEnd: {
          if (stack.empty() || order_.loops[size_t(stack.back().loop)].end != pos) return false;
          Active& a = stack.back();
          const LinearLoop& l = order_.loops[size_t(a.loop)];
          if (++a.iteration < l.trips) {
            if (l.inst->rd < regs.size()) regs[l.inst->rd] = l.inst->lo + int64_t(a.iteration) * l.inst->step;
            pos = l.header + 1;
            continue;
          }
          if (l.inst->rd < regs.size()) regs[l.inst->rd] = std::nullopt;  // the exit value: not needed by views
          stack.pop_back();
          ++pos;
          continue;
        }
        case LinearPosition::Kind::Instruction: break;
      }
      const Instruction& inst = *at.inst;
      if (!at.executes) {
        ++pos;
        continue;
      }
      if (pos <= last_) {
        const OperandViews ov = operandViews(inst);
        for (const AccessPattern* ap : ov.reads)
          if (stop_ == kNone && ap->tensor == t_ && visitView(tensor_, *ap, regs, false, marks, units_) != Visit::Done) return false;
        if (stop_ == kNone && ov.accumulates && ov.write != nullptr && ov.write->tensor == t_ && !startHolds(inst, at, stack) &&
            visitView(tensor_, *ov.write, regs, false, marks, units_) != Visit::Done)
          return false;
        if (!at.conditional)
          for (const AccessPattern* ap : {ov.write, ov.reduce_write})
            if (ap != nullptr && ap->tensor == t_) visitView(tensor_, *ap, regs, true, marks, units_);
        if (marks.complete()) return stop_ == kNone || pos < stop_;
        if (units_ > budget_) return false;
      }
      // A register the instruction writes is no longer known (a loop register overwritten in the body included).
      operandEffects(p_, inst, effects_);
      for (RegId r : effects_.reg_writes)
        if (r < regs.size()) regs[r] = std::nullopt;
      ++pos;
    }
  }

 private:
  // Whether a matmul's start flag holds on this execution for certain (then it does not read its accumulator).
  bool startHolds(const Instruction& inst, const LinearPosition& at, const std::vector<Active>& stack) const {
    switch (inst.start) {
      case When::Always: return true;
      case When::First:
        if (at.loop < 0) return true;
        return !stack.empty() && stack.back().loop == at.loop && stack.back().iteration == 0;
      case When::Never:
      case When::Last: return false;
    }
    return false;
  }

  const Program& p_;
  const LinearOrder& order_;
  TensorId t_;
  const Tensor& tensor_;
  uint32_t last_;
  uint64_t& units_;
  uint64_t budget_;
  uint32_t stop_;
  OperandEffects effects_;
};

}  // namespace

namespace {

// Every iteration of the loops around `from`, a walk each (GapWalk; `stop`: writtenWhole's).
bool everyWalk(const Program& p, const LinearOrder& order, TensorId t, uint32_t from, uint32_t last, uint64_t budget,
               uint32_t stop) {
  if (t >= p.tensors.size() || from >= order.positions.size() || order.positions[from].conditional) return false;
  const Tensor& tensor = p.tensors[t];
  if (uint64_t(tensor.partitions) * tensor.elements > (uint64_t(1) << 22)) return false;
  // Every iteration of the loops around `from`, outermost first.
  const std::vector<int32_t> nest = order.nest(from);
  std::vector<Active> stack;
  for (int32_t l : nest) {
    const LinearLoop& loop = order.loops[size_t(l)];
    if (loop.trips == 0 || hasRegisterBound(*loop.inst) || loop.inst->lo < 0 || loop.inst->step <= 0) return false;
    stack.push_back({l, 0});
  }
  uint64_t units = 0;
  GapWalk walk(p, order, t, last, units, budget, stop);
  for (;;) {
    if (!walk.run(from, stack)) return false;
    // The next combination of iterations (the innermost loop counts fastest).
    size_t i = stack.size();
    while (i > 0 && stack[i - 1].iteration + 1 >= order.loops[size_t(stack[i - 1].loop)].trips) stack[--i].iteration = 0;
    if (i == 0) return true;
    ++stack[i - 1].iteration;
  }
}

}  // namespace

bool deadBefore(const Program& p, const LinearOrder& order, TensorId t, uint32_t from, uint32_t last,
                uint64_t budget) {
  return everyWalk(p, order, t, from, last, budget, kNone);
}

bool writtenWhole(const Program& p, const LinearOrder& order, TensorId t, uint32_t from, uint32_t to,
                  uint64_t budget) {
  return from < to && everyWalk(p, order, t, from, to, budget, to);
}

}  // namespace allocsim
