// build_ssa_representative of the REG colorer (the production allocator, REG_Allocator: "SSA value-numbering of
// registers", then coalesce_ssa_live_range merges the SSA values that must share a register back into one live range).
//
// A register of the input may hold several unrelated values: `loop i` written by two loops, a scratch register
// reused for another address. Its live range (alloc/liveness.h) is the hull of all of them, which makes it
// interfere with everything in between. Here the values are split: reaching definitions over the linear order
// (loop back edges included; a loop's exit value belongs to the loop's own definition, since the sequencer
// steps the register in place) give, for every read, the definitions it may see; the definitions seen by one
// read are coalesced into one representative (union-find), and each representative is one live range. A
// register with more than one representative keeps the first (in program order) and hands the others to new
// registers `<r>_Ssa<k> !copy(r)`, which the verifier reads as r (docs/verification.md).
//
// Only source registers whose placement is not kept are split.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

// Returns the number of registers added.
uint32_t splitRegisterValues(Program& p, const std::vector<bool>& kept, uint32_t& next_id);

}  // namespace allocsim
