// The REG step of the driver until the REG colorer (seed 000 section 2) lands: a greedy first fit over the SP
// register lanes. Registers in order of the start of their live range (alloc/liveness.h; never-live ones last,
// then declaration order), each at the lowest lanes free of every already placed register whose live range
// interferes with its own; a 64-bit register takes two adjacent lanes. No spilling.
#pragma once

#include <vector>

#include "alloc/report.h"
#include "ir/program.h"

namespace allocsim {

// Places every register of `p` except those with keep[r] set (they keep their placement and are obstacles;
// `keep` may be shorter than the register list). Throws AllocError naming the first register that does not fit
// and the peak lane demand over its live range. The report says that this is the greedy stand-in.
AllocReport placeRegisterLanes(Program& p, const std::vector<bool>& keep = {});

}  // namespace allocsim
