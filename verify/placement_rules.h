// The static half of the placement oracle (verify/placement.h): each declaration on its own, no execution.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"
#include "verify/finding.h"

namespace allocsim {

// Appends one finding per broken rule, at the declaration: tensors, then registers, in declaration order; then
// the original's pinned tensors that moved or went missing (`original` may be null).
void checkPlacementRules(const Program& allocated, const Program* original, std::vector<Finding>& out);

}  // namespace allocsim
