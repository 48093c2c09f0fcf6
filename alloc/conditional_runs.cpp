#include "alloc/conditional_runs.h"

#include <algorithm>
#include <vector>

#include "alloc/operand_effects.h"

namespace allocsim {
namespace {

bool isConditional(const Instruction& c) { return c.op == Op::If || hasRegisterBound(c); }

// The registers each loop's body (at any depth) writes, a nested loop's register included: collected once per loop,
// since every construct inside a loop asks about it (asking by walking the body each time is quadratic in the body).
class LoopRegisterWrites {
 public:
  explicit LoopRegisterWrites(const Program& p) : p_(p) {}
  bool writes(const Instruction& loop, RegId r) {
    auto [it, fresh] = by_loop_.try_emplace(&loop);
    std::vector<RegId>& regs = it->second;
    if (fresh) {
      forEachInstruction(loop.body, [&](const Instruction& i) {
        if (i.op == Op::Loop) {
          regs.push_back(i.rd);
          return;
        }
        if (i.op == Op::If) return;
        operandEffects(p_, i, effects_);
        regs.insert(regs.end(), effects_.reg_writes.begin(), effects_.reg_writes.end());
      });
      std::sort(regs.begin(), regs.end());
      regs.erase(std::unique(regs.begin(), regs.end()), regs.end());
    }
    return std::binary_search(regs.begin(), regs.end(), r);
  }

 private:
  const Program& p_;
  OperandEffects effects_;
  std::unordered_map<const Instruction*, std::vector<RegId>> by_loop_;
};

// Walks the constructs of `path` (outermost first) for every iteration of its loops, with the loop registers bound.
class PathWalk {
 public:
  PathWalk(const Program& p, const std::vector<const Instruction*>& path, LoopRegisterWrites& writes)
      : p_(p), path_(path), writes_(writes) {}

  // False when a condition or bound cannot be evaluated (see conditional_runs.h). `reached`: whether the walk
  // reached the end of the path at least once (the innermost body runs on some iteration).
  bool run(ConditionalRuns& out, bool* reached = nullptr) {
    // Every register a condition or bound names must be the register of a loop above it on the path that nothing
    // else in that loop's body writes.
    for (size_t i = 0; i < path_.size(); ++i) {
      const Instruction& c = *path_[i];
      if (c.op == Op::Loop && c.step <= 0) return false;
      if (!isConditional(c)) continue;
      for (const IndexTerm& t : c.rare->mask.c.terms) {
        size_t j = i;
        while (j > 0 && !(path_[j - 1]->op == Op::Loop && path_[j - 1]->rd == t.reg)) --j;
        if (j == 0 || writes_.writes(*path_[j - 1], t.reg)) return false;
      }
    }
    values_.assign(p_.registers.size(), 0);
    always_ = true;
    once_ = false;
    if (!walk(0)) return false;
    out.always = always_;
    out.once = once_ && path_.front()->op == Op::Loop;
    if (out.once && !inner_after_) out.later = int64_t(front_iterations_ - 1 - reach_iteration_);
    out.skips_last = loops_ & ~reached_on_last_;
    out.only_last = loops_ & ~reached_off_last_;
    if (reached) *reached = once_;
    return true;
  }

 private:
  // c = constant + sum of scale * f(register), as the interpreter evaluates it (ir/view.cpp): every partial sum
  // clamped to +-2^100, so that no sum overflows.
  bool evaluate(const Index& x, __int128& c) const {
    auto clamp = [](__int128 v) {
      const __int128 limit = __int128(1) << 100;
      return v > limit ? limit : v < -limit ? -limit : v;
    };
    c = x.constant;
    for (const IndexTerm& t : x.terms) {
      if (t.reg >= values_.size()) return false;
      c = clamp(c + clamp(__int128(t.scale) * __int128(t.apply(values_[t.reg]))));
    }
    return true;
  }

  bool walk(size_t i) {
    if (++visited_ > kConditionalRunsBudget) return false;
    if (i == path_.size()) {
      reached_on_last_ |= on_last_;
      reached_off_last_ |= loops_ & ~on_last_;  // every loop on the path is in one of its iterations here
      once_ = true;
      reach_iteration_ = front_iterations_ - 1;
      inner_after_ = false;
      return true;
    }
    const Instruction& c = *path_[i];
    __int128 v = 0;
    if (c.op == Op::If) {
      if (!evaluate(c.rare->mask.c, v)) return false;
      if (conditionHolds(c.rare->mask.cmp, v)) return walk(i + 1);
      always_ = false;
      return true;
    }
    __int128 hi = c.hi;
    if (hasRegisterBound(c)) {
      if (!evaluate(c.rare->mask.c, v)) return false;
      hi = std::min<__int128>(v, c.hi);
    }
    if (c.lo >= hi) always_ = false;
    const uint64_t saved = values_[c.rd];
    const uint32_t depth = depth_++;
    const uint64_t bit = depth < 64 ? uint64_t(1) << depth : 0;
    loops_ |= bit;
    for (__int128 x = c.lo; x < hi; x += c.step) {
      values_[c.rd] = uint64_t(int64_t(x));
      on_last_ = x + c.step >= hi ? on_last_ | bit : on_last_ & ~bit;
      // An iteration begins: of the outermost construct (counted), or of a loop inside it (after the innermost
      // body's last run so far, in the same iteration of the outermost: that run is not the iteration's last).
      if (i == 0) ++front_iterations_;
      else if (once_ && reach_iteration_ + 1 == front_iterations_) inner_after_ = true;
      if (!walk(i + 1)) return false;
    }
    values_[c.rd] = saved;
    on_last_ &= ~bit;
    --depth_;
    return true;
  }

  const Program& p_;
  const std::vector<const Instruction*>& path_;
  LoopRegisterWrites& writes_;
  std::vector<uint64_t> values_;  // by RegId: the loop registers' current values
  bool always_ = true, once_ = false;
  uint64_t visited_ = 0;
  // The iterations of the outermost construct (a loop) begun so far, the one of the innermost body's last run so far
  // (counted from 0), and whether a loop inside the outermost begun an iteration after that run, in the same one.
  uint64_t front_iterations_ = 0, reach_iteration_ = 0;
  bool inner_after_ = false;
  // By depth (bit d - 1 for the path's d-th loop): the loops on the path, those on their last iteration now, those on
  // whose last iteration the innermost body has run, and those on one of whose other iterations it has run.
  uint32_t depth_ = 0;
  uint64_t loops_ = 0, on_last_ = 0, reached_on_last_ = 0, reached_off_last_ = 0;
};

// Visits every construct of `p` in preorder with the constructs around its body (`path`: outermost first, itself
// last) and whether an if or a register-bounded loop lies on that path, keeping what enter(path, conditional)
// answers for its body; calls leaf(inst, answer, conditional) for each instruction without a body (answer: the
// innermost body's, null at top level).
template <typename Answer, typename Enter, typename Leaf>
void forEachBody(const Program& p, Enter&& enter, Leaf&& leaf) {
  struct Frame {
    const std::vector<Instruction>* body;
    size_t next;
    bool conditional;  // an if or a register-bounded loop on the path to this body
    Answer answer;
  };
  std::vector<const Instruction*> path;  // the constructs around the current body, outermost first
  std::vector<Frame> stack{{&p.body, 0, false, {}}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.body->size()) {
      stack.pop_back();
      if (!path.empty()) path.pop_back();
      continue;
    }
    const Instruction& inst = (*top.body)[top.next++];
    if (!hasBody(inst.op)) {
      leaf(inst, stack.size() > 1 ? &top.answer : nullptr, top.conditional);
      continue;
    }
    path.push_back(&inst);
    Frame inner{&inst.body, 0, top.conditional || isConditional(inst), {}};
    inner.answer = enter(path, inner.conditional);
    stack.push_back(std::move(inner));  // `top` is invalid from here on
  }
}

}  // namespace

std::unordered_map<const Instruction*, ConditionalRuns> conditionalRuns(const Program& p) {
  std::unordered_map<const Instruction*, ConditionalRuns> out;
  LoopRegisterWrites writes(p);
  forEachBody<ConditionalRuns>(
      p,
      [&](const std::vector<const Instruction*>& path, bool conditional) {
        ConditionalRuns runs;
        if (conditional && !path.back()->body.empty()) {
          PathWalk walk(p, path, writes);
          if (!walk.run(runs)) runs = {};
        }
        return runs;
      },
      [&](const Instruction& inst, const ConditionalRuns* runs, bool conditional) {
        if (conditional && runs) out[&inst] = *runs;
      });
  return out;
}

std::unordered_set<const Instruction*> neverRunBodies(const Program& p) {
  std::unordered_set<const Instruction*> out;
  LoopRegisterWrites writes(p);
  forEachBody<bool>(
      p,
      [&](const std::vector<const Instruction*>& path, bool) {
        const Instruction& c = *path.back();
        if (!isConditional(c) || c.body.empty()) return false;
        ConditionalRuns runs;
        bool reached = true;
        PathWalk walk(p, path, writes);
        if (walk.run(runs, &reached) && !reached) out.insert(&c);
        return false;
      },
      [](const Instruction&, const bool*, bool) {});
  return out;
}

}  // namespace allocsim
