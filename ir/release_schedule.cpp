#include "ir/release_schedule.h"

namespace allocsim {

namespace {

// Fills `start` and `items` from (statement, tensor) pairs given in tensor order, so each list keeps that order.
template <typename Each>
void fill(size_t statements, std::vector<uint32_t>& start, std::vector<TensorId>& items, Each each) {
  start.assign(statements + 1, 0);
  each([&](size_t s, TensorId) { ++start[s + 1]; });
  for (size_t s = 0; s < statements; ++s) start[s + 1] += start[s];
  items.resize(start[statements]);
  std::vector<uint32_t> next(start.begin(), start.end() - 1);
  each([&](size_t s, TensorId t) { items[next[s]++] = t; });
}

}  // namespace

ReleaseSchedule::ReleaseSchedule(const Program& p) : late_(p.tensors.size(), false), released_(p.tensors.size(), false) {
  std::vector<size_t> first(p.tensors.size(), SIZE_MAX), last(p.tensors.size(), SIZE_MAX);
  for (size_t s = 0; s < p.body.size(); ++s) {
    auto note = [&](const AccessPattern& ap) {
      if (ap.tensor >= last.size()) return;
      if (first[ap.tensor] == SIZE_MAX) first[ap.tensor] = s;
      last[ap.tensor] = s;
    };
    auto visit = [&](const Instruction& i) {
      note(i.dst);
      note(i.a);
      note(i.b);
      for (const ScalarOperand* sc : scalarOperands(i))
        if (sc->kind == ScalarOperand::Kind::Tensor) note(sc->ap);
      if (hasFusedReduce(i)) note(i.reduce_dst);
    };
    visit(p.body[s]);
    if (p.body[s].op == Op::Loop) forEachInstruction(p.body[s].body, visit);
  }
  const size_t n = p.body.size();
  fill(n, before_.start, before_.items, [&](auto add) {
    for (TensorId t = 0; t < first.size(); ++t) {
      const Tensor& tensor = p.tensors[t];
      if (first[t] == SIZE_MAX || !tensor.input || tensor.space != Space::Dram || tensor.placement) continue;
      add(first[t], t);
    }
  });
  fill(n, final_.start, final_.items, [&](auto add) {
    for (TensorId t = 0; t < last.size(); ++t)
      if (last[t] != SIZE_MAX && p.tensors[t].output) add(last[t], t);
  });
  fill(n, after_.start, after_.items, [&](auto add) {
    for (TensorId t = 0; t < last.size(); ++t)
      if (last[t] != SIZE_MAX && !p.tensors[t].output) add(last[t], t);
  });
  for (TensorId t : before_.items) late_[t] = true;
  for (TensorId t : after_.items) released_[t] = true;
}

}  // namespace allocsim
