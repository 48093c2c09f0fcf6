#include "ir/release_schedule.h"

namespace allocsim {

namespace {

// Fills `start` and `items` from (statement, tensor) pairs given in tensor order, so each list keeps that order:
// counts in start[s + 2], their prefix sums, then each item placed at start[s + 1]++, which leaves start[s] the
// first of statement s's. No cursor array, and nothing for an empty list: every interpreter run builds three lists,
// and their vectors were most of its heap allocations.
template <typename Each>
void fill(size_t statements, std::vector<uint32_t>& start, std::vector<TensorId>& items, Each each) {
  size_t total = 0;
  each([&](size_t, TensorId) { ++total; });
  if (total == 0) return;  // no list at all (Lists::of gives every statement an empty one): nothing allocated
  start.assign(statements + 2, 0);
  each([&](size_t s, TensorId) { ++start[s + 2]; });
  for (size_t s = 1; s <= statements; ++s) start[s + 1] += start[s];
  items.resize(total);
  each([&](size_t s, TensorId t) { items[start[s + 1]++] = t; });
  start.pop_back();
}

}  // namespace

ReleaseSchedule::ReleaseSchedule(const Program& p) : flags_(p.tensors.size(), 0) {
  // The first and last statements naming each tensor, in one array: [2t] first, [2t + 1] last.
  std::vector<size_t> mentions(2 * p.tensors.size(), SIZE_MAX);
  auto first = [&](TensorId t) -> size_t& { return mentions[2 * size_t(t)]; };
  auto last = [&](TensorId t) -> size_t& { return mentions[2 * size_t(t) + 1]; };
  const size_t tensors = p.tensors.size();
  for (size_t s = 0; s < p.body.size(); ++s) {
    auto note = [&](const AccessPattern& ap) {
      if (ap.tensor >= tensors) return;
      if (first(ap.tensor) == SIZE_MAX) first(ap.tensor) = s;
      last(ap.tensor) = s;
    };
    auto visit = [&](const Instruction& i) { forEachOperandView(i, note); };
    visit(p.body[s]);
    if (hasBody(p.body[s].op)) forEachInstruction(p.body[s].body, visit);
  }
  const size_t n = p.body.size();
  fill(n, before_.start, before_.items, [&](auto add) {
    for (TensorId t = 0; t < tensors; ++t) {
      const Tensor& tensor = p.tensors[t];
      if (first(t) == SIZE_MAX || !tensor.input || tensor.space != Space::Dram || tensor.placement) continue;
      add(first(t), t);
    }
  });
  fill(n, final_.start, final_.items, [&](auto add) {
    for (TensorId t = 0; t < tensors; ++t)
      if (last(t) != SIZE_MAX && p.tensors[t].output) add(last(t), t);
  });
  fill(n, after_.start, after_.items, [&](auto add) {
    for (TensorId t = 0; t < tensors; ++t)
      if (last(t) != SIZE_MAX && !p.tensors[t].output) add(last(t), t);
  });
  for (TensorId t : before_.items) flags_[t] |= kLate;
  for (TensorId t : after_.items) flags_[t] |= kReleased;
}

}  // namespace allocsim
