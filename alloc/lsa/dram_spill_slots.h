// DRAM spill slots at optlevel 8 (the production allocator, "Considerations — the opt8 pipeline":
// linear_scan_allocator is the sole SBUF/PSUM allocator and "DRAM still uses coloring_allocator_dram_debug"). The
// debug DRAM allocator gives every spill slot bytes of its own: each unplaced DRAM tensor of origin spill is placed,
// in declaration order, at the first 4-byte-aligned offset past every DRAM tensor placed so far — no reuse, so no two
// slots can clobber each other whatever their live ranges. At the other optlevels slots stay unplaced (storage of their
// own, docs/verification.md), which is the same guarantee without an address.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

// Returns how many slots were placed. Throws AllocError at the first slot that would end past dram-limit.
uint32_t placeDramSpillSlots(Program& p);

}  // namespace allocsim
