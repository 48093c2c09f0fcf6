#include "verify/allocator_output.h"

#include "ir/check.h"

namespace allocsim {

OutputVerdict verifyAllocatorOutput(const Program& input, const Program& output, VerifyOptions opts) {
  OutputVerdict v;
  v.ill_formed = checkProgram(output);
  if (!v.ill_formed.empty()) return v;
  opts.original = &input;
  v.report = verifyAllocated(output, opts);
  return v;
}

}  // namespace allocsim
