// An allocator-independent bound on the SP register lanes any correct allocation needs (for the REG colorer's
// properties and fuzz target, and the quality report): at every instruction, the lanes of the registers it names
// plus those of the loops around it (a loop register is stepped in place across its whole loop and cannot be
// spilled). Spilling to memory can bring every other register down to the instruction that names it, so when
// this bound fits the machine, a register allocator that spills must not give up.
//
// The bound is exact only when every loop register is mentioned nowhere but in its own loop (its header and its
// body): then nothing else pins a lane across instructions. `confined` says whether that holds.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

struct RegisterDemand {
  uint32_t unavoidable_lanes = 0;  // max over instructions of (own registers + enclosing loop registers)
  bool confined = true;            // every loop register mentioned only in its own loop
};

RegisterDemand registerDemand(const Program& p);

}  // namespace allocsim
