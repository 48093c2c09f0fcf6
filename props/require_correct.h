// The properties' checks of an allocation: verify/correct.h checkAllocation with the generated program as the
// input, and O7's reproduction of it. A counterexample is saved as a regression file (props/regression_file.h) before the property fails, so
// that the suite replays it from then on.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/print.h"
#include "ir/program.h"
#include "props/regression_file.h"
#include "verify/correct.h"

namespace allocsim {

inline Verdict requireCorrectAllocation(const std::string& regression_name, const Program& input,
                                        const Program& allocated, uint64_t poison_seed) {
  CorrectnessOptions check;
  check.input = &input;
  check.verify.poison_seed = poison_seed;
  Verdict v = checkAllocation(allocated, check);
  if (!v.ok()) {
    const std::string why = describeDefect(v, "allocated");
    saveRegression(regression_name, input, why);
    RC_FAIL(why + "allocated program:\n" + printProgram(allocated));
  }
  return v;
}

// Tags the case by whether the allocation inserted SBUF or PSUM spill code.
inline void tagTensorSpills(const Program& allocated) {
  bool spilled = false;
  for (const Tensor& t : allocated.tensors) spilled |= t.origin == Origin::Spill || t.origin == Origin::Reload;
  RC_TAG(spilled ? "spilled" : "no spill");
}

// O7 takes `allocated` (an allocation of `input`) as a fixed assignment and gives it back unchanged; a rejection is
// saved as the regression `regression_name`.
inline void requireFixedAssignmentReproduces(const std::string& regression_name, const Program& input,
                                             const Program& allocated) {
  DriverOptions fixed;
  fixed.optlevel = 7;
  DriverResult again;
  try {
    again = allocate(allocated, fixed);
  } catch (const AllocError& e) {
    saveRegression(regression_name, input, e.what());
    RC_FAIL(std::string("O7 rejects the allocation: ") + e.what());
  }
  RC_ASSERT(printProgram(again.program) == printProgram(allocated));
}

}  // namespace allocsim
