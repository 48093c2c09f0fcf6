// Pinned placements in generated inputs (so that a property can check that every optlevel keeps them). Applied to a
// generated program (gen/generate.h), drawing from the same Choices after it.
#pragma once

#include <cstdint>

#include "gen/choices.h"
#include "ir/program.h"

namespace allocsim {

// Pins each SBUF and PSUM tensor with probability `percent` (a choice of 0 pins nothing), at a placement no other
// pinned tensor shares: SBUF tensors are stacked along the bytes of partition 0 (offsets multiples of sbuf-align)
// within half of a partition, so that the allocators keep room for the rest; PSUM tensors take consecutive banks
// within half of the banks. Pinned tensors never overlap one another, so pins alone never make a program
// impossible to allocate. Returns how many tensors it pinned. The program stays well-formed.
uint32_t pinPlacements(Program& p, Choices& c, uint32_t percent);

// Gives each unplaced DRAM tensor a byte offset (`@B`) with probability `percent` (a choice of 0 places nothing),
// and marks about half of those `pinned`. The offsets are stacked from byte 0 in declaration order, each a multiple
// of the tensor's element size, with a gap of up to two elements drawn before it, and none past dram-limit: placed
// DRAM tensors never share a byte, so the program is as allocatable as before. Every allocator keeps DRAM
// placements (only O8 places DRAM spill slots, past every placed tensor), and the oracles then run those tensors on
// shared DRAM bytes instead of storage of their own. Returns how many tensors it placed.
uint32_t placeDramTensors(Program& p, Choices& c, uint32_t percent);

}  // namespace allocsim
