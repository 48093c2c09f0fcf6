#include "alloc/sbuf/sbuf_split.h"

#include <algorithm>

#include "alloc/copy_tensor.h"
#include "alloc/iteration_coverage.h"
#include "alloc/loop_gaps.h"
#include "alloc/operand_effects.h"
#include "alloc/tensor_accesses.h"

namespace allocsim {
namespace {

bool movable(const Tensor& t) {
  return t.space == Space::Sbuf && !t.placement && !t.pinned && !t.input && !t.output &&
         (t.origin == Origin::Source || t.origin == Origin::Copy);
}

// Renames every operand naming `from` to `to` in the statements visited after the one with id `after` (and its body)
// ends, in preorder; inserts the copy right after that statement. `passed`: that statement has ended.
void rewrite(const Program& p, std::vector<Instruction>& body, const SbufSplitPoint& s, TensorId to, const Instruction& copy,
             bool& passed, uint32_t& line) {
  for (size_t i = 0; i < body.size(); ++i) {
    Instruction& inst = body[i];
    if (passed && inst.op != Op::Loop)
      for (const TensorAccess& a : tensorAccesses(p, inst, Space::Sbuf)) {
        AccessPattern& ap = operandOf(inst, a.operand);
        if (ap.tensor == s.tensor) ap.tensor = to;
      }
    if (hasBody(inst.op)) rewrite(p, inst.body, s, to, copy, passed, line);
    if (!passed && inst.id == s.after) {
      passed = true;
      Instruction c = copy;
      c.loc = inst.loc;
      line = inst.loc.line;
      body.insert(body.begin() + ptrdiff_t(i) + 1, std::move(c));
      ++i;  // the copy itself reads the tensor as it is
    }
  }
}

}  // namespace

std::vector<SbufSplitPoint> sbufSplitPoints(const Program& p, const Liveness& live, uint64_t max_live, size_t limit) {
  const LinearOrder& order = live.order;
  const size_t n = order.positions.size();
  // Area live across the boundary after each position (at it and at the next, every iteration, as a placement sees
  // it): what is live where a copy inserted there runs.
  std::vector<int64_t> delta(n + 1, 0);
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const LiveRange& r = live.tensors[t];
    if (p.tensors[t].space != Space::Sbuf || r.empty()) continue;
    const int64_t area = int64_t(uint64_t(p.tensors[t].partitions) * p.tensors[t].bytesPerPartition());
    for (size_t k = 0; k < r.segmentCount(); ++k)
      if (r.segment(k).last > r.segment(k).first) {
        delta[r.segment(k).first] += area;
        delta[r.segment(k).last] -= area;
      }
  }
  std::vector<uint64_t> across(n, 0);
  int64_t now = 0;
  for (size_t pos = 0; pos < n; ++pos) across[pos] = uint64_t(now += delta[pos]);
  // Each movable tensor's mentions, in order.
  std::vector<std::vector<uint32_t>> mentions(p.tensors.size());
  std::vector<bool> conditional(p.tensors.size(), false);
  OperandEffects e;
  for (uint32_t pos = 0; pos < n; ++pos) {
    const LinearPosition& at = order.positions[pos];
    if (at.kind != LinearPosition::Kind::Instruction || at.inst == nullptr || !at.executes) continue;
    operandEffects(p, *at.inst, e);
    auto note = [&](TensorId t) {
      if (t >= p.tensors.size() || !movable(p.tensors[t])) return;
      if (mentions[t].empty() || mentions[t].back() != pos) mentions[t].push_back(pos);
      if (at.conditional) conditional[t] = true;
    };
    for (TensorId t : e.tensor_reads) note(t);
    for (const TensorWrite& w : e.tensor_writes) note(w.tensor);
  }
  std::vector<SbufSplitPoint> out;
  std::vector<int32_t> first_nest, last_nest;
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const std::vector<uint32_t>& m = mentions[t];
    if (m.size() < 2 || conditional[t]) continue;
    order.nest(m.front(), first_nest);
    order.nest(m.back(), last_nest);
    int32_t body = -1;  // the innermost loop holding every mention
    for (size_t i = 0; i < first_nest.size() && i < last_nest.size() && first_nest[i] == last_nest[i]; ++i)
      body = first_nest[i];
    if (body >= 0 && iterationCoverage(p, order, t, body) != IterationCoverage::Covered) continue;
    const uint64_t area = uint64_t(p.tensors[t].partitions) * p.tensors[t].bytesPerPartition();
    for (size_t i = 0; i + 1 < m.size(); ++i) {
      const int32_t x = order.childIn(m[i], body), y = order.childIn(m[i + 1], body);
      if (x >= 0 && x == y) continue;  // both in one loop of the body: no place between them in the body
      const uint32_t x_end = x < 0 ? m[i] : order.loops[size_t(x)].end;
      const uint64_t here = across[x_end] + area;  // the tensor is live across: its copy adds as much again
      if (here > max_live) continue;
      // The copy reads every element: each must have been written in this iteration of the body before it.
      const uint32_t from = body < 0 ? order.start() + 1 : order.loops[size_t(body)].header + 1;
      if (!writtenWhole(p, order, t, from, x_end + 1)) continue;
      const Instruction* stmt = x < 0 ? order.positions[m[i]].inst : order.loops[size_t(x)].inst;
      out.push_back({t, stmt->id, here});
    }
  }
  // The largest tensors first (splitting a small one frees little), then the least loaded places.
  std::stable_sort(out.begin(), out.end(), [&](const SbufSplitPoint& a, const SbufSplitPoint& b) {
    const uint64_t sa = uint64_t(p.tensors[a.tensor].partitions) * p.tensors[a.tensor].bytesPerPartition();
    const uint64_t sb = uint64_t(p.tensors[b.tensor].partitions) * p.tensors[b.tensor].bytesPerPartition();
    return sa != sb ? sa > sb : a.live_area < b.live_area;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

Program splitSbufTensor(const Program& p, const SbufSplitPoint& s, SbufSplitCopyAt* copy_at) {
  Program out = p;
  Tensor copy = out.tensors[s.tensor];
  copy.origin = Origin::Copy;
  copy.copy_of = out.tensors[s.tensor].origin == Origin::Copy ? out.tensors[s.tensor].copy_of : s.tensor;
  copy.placement.reset();
  uint32_t next_id = 1;
  const TensorId to = addCopyTensor(out, copy, "_Split", next_id);
  Instruction c;
  c.op = Op::Copy;
  c.origin = Origin::Copy;
  c.dst = wholeTensor(out, to);
  c.a = wholeTensor(out, s.tensor);
  bool passed = false;
  uint32_t line = 0;
  rewrite(out, out.body, s, to, c, passed, line);
  out.renumber();
  if (copy_at) *copy_at = {to, line};
  return out;
}

}  // namespace allocsim
