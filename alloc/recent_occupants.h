// Which tensors a tensor takes storage over inside a loop, and how recently they were last read: what the colorers
// consult to keep a loop's freshly freed storage apart (alloc/sbuf/sbuf_recent_bytes.h, alloc/psum/psum_recent_banks.h).
//
// A tensor whose live range lies in a loop (the outermost around its first position) may share storage with the
// placed tensors whose ranges lie in the same loop's body and end before its range starts (earlier in the same
// iteration) or start after it ends (late in the iteration before, around the back edge). Those are its recent
// occupants. Its distance to one is how many positions lie between that occupant's last read and its own first
// position, around the back edge for the second kind: the smaller, the likelier that last reader is still in
// flight on the machine when the tensor's first write comes, which must then wait for it (a write-after-read
// dependence that serializes what the kernel's buffers were declared to overlap).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "alloc/linear_order.h"
#include "alloc/liveness.h"

namespace allocsim {

class RecentOccupants {
 public:
  // `ranges[j]`: node j's live range, or null for a node that holds no storage (unplaced, or never live).
  RecentOccupants(const LinearOrder& order, std::vector<const LiveRange*> ranges);

  // Node i's recent occupants as (distance, node), nearest first (ties by node), at most `limit` of them; empty
  // when i's range does not lie in a loop or reaches past its end (its storage is not the loop's to trade).
  void find(uint32_t i, uint32_t limit, std::vector<std::pair<uint64_t, uint32_t>>& near) const;

  // `nodes` (each with a range) by the first position of their ranges, then by node: the order the passes move
  // tensors in.
  std::vector<uint32_t> byFirst(std::vector<uint32_t> nodes) const;

 private:
  const LinearOrder& order_;
  std::vector<const LiveRange*> ranges_;
  std::vector<uint32_t> by_last_;  // the nodes with storage, by the last position of their ranges
};

}  // namespace allocsim
