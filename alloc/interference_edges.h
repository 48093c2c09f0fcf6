// The interference edges of a colorer's graph: two nodes interfere when their live ranges share a position.
// Shared by the PSUM and SBUF colorers, which run one Chaitin–Briggs skeleton (as in the production allocator: "the
// same time-overlap interference as SBUF"); geometry plays no part in the edge rule, only in their degree tests and
// selects.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "alloc/liveness.h"

namespace allocsim {

// Neighbour lists by node, kept as compressed rows (node i's list is flat[offsets[i], offsets[i + 1])): two
// allocations for the whole graph, where a vector per node cost one each and more as it grew, and the colorers
// build a graph per round of every allocation.
class InterferenceEdges {
 public:
  size_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  std::span<const uint32_t> operator[](size_t i) const {
    return {flat_.data() + offsets_[i], flat_.data() + offsets_[i + 1]};
  }

 private:
  friend InterferenceEdges interferenceEdges(const std::vector<LiveRange>& ranges);
  std::vector<uint32_t> offsets_;
  std::vector<uint32_t> flat_;
};

// By node (ranges[i] is node i's live range): the nodes whose range shares a position with it, ascending, without
// repeats; symmetric. Empty ranges interfere with nothing.
InterferenceEdges interferenceEdges(const std::vector<LiveRange>& ranges);

}  // namespace allocsim
