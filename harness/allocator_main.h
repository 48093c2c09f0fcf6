// Turns an in-process Allocator into a command that `allocsim fuzz-allocator` (or anyone) can run:
//   my_allocator [IN [OUT]]      IN / OUT default to standard input / output ("-" too)
// Exit codes as the harness expects: 0 allocated, 2 bad input (file:line:col: message), 3 refused (the
// refusal's message on standard error).
#pragma once

#include "harness/allocator.h"

namespace allocsim {

int allocatorMain(Allocator& allocator, int argc, char** argv);

}  // namespace allocsim
