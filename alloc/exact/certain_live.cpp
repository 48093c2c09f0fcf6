#include "alloc/exact/certain_live.h"

#include <algorithm>

#include "alloc/operand_effects.h"

namespace allocsim {

bool certainStep(const LinearOrder& order, uint32_t pos) {
  if (pos >= order.positions.size()) return false;
  const LinearPosition& at = order.positions[pos];
  return at.kind == LinearPosition::Kind::Instruction && at.executes && !at.conditional && at.inst != nullptr;
}

namespace {

struct Mentions {
  std::vector<uint32_t> reads, writes;  // ascending positions of executed instructions
};

// Whether loop l's body holds position pos.
bool holds(const LinearLoop& l, uint32_t pos) { return l.header < pos && pos < l.end; }

// The spans a read at r witnesses (certain_live.h): writes are t's, ascending.
void readSpans(const LinearOrder& order, uint32_t r, const std::vector<uint32_t>& writes,
               std::vector<int32_t>& chain, std::vector<std::pair<uint32_t, uint32_t>>& out) {
  // Later reads: p in (lo, r), lo the last write before r, or the end of the outermost loop around it without r.
  auto before = std::lower_bound(writes.begin(), writes.end(), r);
  if (before != writes.begin()) {
    uint32_t lo = *(before - 1);
    order.nest(lo, chain);
    for (int32_t l : chain)
      if (!holds(order.loops[size_t(l)], r)) {
        lo = order.loops[size_t(l)].end;
        break;
      }
    if (lo + 1 < r) out.push_back({lo + 1, r - 1});
  }
  // A read in the next iteration of a loop C around r of two or more iterations: p after r and after every write
  // in C (and the loop inside C that holds it), with no write in C's body before r.
  order.nest(r, chain);
  for (size_t k = chain.size(); k-- > 0;) {
    const LinearLoop& c = order.loops[size_t(chain[k])];
    if (c.trips < 2) continue;
    if (std::lower_bound(writes.begin(), writes.end(), c.header + 1) != before) break;  // a write in C before r
    uint32_t q = r;
    auto last = std::lower_bound(writes.begin(), writes.end(), c.end);
    if (last != writes.begin() && *(last - 1) > r) {
      q = *(last - 1);
      std::vector<int32_t> inner;
      order.nest(q, inner);
      for (int32_t l : inner)
        if (order.loops[size_t(l)].header > c.header && order.loops[size_t(l)].end < c.end) {
          q = order.loops[size_t(l)].end;  // the outermost loop inside C around the write
          break;
        }
    }
    if (q + 1 < c.end) out.push_back({q + 1, c.end - 1});
  }
}

}  // namespace

std::vector<std::vector<std::pair<uint32_t, uint32_t>>> certainLiveSpans(const Program& p, const LinearOrder& order) {
  std::vector<Mentions> m(p.tensors.size());
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].input) m[t].writes.push_back(order.start());
  OperandEffects e;
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& at = order.positions[pos];
    if (at.kind != LinearPosition::Kind::Instruction || !at.executes || at.inst == nullptr) continue;
    operandEffects(p, *at.inst, e);
    for (TensorId t : e.tensor_reads)
      if (m[t].reads.empty() || m[t].reads.back() != pos) m[t].reads.push_back(pos);
    for (const TensorWrite& w : e.tensor_writes)
      if (m[w.tensor].writes.empty() || m[w.tensor].writes.back() != pos) m[w.tensor].writes.push_back(pos);
  }
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> out(p.tensors.size());
  std::vector<int32_t> chain;
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    for (const std::vector<uint32_t>* list : {&m[t].reads, &m[t].writes})
      for (uint32_t pos : *list)
        if (certainStep(order, pos)) out[t].push_back({pos, pos});
    for (uint32_t r : m[t].reads)
      if (certainStep(order, r)) readSpans(order, r, m[t].writes, chain, out[t]);
  }
  return out;
}

}  // namespace allocsim
