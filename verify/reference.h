// The unallocated program an allocated one stands for (docs/verification.md "The reference program"):
// inserted instructions dropped, inserted tensors read as the tensor they copy, placements dropped. The
// oracles compare the allocated program's original instructions with this program's, ordinal by ordinal.
#pragma once

#include <vector>

#include "ir/program.h"

namespace allocsim {

struct ReferenceProgram {
  Program program;
  // Indexed by the allocated program's Instruction::id: the reference instruction's id, or kNone for an
  // inserted instruction (and for a loop that was inserted).
  std::vector<uint32_t> instruction;
  // Indexed by the allocated program's TensorId: the reference tensor it holds the value of.
  std::vector<TensorId> tensor;
  // Indexed by the allocated program's RegId: the reference register it holds the value of (an inserted register
  // follows its "!reload(n)" chain; kNone when it names none).
  std::vector<RegId> registers;
};

// Throws InputError when the provenance is inconsistent: an original instruction that names an inserted
// tensor or register without a source ("!reload" but no "(a)"), or an original instruction inside an inserted
// loop.
ReferenceProgram referenceProgram(const Program& allocated);

// True when the program carries any allocation: a placement or an inserted item.
bool isAllocated(const Program& p);

}  // namespace allocsim
