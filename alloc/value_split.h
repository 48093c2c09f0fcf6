// Live-range splitting for tensors: each value of a tensor (alloc/liveness.h, "Values") becomes a tensor of its own,
// so that an allocator may give each value its own place, or one place at different times.
//
// A tensor whose mentions form two or more values is split when it is free to move: on chip (SBUF or PSUM),
// unplaced, and a source tensor of the program. Its first value keeps the tensor; each later value gets a new
// tensor of the same shape, declared as a copy of it (`name_ValN ... !copy(name)`), and every operand that mentions
// that value is rewritten to name the new tensor. No instruction is added: a value is written and read only through
// its own operands, so the program computes the same thing, and the verifier reads each copy as the tensor it
// copies (docs/verification.md).
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

struct ValueSplitStats {
  uint32_t tensors = 0;  // tensors split
  uint32_t values = 0;   // tensors added (one per value after the first)
  bool operator==(const ValueSplitStats&) const = default;
};

// Splits `p` in place (renumbering it). Returns what it split.
ValueSplitStats splitValues(Program& p);

}  // namespace allocsim
