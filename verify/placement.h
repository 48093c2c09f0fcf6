// Oracle 3, placement (docs/verification.md): static rules on every placement, and no physical overlap between
// two tensors (or two registers) that are live at the same time, with liveness computed here from the dynamic
// trace (verify/dynamic_liveness.h), independently of any allocator's bookkeeping.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/progress.h"
#include "ir/program.h"
#include "verify/finding.h"

namespace allocsim {

struct PlacementOptions {
  const Program* original = nullptr;  // when given, pinned tensors must keep the original's placement
  uint64_t max_steps = 50'000'000;
  const ProgressFn* progress = nullptr;  // ir/progress.h
};

// Empty = placements are legal and no two simultaneously live items overlap. Static findings (kinds
// "unplaced", "bounds", "alignment", "partition-start", "bank", "register-lanes", "pinned-moved") come first, at
// the declaration; then "overlap" and "register-overlap" findings, sorted by the first step at which both items
// are live, each pair once, at the instruction executing that step. The program must run (ir/interp.h): a run
// that fails throws its InputError.
std::vector<Finding> checkPlacement(const Program& allocated, const PlacementOptions& opts = {});

}  // namespace allocsim
