// "Allocation impossible" (exit code 3): the program is well-formed but an allocator cannot
// place it on the machine. Distinct from InputError (bad input, exit code 2) so that the CLI and the property
// suites can tell "your program is wrong" from "this allocator cannot fit it".
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ir/diag.h"

namespace allocsim {

class AllocError : public std::runtime_error {
 public:
  AllocError(SourceLoc loc, const std::string& message) : std::runtime_error(message), loc_(loc) {}
  // Where the offending tensor or register is declared (line 0 when it was made by a pass).
  const SourceLoc& loc() const { return loc_; }
  // "file:line:col: message", like an InputError's diagnostics.
  std::string format(const std::string& file) const;

 private:
  SourceLoc loc_;
};

// The production allocator's PSUM capacity guard, verbatim: "<name> is too big for PSUM, requires N banks with
// PSUM size M".
std::string psumTooBigMessage(const std::string& name, uint64_t banks, uint64_t psum_banks);

}  // namespace allocsim
