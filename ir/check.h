// The well-formedness checker (docs/format.md, "Well-formedness"): every rule a program must satisfy before
// anything allocates, interprets or simulates it. Declarations and instructions are checked statically; then
// the program is executed abstractly (concrete register values, no data, loops unrolled) to check what
// depends on loop iterations: access patterns in range, reads of never-written memory, register values
// reloaded from memory, PSUM accumulation groups, outputs fully written.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/diag.h"
#include "ir/program.h"

namespace allocsim {

struct CheckOptions {
  uint64_t max_steps = uint64_t(1) << 24;  // dynamic instructions before giving up
};

// Every rule violated (first one per static instruction/declaration, at most 20), in source order.
// Empty = well-formed.
std::vector<Diagnostic> checkProgram(const Program& p, const CheckOptions& opts = {});

// Throws InputError carrying the diagnostics if there are any.
void requireWellFormed(const Program& p, const CheckOptions& opts = {});

}  // namespace allocsim
