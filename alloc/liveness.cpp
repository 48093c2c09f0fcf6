#include "alloc/liveness.h"

#include <algorithm>

#include "alloc/iteration_coverage.h"
#include "alloc/operand_effects.h"

namespace allocsim {

bool interferes(const LiveRange& a, const LiveRange& b) {
  return !a.empty() && !b.empty() && a.first <= b.last && b.first <= a.last;
}

namespace {

// The mentions of one tensor or register, in linear order, reduced to what the rule needs.
struct Mentions {
  uint32_t first = kNone;
  uint32_t last = 0;
  WriteCover first_cover = WriteCover::Partial;  // Partial also when the first mention is a read

  void read(uint32_t pos) {
    if (first == kNone) {
      first = pos;
      first_cover = WriteCover::Partial;
    }
    last = std::max(last, pos);
  }
  void write(uint32_t pos, WriteCover cover) {
    if (first == kNone) {
      first = pos;
      first_cover = cover;
    }
    last = std::max(last, pos);
  }
};

// Whether the first mention, at `pos`, replaces the whole value on every iteration of common loop `loop`.
bool killsAcross(const LinearOrder& order, const Mentions& m, int32_t loop) {
  switch (m.first_cover) {
    case WriteCover::Whole: return true;
    case WriteCover::WholeOnFirst: return order.positions[m.first].loop != loop;
    case WriteCover::Partial: return false;
  }
  return false;
}

// Whether the value must stay live around common loop `loop`'s back edge (rule 3 in liveness.h).
bool carriedAround(const Program& p, const LinearOrder& order, const Mentions& m, TensorId t, int32_t loop,
                   LivenessStats& stats, CoverageCache& cache) {
  if (killsAcross(order, m, loop)) return false;  // a whole write first: nothing survives an iteration
  if (t == kNone) return true;                     // a register read before it is written in the loop
  switch (iterationCoverage(p, order, t, loop, cache)) {
    case IterationCoverage::Covered: ++stats.per_iteration; return false;
    case IterationCoverage::Carried: ++stats.carried; return true;
    case IterationCoverage::Undecidable: ++stats.undecidable; return true;
  }
  return true;
}

// `t` is the tensor whose mentions `m` are, kNone for a register.
// `ld` and `lu` are scratch, kept by the caller for every range (two vectors per tensor otherwise); `cache` is what
// iteration coverage keeps from one tensor's decisions to the next.
LiveRange rangeOf(const Program& p, const LinearOrder& order, const Mentions& m, TensorId t, LivenessStats& stats,
                  std::vector<int32_t>& ld, std::vector<int32_t>& lu, CoverageCache& cache) {
  if (m.first == kNone) return {};
  LiveRange r{m.first, m.last};
  order.nest(m.first, ld);
  order.nest(m.last, lu);
  size_t common = 0;
  while (common < ld.size() && common < lu.size() && ld[common] == lu[common]) ++common;
  if (ld.size() > common) r.first = order.loops[size_t(ld[common])].header;
  if (lu.size() > common) r.last = order.loops[size_t(lu[common])].end;
  for (size_t i = 0; i < common; ++i) {
    const LinearLoop& l = order.loops[size_t(ld[i])];
    if (carriedAround(p, order, m, t, ld[i], stats, cache)) {
      // Outermost first: this extension covers every inner common loop too.
      r.first = std::min(r.first, l.header);
      r.last = std::max(r.last, l.end);
      break;
    }
  }
  return r;
}

}  // namespace

Liveness computeLiveness(const Program& p) {
  Liveness live;
  live.order = linearize(p);
  const LinearOrder& order = live.order;
  thread_local std::vector<Mentions> tensors, regs;  // the thread's, as e below
  tensors.assign(p.tensors.size(), Mentions{});
  regs.assign(p.registers.size(), Mentions{});
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].input) tensors[t].write(order.start(), WriteCover::Whole);
  // The thread's: its vectors keep their room from one instruction, and one call, to the next (liveness is computed
  // several times per allocation).
  thread_local OperandEffects e;
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& at = order.positions[pos];
    if (!at.executes || at.inst == nullptr) continue;
    if (at.kind == LinearPosition::Kind::LoopHeader || at.kind == LinearPosition::Kind::LoopEnd) {
      if (at.inst->rd < regs.size()) regs[at.inst->rd].write(pos, WriteCover::Whole);
      continue;
    }
    operandEffects(p, *at.inst, e);
    for (RegId r : e.reg_reads) regs[r].read(pos);
    for (TensorId t : e.tensor_reads) tensors[t].read(pos);
    for (const TensorWrite& w : e.tensor_writes) tensors[w.tensor].write(pos, w.cover);
    for (RegId r : e.reg_writes) regs[r].write(pos, WriteCover::Whole);
  }
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].output) tensors[t].read(order.end());
  thread_local std::vector<int32_t> ld, lu;  // the thread's, as e
  CoverageCache cache;
  live.tensors.reserve(tensors.size());
  for (TensorId t = 0; t < tensors.size(); ++t)
    live.tensors.push_back(rangeOf(p, order, tensors[t], t, live.stats, ld, lu, cache));
  live.registers.reserve(regs.size());
  for (const Mentions& m : regs) live.registers.push_back(rangeOf(p, order, m, kNone, live.stats, ld, lu, cache));
  return live;
}

}  // namespace allocsim
