// Every check the toolkit has, on one allocator output: the output parses, is well-formed
// (ir/check.h), implements the input (harness/implements_input.h), and passes the three oracles
// (verify/verify.h) with the input as the original, and (unless CheckSeeds::simulate is off) runs the same on the
// simulator, which must agree with the interpreter (harness/simulated_run.h). The first check that fails decides
// the outcome's kind.
#pragma once

#include <string>

#include "harness/outcome.h"
#include "ir/program.h"

namespace allocsim {

// Fills the outcome's status (Pass or Fail), kind(s), message and detail; keeps its other fields.
void checkAllocatedText(const Program& input, const std::string& text, const CheckSeeds& seeds, CaseOutcome& out);
void checkAllocatedProgram(const Program& input, const Program& allocated, const CheckSeeds& seeds, CaseOutcome& out);

}  // namespace allocsim
