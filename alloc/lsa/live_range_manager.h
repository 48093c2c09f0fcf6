// Live_Range_Manager (the production allocator, "The active set — Live_Range_Manager and its comparator"): the
// linear-scan allocator's interval bookkeeping for one memory type. Intervals are the tensors' live ranges over the
// loop-extended linear order (alloc/liveness.h; SBUF spill stand-ins exactly around their instruction,
// alloc/sbuf/sbuf_live_ranges.h), visited in program order of their start. The active set holds the intervals
// that own memory; an interval expires — "has no more uses", "erased" — once the scan has passed its last
// position.
//
// liveSetComparator orders the active set, in the production allocator's priority:
//   1. interval-end weight descending (the interval that lives furthest comes first: the head),
//   2. tensor name,
//   3. def/use membership: an interval the current instruction reads or writes comes first,
//   4. size (bytes, or banks) ascending.
// (The production fourth tie, a memcmp of the name buffer, repeats the second with std::string's ordering; names are
// unique here, so the later ties only matter between equal names and never decide.) pickForSpilling takes the
// head of this order; see alloc/lsa/lsa_allocator.h for which intervals may be picked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloc/liveness.h"
#include "ir/program.h"

namespace allocsim {

struct LsaInterval {
  TensorId tensor = kNone;
  LiveRange range;
  uint64_t size = 0;  // the live size the allocator adds to its footprint: SBUF partitions x bytes, PSUM banks
};

struct ActiveEntry {
  TensorId tensor = kNone;
  uint32_t end = 0;             // the interval-end weight (last position)
  const std::string* name = nullptr;
  bool in_instruction = false;  // the current instruction reads or writes it
  uint64_t size = 0;
};

bool liveSetComparator(const ActiveEntry& a, const ActiveEntry& b);

class LiveRangeManager {
 public:
  // The intervals of `space` that `mine` marks (by TensorId) and whose range is not empty, by (start, id).
  LiveRangeManager(const Program& p, const Liveness& live, Space space, const std::vector<bool>& mine);

  const std::vector<LsaInterval>& intervals() const { return intervals_; }

  // Removes and returns the active intervals that end before `pos` (getRemUses == 0), in activation order.
  std::vector<LsaInterval> expireBefore(uint32_t pos);
  void makeLive(const LsaInterval& iv) { active_.push_back(iv); }
  // The active set in liveSetComparator order; membership relative to the instruction at `pos`.
  std::vector<ActiveEntry> sorted(uint32_t pos) const;
  // Whether the instruction at `pos` of the linear order reads or writes `t`.
  bool mentions(uint32_t pos, TensorId t) const;
  // The first position from `pos` on whose instruction reads `t` (where a spilled interval is reloaded), or kNone.
  uint32_t nextRead(uint32_t pos, TensorId t) const;

 private:
  const Program& p_;
  const Liveness& live_;
  std::vector<LsaInterval> intervals_;
  std::vector<LsaInterval> active_;
};

}  // namespace allocsim
