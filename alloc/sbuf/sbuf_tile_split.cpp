#include "alloc/sbuf/sbuf_tile_split.h"

#include <vector>

#include "alloc/copy_tensor.h"
#include "alloc/tensor_accesses.h"
#include "ir/operand_table.h"

namespace allocsim {

namespace {

constexpr uint32_t kWhole = UINT32_MAX;  // a mention that is not inside one tile at a constant offset

// The tile of `t` the view stays inside, or kWhole.
uint32_t tileOf(const Tensor& t, const AccessPattern& ap) {
  const uint64_t tile = t.tileElements();
  if (tile == 0 || !ap.offset.isConstant() || ap.offset.constant < 0 || ap.count == 0) return kWhole;
  const uint64_t first = uint64_t(ap.offset.constant);
  const uint64_t last = first + uint64_t(ap.count2 - 1) * ap.step2 + ap.count - 1;
  return first / tile == last / tile && last < t.elements ? uint32_t(first / tile) : kWhole;
}

template <typename F>
void forEachMutable(std::vector<Instruction>& body, F&& f) {
  for (Instruction& i : body) {
    if (hasBody(i.op)) forEachMutable(i.body, f);
    else f(i);
  }
}

}  // namespace

uint32_t splitSbufTiles(Program& p) {
  const size_t n = p.tensors.size();
  std::vector<bool> candidate(n, false);
  for (TensorId t = 0; t < n; ++t) {
    const Tensor& x = p.tensors[t];
    candidate[t] = x.space == Space::Sbuf && !x.placement && !x.pinned && x.tiles > 1 &&
                   x.elements % x.tiles == 0 &&
                   (x.origin == Origin::Source || (x.origin == Origin::Copy && x.copy_of < n));
  }
  // Which tiles each candidate's mentions name; a candidate with a mention across tiles or at a register offset is
  // dropped.
  std::vector<std::vector<bool>> used(n);
  for (TensorId t = 0; t < n; ++t)
    if (candidate[t]) used[t].assign(p.tensors[t].tiles, false);
  forEachMutable(p.body, [&](Instruction& inst) {
    for (const TensorAccess& a : tensorAccesses(p, inst, Space::Sbuf)) {
      const AccessPattern& ap = operandOf(inst, a.operand);
      if (ap.tensor >= n || !candidate[ap.tensor]) continue;
      const uint32_t k = tileOf(p.tensors[ap.tensor], ap);
      if (k == kWhole) candidate[ap.tensor] = false;
      else used[ap.tensor][k] = true;
    }
  });

  // By candidate and tile: the tensor that holds the tile's mentions (the lowest tile mentioned keeps the tensor).
  std::vector<std::vector<TensorId>> holder(n);
  TakenNames taken(p);
  uint32_t next_id = 1, added = 0;
  for (TensorId t = 0; t < n; ++t) {
    if (!candidate[t]) continue;
    uint32_t mentioned = 0;
    for (bool u : used[t]) mentioned += u;
    if (mentioned < 2) continue;
    holder[t].assign(p.tensors[t].tiles, kNone);
    bool first = true;
    for (uint32_t k = 0; k < p.tensors[t].tiles; ++k) {
      if (!used[t][k]) continue;
      if (first) {
        holder[t][k] = t;
        first = false;
        continue;
      }
      Tensor copy = p.tensors[t];
      copy.origin = Origin::Copy;
      copy.copy_of = p.tensors[t].origin == Origin::Copy ? p.tensors[t].copy_of : t;
      copy.placement.reset();
      holder[t][k] = addCopyTensor(p, copy, "_Tile", next_id, taken);
      ++added;
    }
  }
  if (added == 0) return 0;
  forEachMutable(p.body, [&](Instruction& inst) {
    for (const TensorAccess& a : tensorAccesses(p, inst, Space::Sbuf)) {
      AccessPattern& ap = operandOf(inst, a.operand);
      if (ap.tensor >= n || holder[ap.tensor].empty()) continue;
      ap.tensor = holder[ap.tensor][tileOf(p.tensors[ap.tensor], ap)];
    }
  });
  p.renumber();
  return added;
}

}  // namespace allocsim
