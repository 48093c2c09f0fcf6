// Every check the toolkit has, on one allocator output: the output parses; it is a correct allocation of the input
// (verify/correct.h checkAllocation: well-formed, implements the input, the three oracles with the input as the
// original); and (unless CheckSeeds::simulate is off) it runs the same on the simulator, which must agree with the
// interpreter (harness/simulated_run.h). The first check that fails decides the outcome's kind: "unparsable", the
// verdict's defectName ("ill-formed", "not-the-input", "cannot-run"), or "ORACLE:KIND" for each finding.
#pragma once

#include <string>

#include "harness/outcome.h"
#include "ir/program.h"

namespace allocsim {

// Fills the outcome's status (Pass or Fail), kind(s), message and detail; keeps its other fields.
void checkAllocatedText(const Program& input, const std::string& text, const CheckSeeds& seeds, CaseOutcome& out);
void checkAllocatedProgram(const Program& input, const Program& allocated, const CheckSeeds& seeds, CaseOutcome& out);

}  // namespace allocsim
