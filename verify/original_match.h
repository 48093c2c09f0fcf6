// `verify --original` (docs/verification.md "The reference program"): the program recovered from an
// allocated one (verify/reference.h) must be the original instruction for instruction — same declarations of the
// source tensors and registers, same instructions with the same operands in the same loop structure. Inserted
// items (spills, reloads, copies) are not part of the recovered program, and an original operand rewritten to an
// inserted copy reads as the tensor the copy holds, so those are allowed; anything else (an unrelated kernel, an
// `add` turned into `sub`, an instruction added or dropped, a shape changed) is a finding, naming the first
// differing instruction of each program. Source locations, instruction ids and placements are not compared
// (pinned placements are the placement oracle's).
#pragma once

#include <vector>

#include "ir/program.h"
#include "verify/finding.h"
#include "verify/reference.h"

namespace allocsim {

// Empty when `recovered` (referenceProgram(allocated)) matches `original`; otherwise one finding of the
// equivalence oracle, kind "original-mismatch", at the allocated program's first differing instruction (or
// declaration), its notes naming the original's.
std::vector<Finding> matchOriginal(const Program& allocated, const ReferenceProgram& recovered,
                                   const Program& original);

}  // namespace allocsim
