// A simple reuse-aware placer with no spilling: the first real allocation with reuse the oracles check, and the
// baseline the coloring allocators (modelled on the production allocator's) are measured against.
#pragma once

#include "ir/program.h"

namespace allocsim {

// Tensors in order of the first position of their live range (alloc/liveness.h; ties and tensors never mentioned,
// which come last: declaration order), each at the first fit (SBUF: lowest partition band, then lowest byte offset,
// respecting sbuf_align and sbuf_partition_quantum; PSUM: lowest bank range) that overlaps no already placed tensor
// of the same space whose live range interferes with its own; registers likewise over lanes. Pinned tensors keep
// their placements and are obstacles while they are live; DRAM tensors are left as they are.
// Throws AllocError naming the first tensor or register that does not fit, with the peak demand over its live
// range against the capacity (or the production allocator's "... is too big for PSUM ...").
Program placeGreedy(const Program& p);

}  // namespace allocsim
