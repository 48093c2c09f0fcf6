// The O0 placement (as in the production Selection Map, optlevel 0 runs the minimal pipeline; here it
// is a no-reuse placement): no two SBUF tensors ever share a byte, no two PSUM tensors a bank, no two registers a lane,
// whatever their live ranges. Trivially correct when it fits, so it is the oracles' first known-good input.
#pragma once

#include "ir/program.h"

namespace allocsim {

// SBUF tensors in declaration order, each at the first fit over partition x byte (lowest partition band that is a
// multiple of sbuf_partition_quantum, then lowest offset that is a multiple of sbuf_align) that overlaps no other
// SBUF tensor; PSUM tensors at the lowest free bank range; registers at the lowest free lanes (64-bit: two).
// Pinned tensors keep their placements; DRAM tensors are left as they are; other placements are replaced.
// Throws AllocError naming the first tensor or register that does not fit, with the total demand of its space
// against the capacity, or the production allocator's "... is too big for PSUM ..." for a PSUM tensor larger
// than PSUM.
Program placeNoReuse(const Program& p);

}  // namespace allocsim
