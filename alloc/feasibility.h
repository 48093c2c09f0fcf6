// What no allocator can do, decided before any of them runs: one instruction needs more of a resource at once
// than the machine has. Then every allocator would fail (exit code 3) after its whole search; this says so at once
// and names the instruction.
//   - registers: the registers an instruction names (its address terms, scalar operands, rs / rt / rd; a loop its
//     own register) must all be in SP registers while it runs: more lanes than the machine's SP registers cannot
//     be had, whatever is spilled (every other register can wait in memory);
//   - SBUF: the distinct SBUF tensors an instruction reads are all resident while it runs, and so are those it
//     writes, with the ones it reads (no result is written over a source still being read): the area
//     (partitions x bytes per partition) of the reads, the writes, or both together beyond the SBUF's;
//   - PSUM: likewise in banks.
// A single tensor too big for its space is left to the allocators' own capacity guards. The register message
// starts with the REG colorer's ("cannot allocate registers since spilling candidates are not enough").
#pragma once

#include "ir/program.h"

namespace allocsim {

// Throws AllocError at the first such instruction.
void requireFeasible(const Program& p);

}  // namespace allocsim
