// The properties' check of an allocation: verify/correct.h checkAllocation with the generated program as the
// input. A counterexample is saved as a regression file (props/regression_file.h) before the property fails, so
// that the suite replays it from then on.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <string>

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

}  // namespace allocsim
