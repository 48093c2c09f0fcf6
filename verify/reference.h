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
};

// Throws InputError when the provenance is inconsistent: an original instruction that names an inserted
// tensor without a source ("!reload" but no "(a)"), an inserted register, or an original instruction
// inside an inserted loop.
ReferenceProgram referenceProgram(const Program& allocated);

// True when the program carries any allocation: a placement or an inserted item.
bool isAllocated(const Program& p);

}  // namespace allocsim
