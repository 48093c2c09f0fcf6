// The DMA instructions spill code inserts (a save to a spill slot, a reload into a stand-in), shared by the PSUM
// and SBUF spill writers, which run one Chaitin–Briggs skeleton (as in the production allocator) and insert the same
// copies.
#pragma once

#include <cstdint>
#include <utility>

#include "ir/program.h"

namespace allocsim {

// `view` moved onto tensor `t`: the same elements of another tensor laid out alike (a slot or stand-in).
inline AccessPattern viewOn(AccessPattern view, TensorId t) {
  view.tensor = t;
  return view;
}

// The view a reload moves for a source view: the view itself, or, when its second dimension overlaps itself
// (STEP < COUNT), its contiguous hull (every element of which the view covers), so that the reload's destination
// does not overlap itself (docs/format.md: a destination view needs STEP >= COUNT).
inline AccessPattern reloadView(AccessPattern ap) {
  const uint64_t hull = uint64_t(ap.count2 - 1) * ap.step2 + ap.count;
  if (ap.count2 > 1 && ap.step2 < ap.count && hull <= UINT32_MAX) {
    ap.count = uint32_t(hull);
    ap.count2 = 1;
    ap.step2 = 0;
  }
  return ap;
}

// `dma dst, src` with the given origin (Spill or Reload), located at `loc` (the instruction it serves).
inline Instruction spillDma(const SourceLoc& loc, Origin origin, AccessPattern dst, AccessPattern src) {
  Instruction c;
  c.op = Op::Dma;
  c.origin = origin;
  c.loc = loc;
  c.dst = std::move(dst);
  c.a = std::move(src);
  return c;
}

// The reload of `view` of a spilled tensor from its `slot` into its `stand_in`, before the instruction it serves.
inline Instruction reloadDma(const SourceLoc& loc, const AccessPattern& view, TensorId stand_in, TensorId slot) {
  return spillDma(loc, Origin::Reload, viewOn(view, stand_in), viewOn(view, slot));
}

// The save of `view` of a spilled tensor from its `stand_in` to its `slot`, after the instruction that wrote it.
inline Instruction saveDma(const SourceLoc& loc, const AccessPattern& view, TensorId stand_in, TensorId slot) {
  return spillDma(loc, Origin::Spill, viewOn(view, slot), viewOn(view, stand_in));
}

}  // namespace allocsim
