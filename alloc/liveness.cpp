#include "alloc/liveness.h"

#include <algorithm>
#include <span>

#include "alloc/iteration_coverage.h"
#include "alloc/operand_effects.h"

namespace allocsim {

bool LiveRange::contains(uint32_t pos) const {
  if (empty() || pos < first || pos > last) return false;
  if (parts.empty()) return true;
  auto it = std::upper_bound(parts.begin(), parts.end(), pos, [](uint32_t x, const Segment& s) { return x < s.first; });
  return it != parts.begin() && std::prev(it)->last >= pos;
}

void LiveRange::add(Segment s) {
  if (empty()) {
    first = s.first;
    last = s.last;
    return;
  }
  if (parts.empty()) parts.push_back({first, last});
  // Insert in order of start, then merge the neighbours it meets or touches.
  auto it = std::upper_bound(parts.begin(), parts.end(), s.first, [](uint32_t x, const Segment& y) { return x < y.first; });
  it = parts.insert(it, s);
  size_t i = size_t(it - parts.begin());
  if (i > 0 && parts[i - 1].last + 1 >= parts[i].first) --i;  // merge into the left neighbour
  size_t j = i + 1;
  while (j < parts.size() && parts[i].last + 1 >= parts[j].first) {
    parts[i].last = std::max(parts[i].last, parts[j].last);
    ++j;
  }
  parts.erase(parts.begin() + ptrdiff_t(i) + 1, parts.begin() + ptrdiff_t(j));
  first = parts.front().first;
  last = parts.back().last;
  if (parts.size() == 1) parts.clear();
}

bool interferes(const LiveRange& a, const LiveRange& b) {
  if (a.empty() || b.empty() || a.first > b.last || b.first > a.last) return false;
  if (a.parts.empty() && b.parts.empty()) return true;
  const size_t na = a.segmentCount(), nb = b.segmentCount();
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    const Segment x = a.segment(i), y = b.segment(j);
    if (x.first <= y.last && y.first <= x.last) return true;
    if (x.last < y.last) ++i;
    else ++j;
  }
  return false;
}

void addOverSegments(std::vector<int64_t>& delta, const LiveRange& r, int64_t w) {
  for (size_t i = 0; i < r.segmentCount(); ++i) {
    const Segment s = r.segment(i);
    delta[s.first] += w;
    delta[size_t(s.last) + 1] -= w;
  }
}

namespace {

// The mentions of one value of a tensor or register, in linear order, reduced to what the rule needs.
struct Mentions {
  uint32_t first = kNone;
  uint32_t last = 0;
  WriteCover first_cover = WriteCover::Partial;  // Partial also when the first mention is a read

  bool empty() const { return first == kNone; }
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

// One mention of a tensor: a read, or a write of some cover.
struct Event {
  uint32_t pos = 0;
  bool write = false;
  WriteCover cover = WriteCover::Partial;
};

// The back-edge questions of one tensor, asked of the views once per loop (counted once in the stats).
class CoverageAnswers {
 public:
  CoverageAnswers(const Program& p, const LinearOrder& order, LivenessStats& stats, CoverageCache& cache)
      : p_(p), order_(order), stats_(stats), cache_(cache) {}
  void reset(TensorId t) {
    t_ = t;
    asked_.clear();
  }
  // Whether the tensor's value is carried around `loop`'s back edge (Undecidable counts as carried).
  bool carried(int32_t loop) {
    for (const auto& [l, c] : asked_)
      if (l == loop) return c;
    bool c = true;
    switch (iterationCoverage(p_, order_, t_, loop, cache_)) {
      case IterationCoverage::Covered: ++stats_.per_iteration; c = false; break;
      case IterationCoverage::Carried: ++stats_.carried; break;
      case IterationCoverage::Undecidable: ++stats_.undecidable; break;
    }
    asked_.push_back({loop, c});
    return c;
  }

 private:
  const Program& p_;
  const LinearOrder& order_;
  LivenessStats& stats_;
  CoverageCache& cache_;
  TensorId t_ = kNone;
  std::vector<std::pair<int32_t, bool>> asked_;
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

// Whether the value must stay live around common loop `loop`'s back edge (rule 3 in liveness.h). `answers` is
// null for a register.
bool carriedAround(const LinearOrder& order, const Mentions& m, int32_t loop, CoverageAnswers* answers) {
  if (killsAcross(order, m, loop)) return false;  // a whole write first: nothing survives an iteration
  if (answers == nullptr) return true;             // a register read before it is written in the loop
  return answers->carried(loop);
}

// The segment of one value (rules 1-3). `ld` and `lu` are the caller's scratch.
Segment segmentOf(const LinearOrder& order, const Mentions& m, CoverageAnswers* answers, std::vector<int32_t>& ld,
                  std::vector<int32_t>& lu) {
  Segment r{m.first, m.last};
  order.nest(m.first, ld);
  order.nest(m.last, lu);
  size_t common = 0;
  while (common < ld.size() && common < lu.size() && ld[common] == lu[common]) ++common;
  if (ld.size() > common) r.first = order.loops[size_t(ld[common])].header;
  if (lu.size() > common) r.last = order.loops[size_t(lu[common])].end;
  for (size_t i = 0; i < common; ++i) {
    const LinearLoop& l = order.loops[size_t(ld[i])];
    if (carriedAround(order, m, ld[i], answers)) {
      // Outermost first: this extension covers every inner common loop too.
      r.first = std::min(r.first, l.header);
      r.last = std::max(r.last, l.end);
      break;
    }
  }
  return r;
}

// Whether a full write (cover Whole or WholeOnFirst) at `k` starts a new value of the tensor, whose previous
// mention is at `prev` (<= k). See "Values" in liveness.h.
template <class Answers>
bool startsValue(const LinearOrder& order, uint32_t k, WriteCover cover, uint32_t prev, Answers& answers,
                 std::vector<int32_t>& chain) {
  if (prev == k) return false;  // an in-place update (`tt a, a, b`): one value, updated where it lies
  order.nest(k, chain);
  // An earlier mention lies in loop L's body exactly when the latest one does: prev <= k < L.end.
  auto holdsEarlier = [&](int32_t l) { return prev > order.loops[size_t(l)].header; };
  if (cover == WriteCover::WholeOnFirst && !chain.empty() && holdsEarlier(chain.back())) return false;
  for (int32_t l : chain)
    if (holdsEarlier(l) && answers.carried(l)) return false;
  return true;
}

// The back-edge question for a register (rule 3): it is carried around loop L unless its first mention in L's body
// is a write of the whole register that runs on every iteration (not inside a block), before any read there.
class RegisterAnswers {
 public:
  RegisterAnswers(const LinearOrder& order, const std::vector<Event>& events) : order_(order), events_(events) {}
  bool carried(int32_t loop) const {
    const LinearLoop& l = order_.loops[size_t(loop)];
    auto it = std::upper_bound(events_.begin(), events_.end(), l.header,
                               [](uint32_t pos, const Event& e) { return pos < e.pos; });
    return it == events_.end() || it->pos >= l.end || !it->write || it->cover != WriteCover::Whole;
  }

 private:
  const LinearOrder& order_;
  const std::vector<Event>& events_;
};

// Cuts one tensor's or register's mentions (in order) into values and adds their segments to `range` (the rules in
// liveness.h); `starts` gets the positions of the writes that start the second, third, ... value.
template <class Answers>
void valuesOf(const LinearOrder& order, std::span<const Event> events, Answers& answers, CoverageAnswers* coverage,
              LiveRange& range, std::vector<uint32_t>* starts, std::vector<int32_t>& ld, std::vector<int32_t>& lu,
              std::vector<int32_t>& chain) {
  Mentions m;
  uint32_t prev = 0;
  for (const Event& ev : events) {
    if (ev.write && ev.cover != WriteCover::Partial && !m.empty() &&
        startsValue(order, ev.pos, ev.cover, prev, answers, chain)) {
      range.add(segmentOf(order, m, coverage, ld, lu));
      if (starts) starts->push_back(ev.pos);
      m = Mentions{};
    }
    if (ev.write) m.write(ev.pos, ev.cover);
    else m.read(ev.pos);
    prev = ev.pos;
  }
  if (!m.empty()) range.add(segmentOf(order, m, coverage, ld, lu));
}

}  // namespace

Liveness computeLiveness(const Program& p) {
  Liveness live;
  live.order = linearize(p);
  const LinearOrder& order = live.order;
  // Every tensor mention, in order of position, filed by tensor below (a counting sort keeps each tensor's in
  // order). The thread's, as e below.
  struct Filed {
    TensorId t;
    Event ev;
  };
  thread_local std::vector<Filed> filed;
  thread_local std::vector<std::vector<Event>> regs;  // by RegId, in order of position (reads before writes)
  filed.clear();
  regs.resize(p.registers.size());
  for (std::vector<Event>& r : regs) r.clear();
  auto readReg = [&](RegId r, uint32_t pos) { regs[r].push_back({pos, false, WriteCover::Partial}); };
  auto writeReg = [&](RegId r, uint32_t pos, WriteCover cover) { regs[r].push_back({pos, true, cover}); };
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].input) filed.push_back({t, {order.start(), true, WriteCover::Whole}});
  // The thread's: its vectors keep their room from one instruction, and one call, to the next (liveness is computed
  // several times per allocation).
  thread_local OperandEffects e;
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& at = order.positions[pos];
    if (!at.executes || at.inst == nullptr) continue;
    // A write inside an if's body may not run: it never replaces the whole value (starts none, kills nothing).
    const WriteCover whole = at.conditional ? WriteCover::Partial : WriteCover::Whole;
    if (at.kind == LinearPosition::Kind::LoopHeader || at.kind == LinearPosition::Kind::LoopEnd) {
      if (at.kind == LinearPosition::Kind::LoopHeader)  // a register bound is read on entry
        for (const IndexTerm& t : at.inst->mask.c.terms)
          if (t.reg < regs.size()) readReg(t.reg, pos);
      // The end steps the register from its value (a read, then the write of the next or the exit value): the value
      // the header starts lives over the whole loop.
      if (at.kind == LinearPosition::Kind::LoopEnd && at.inst->rd < regs.size()) readReg(at.inst->rd, pos);
      if (at.inst->rd < regs.size()) writeReg(at.inst->rd, pos, whole);
      continue;
    }
    operandEffects(p, *at.inst, e);
    for (RegId r : e.reg_reads) readReg(r, pos);
    for (TensorId t : e.tensor_reads) filed.push_back({t, {pos, false, WriteCover::Partial}});
    for (const TensorWrite& w : e.tensor_writes)
      filed.push_back({w.tensor, {pos, true, at.conditional ? WriteCover::Partial : w.cover}});
    for (RegId r : e.reg_writes) writeReg(r, pos, whole);
  }
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].output) filed.push_back({t, {order.end(), false, WriteCover::Partial}});
  thread_local std::vector<uint32_t> offsets;
  thread_local std::vector<Event> events;
  offsets.assign(p.tensors.size() + 1, 0);
  for (const Filed& f : filed) ++offsets[f.t + 1];
  for (size_t t = 0; t < p.tensors.size(); ++t) offsets[t + 1] += offsets[t];
  events.resize(filed.size());
  {
    thread_local std::vector<uint32_t> fill;
    fill.assign(offsets.begin(), offsets.end() - 1);
    for (const Filed& f : filed) events[fill[f.t]++] = f.ev;
  }

  thread_local std::vector<int32_t> ld, lu, chain;  // the thread's, as e
  CoverageCache cache;
  CoverageAnswers answers(p, order, live.stats, cache);
  live.tensors.resize(p.tensors.size());
  live.value_starts.resize(p.tensors.size());
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    answers.reset(t);
    valuesOf(order, std::span<const Event>(events).subspan(offsets[t], offsets[t + 1] - offsets[t]), answers,
             &answers, live.tensors[t], &live.value_starts[t], ld, lu, chain);
  }
  live.registers.resize(regs.size());
  for (RegId r = 0; r < regs.size(); ++r) {
    RegisterAnswers reg_answers(order, regs[r]);
    valuesOf(order, std::span<const Event>(regs[r]), reg_answers, nullptr, live.registers[r], nullptr, ld, lu, chain);
  }
  return live;
}

}  // namespace allocsim
