#include "ir/release_schedule.h"

namespace allocsim {

ReleaseSchedule::ReleaseSchedule(const Program& p)
    : after_(p.body.size()), before_(p.body.size()), final_(p.body.size()), late_(p.tensors.size(), false), released_(p.tensors.size(), false) {
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
  for (TensorId t = 0; t < first.size(); ++t) {
    const Tensor& tensor = p.tensors[t];
    if (first[t] == SIZE_MAX || !tensor.input || tensor.space != Space::Dram || tensor.placement) continue;
    before_[first[t]].push_back(t);
    late_[t] = true;
  }
  for (TensorId t = 0; t < last.size(); ++t) {
    if (last[t] == SIZE_MAX) continue;
    if (p.tensors[t].output) {
      final_[last[t]].push_back(t);
      continue;
    }
    after_[last[t]].push_back(t);
    released_[t] = true;
  }
}

}  // namespace allocsim
