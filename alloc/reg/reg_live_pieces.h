// Two facts about register live ranges that the REG colorer relies on and O7's in-place checker (alloc/in_place.h)
// must accept from it, kept in one place so the two agree:
//
// - Pieces. A register's pieces are the segments of its range (alloc/liveness.h: a write of the whole register
//   starts a new value, so a register redefined in full between two uses is live in two pieces). A spilled loop register (alloc/reg/reg_spill.h) is live at the two ends of its loop's body only: its
//   range (alloc/liveness.h) up to the `reg_store <slot>, r !spill` that starts the body, and from the
//   `reg_load r, <slot> !reload` that ends it. Recognised by that shape, so a fixed assignment read back at O7
//   gets the same pieces.
// - Copy contacts. Two registers whose ranges meet at one position only, a `mov` from one to the other where the
//   source's range ends and the destination's begins, may share lanes (alloc/reg/reg_coalesce.h; the placement
//   oracle's rule for such copies, docs/verification.md).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "alloc/liveness.h"
#include "ir/program.h"

namespace allocsim {

// By RegId: the disjoint pieces of each register's range, one per segment (none when it is never live).
std::vector<std::vector<LiveRange>> registerLivePieces(const Program& p, const Liveness& live);

class CopyContacts {
 public:
  // `live` must outlive this object.
  CopyContacts(const Program& p, const Liveness& live);
  // True when x and y may share lanes although their ranges meet: they meet only at a copy between them, where
  // the source's range ends and the destination's begins (same width).
  bool onlyAtCopy(RegId x, RegId y) const;

 private:
  struct Copy {
    RegId dst, src;
  };
  const Program& p_;
  const Liveness& live_;
  std::map<uint32_t, Copy> copy_at_;  // position -> the `mov` there
};

}  // namespace allocsim
