// What a run was executing at given steps: the instruction and the values of its enclosing loops' registers.
// Used to name the first step of a finding without recording the whole trace: the program runs again (the run
// is deterministic for a given input seed) and stops once every requested step has been seen.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/diag.h"
#include "ir/program.h"

namespace allocsim {

struct StepSite {
  uint64_t step = 0;
  uint32_t inst_id = kNone;  // kNone when the run never reached the step (or for step 0: before the run)
  SourceLoc loc;
  std::string text;         // ir/print.h printInstruction
  std::string loop_values;  // "m = 1, k = 3": enclosing loops' registers, outermost first; "" at top level
};

// One site per requested step, in the order requested. Throws InputError like interpret() (ir/interp.h).
std::vector<StepSite> locateSteps(const Program& p, const std::vector<uint64_t>& steps, uint64_t input_seed = 1,
                                  uint64_t max_steps = 50'000'000);

}  // namespace allocsim
