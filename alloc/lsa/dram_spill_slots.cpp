#include "alloc/lsa/dram_spill_slots.h"

#include <algorithm>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/copy_tensor.h"

namespace allocsim {

uint32_t placeDramSpillSlots(Program& p) {
  constexpr uint64_t kAlign = 4;  // every dtype's element size divides it
  uint64_t next = 0;
  for (const Tensor& t : p.tensors)
    if (t.space == Space::Dram && t.placement) next = std::max(next, t.placement->offset + t.totalBytes());
  uint32_t placed = 0;
  for (TensorId id = 0; id < p.tensors.size(); ++id) {
    Tensor& t = p.tensors[id];
    if (t.space != Space::Dram || t.placement || t.origin != Origin::Spill) continue;
    next = (next + kAlign - 1) / kAlign * kAlign;
    if (next > p.arch.dram_limit || t.totalBytes() > p.arch.dram_limit - next)
      throw AllocError(declarationLoc(p, id), "DRAM spill slot '" + t.name + "' (" + std::to_string(t.totalBytes()) +
                                                  " bytes) does not fit below dram-limit " +
                                                  std::to_string(p.arch.dram_limit) + " at offset " +
                                                  std::to_string(next));
    Placement pl;
    pl.offset = next;
    t.placement = pl;
    next += t.totalBytes();
    ++placed;
  }
  return placed;
}

}  // namespace allocsim
