// The placement oracle as the exact allocator's judge (alloc/exact/exact_allocator.h, ExactAllocOptions::check):
// a placement the search found over the tensors live together for certain stands only when the oracle accepts it.
#pragma once

#include "alloc/exact/exact_allocator.h"

namespace allocsim {

// "" when verify/placement.h finds nothing wrong with the program's SBUF and PSUM placements (registers are placed
// after the exact search, so what it says of them is not asked), else its first such finding, at its line. A program
// that loads a register from tensor data is never accepted: the oracle's one run does not stand for every input.
PlacementCheck placementOracleCheck();

}  // namespace allocsim
