// Liveness from the dynamic trace (docs/verification.md "Oracle 3"), independent of any allocator's bookkeeping:
// the program runs once on private storage and every executed instruction's resolved reads and writes are
// recorded per element. A tensor is live over [w, r] for each read at step r of elements last written at steps
// >= w (w the earliest of them); every write at w makes it live at w (a dead write still clobbers); inputs are
// written at step 0; outputs stay live from their writes to the end. Registers likewise, per register; a loop
// reads its register at each further iteration and at its end (the hardware steps and tests it), so a loop
// register is live throughout its loop.
//
// Coalesced copies: a `mov R, S` whose R sits on exactly S's lanes stores the value already there (the REG
// colorer's copy coalescing, alloc/reg/reg_coalesce.h). Its steps are listed, so that the placement oracle does not
// count S's last read and R's write at that step as an overlap (verify/placement.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/progress.h"
#include "ir/program.h"
#include "verify/live_intervals.h"

namespace allocsim {

struct LivenessOptions {
  uint64_t input_seed = 1;
  uint64_t max_steps = 50'000'000;
  // Bound on the per-element bookkeeping (4 bytes per element of every tensor in use: a tensor's is dropped after
  // the last top-level statement that names it, ir/release_schedule.h).
  uint64_t max_tracking_bytes = uint64_t(1) << 30;
  // Track only tensors with a placement (the others cannot overlap anything); the rest get empty live sets.
  bool placed_only = false;
  const ProgressFn* progress = nullptr;  // ir/progress.h
  const char* progress_phase = "dynamic liveness";
};

struct RegisterCopy {
  uint64_t step = 0;
  RegId dst = kNone, src = kNone;  // a `mov dst, src` with dst placed on exactly src's lanes
};

struct DynamicLiveness {
  std::vector<LiveIntervals> tensors;    // by TensorId
  std::vector<LiveIntervals> registers;  // by RegId
  uint64_t steps = 0;                    // steps the run took; outputs are live up to here
  std::vector<RegisterCopy> copies;      // in step order
};

// Throws InputError when the program cannot run (ir/interp.h) or needs more bookkeeping than allowed.
DynamicLiveness computeDynamicLiveness(const Program& p, const LivenessOptions& opts = {});

}  // namespace allocsim
