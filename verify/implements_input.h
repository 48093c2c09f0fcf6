// Does an allocated program implement the input it was given? ("the --original check".) The
// program recovered from the allocated one (verify/reference.h: inserted items dropped, copies read as the
// tensor they hold, placements dropped) must be the input, declaration for declaration and instruction for
// instruction, on the same machine. Without this an allocator could return any well-formed program that
// passes the oracles against itself, e.g. an empty one.
#pragma once

#include <optional>
#include <string>

#include "ir/program.h"

namespace allocsim {

// nullopt when it does; otherwise what differs first, in words ("instruction 3 is `tt c, a, b, sub`; the
// input has `tt c, a, b, add`"). Throws InputError when the provenance of the allocated program is
// inconsistent (verify/reference.h).
std::optional<std::string> inputMismatch(const Program& input, const Program& allocated);

}  // namespace allocsim
