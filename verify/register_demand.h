// An allocator-independent bound on the SP register lanes any correct allocation needs (for the REG colorer's
// properties and fuzz target, and the quality report): at every instruction, the lanes of the registers it names
// (a loop: its own register, which the sequencer steps and tests at the loop's header and end). Spilling to memory
// can bring every other register down to the instruction that names it, loop registers included (inside its
// body a loop register can live in memory, reloaded where it is read and given back before the loop steps it:
// the production allocator, REG_Allocator, where loops are lowered to ordinary registers before REG runs), so when
// this bound fits the machine, a register allocator that spills must not give up.
//
// The bound is exact only when every loop register is mentioned nowhere but in its own loop (its header and its
// body): then nothing else pins a lane across instructions. `confined` says whether that holds.
// `nest_lanes` is the older, stronger demand of a machine whose loop registers cannot spill: the lanes an
// instruction names plus those of the loops around it.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

struct RegisterDemand {
  uint32_t unavoidable_lanes = 0;  // max over instructions of their own registers' lanes
  uint32_t nest_lanes = 0;         // max over instructions of (own registers + enclosing loop registers)
  bool confined = true;            // every loop register mentioned only in its own loop
};

RegisterDemand registerDemand(const Program& p);

}  // namespace allocsim
