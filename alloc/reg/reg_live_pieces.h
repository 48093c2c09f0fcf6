// Two facts about register live ranges that the REG colorer relies on and O7's in-place checker (alloc/in_place.h)
// must accept from it, kept in one place so the two agree:
//
// - Pieces. A register's pieces are the segments of its range (alloc/liveness.h: a write of the whole register
//   starts a new value, so a register redefined in full between two uses is live in two pieces). A register whose
//   writes all happen in one run of one instruction (its one write, or the loop that steps it) and whose reads all
//   follow them in the same run of the body that holds that instruction is live from there to its last read only,
//   even where the liveness, which counts a write in code that may not run as no new value, extends it over the
//   loops around: a reload stand-in and its use, a loop inside a loop with a register bound. A spilled loop
//   register (alloc/reg/reg_spill.h) is live at the two ends of its loop's body only: its range up to the `reg_store <slot>, r !spill` that starts the body, and from the
//   `reg_load r, <slot> !reload` that ends it, and inside it from each `reg_load r, <slot> !reload` that
//   precedes an inner loop whose register bound reads r to that loop's header. Recognised by that shape, so a
//   fixed assignment read back at O7 gets the same pieces.
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
