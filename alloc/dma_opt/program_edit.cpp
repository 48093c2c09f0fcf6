#include "alloc/dma_opt/program_edit.h"

#include <algorithm>
#include <vector>

namespace allocsim {
namespace {

template <typename F>
void forEachView(std::vector<Instruction>& body, F&& f) {
  for (Instruction& i : body) {
    forEachOperandView(i, f);
    if (hasBody(i.op)) forEachView(i.body, f);
  }
}

}  // namespace

void renameTensor(Program& p, TensorId from, TensorId to) {
  forEachView(p.body, [&](AccessPattern& ap) {
    if (ap.tensor == from) ap.tensor = to;
  });
  for (Tensor& t : p.tensors)
    if (t.copy_of == from) t.copy_of = to;
}

uint32_t removeUnusedInsertedTensors(Program& p) {
  const size_t n = p.tensors.size();
  std::vector<bool> used(n, false);
  forEachView(p.body, [&](AccessPattern& ap) {
    if (ap.tensor < n) used[ap.tensor] = true;
  });
  for (TensorId t = 0; t < n; ++t)
    if (p.tensors[t].origin == Origin::Source || p.tensors[t].pinned) used[t] = true;
  // A kept tensor keeps the chain of tensors it copies (the verifier follows it to a source tensor).
  for (TensorId t = 0; t < n; ++t) {
    if (!used[t]) continue;
    for (TensorId c = p.tensors[t].copy_of, hops = 0; c < n && hops <= n && !used[c]; c = p.tensors[c].copy_of, ++hops)
      used[c] = true;
  }
  // Usually every tensor is still used: then nothing moves (the pass runs twice per round of the DMA optimization).
  if (std::find(used.begin(), used.end(), false) == used.end()) return 0;
  std::vector<TensorId> remap(n, kNone);
  std::vector<Tensor> kept;
  kept.reserve(n);
  for (TensorId t = 0; t < n; ++t) {
    if (!used[t]) continue;
    remap[t] = TensorId(kept.size());
    kept.push_back(std::move(p.tensors[t]));
  }
  const uint32_t removed = uint32_t(n - kept.size());
  if (removed == 0) {
    p.tensors = std::move(kept);
    return 0;
  }
  for (Tensor& t : kept)
    if (t.copy_of < n) t.copy_of = remap[t.copy_of];
  p.tensors = std::move(kept);
  forEachView(p.body, [&](AccessPattern& ap) {
    if (ap.tensor < n) ap.tensor = remap[ap.tensor];
  });
  return removed;
}

}  // namespace allocsim
