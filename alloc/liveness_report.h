// The liveness section of `allocsim alloc -v` / --json: how the back-edge rule of alloc/liveness.h was
// decided on the input — per iteration, loop-carried, or undecidable and kept live over the loop (conservative).
#pragma once

#include "alloc/liveness.h"
#include "alloc/report.h"

namespace allocsim {

AllocReport livenessReport(const LivenessStats& s);

}  // namespace allocsim
