// What `allocsim alloc --verify` checks on an allocator's own output: that it is a well-formed program
// (ir/check.h — e.g. no spill DMA inside an open accumulation group) and, only then, the three oracles with the
// input as the original, so that the output must also recover to the input instruction for instruction
// (verify/original_match.h). "ok" means both held.
#pragma once

#include <vector>

#include "ir/diag.h"
#include "ir/program.h"
#include "verify/verify.h"

namespace allocsim {

struct OutputVerdict {
  std::vector<Diagnostic> ill_formed;  // non-empty: the output is not well-formed and the oracles did not run
  VerifyReport report;                 // the oracles' report (empty when they did not run)
  bool ok() const { return ill_formed.empty() && report.ok(); }
};

// `opts.original` is set to `&input`. Throws InputError as verifyAllocated does.
OutputVerdict verifyAllocatorOutput(const Program& input, const Program& output, VerifyOptions opts);

}  // namespace allocsim
