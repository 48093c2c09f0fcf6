// The program text format reader (docs/format.md).
#pragma once

#include <string_view>

#include "ir/program.h"

namespace allocsim {

// Parses docs/format.md text into a Program (syntax, declarations, name resolution only; the well-formedness
// checker in ir/check.h does shapes, ranges and dataflow). Throws InputError with the location of the first error.
// Calls Program::renumber() before returning.
Program parseProgram(std::string_view text);

}  // namespace allocsim
