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

// Whether the recovered program gets a copy of the allocated program's instructions. None: the declarations and the
// maps only, with the same checks; for an oracle that needs no instructions (symbolic) or runs the reference on the
// allocated program's own original instructions (the equivalence oracle, see runsOnAllocatedInstructions): a
// million-instruction program is then held once instead of twice.
enum class ReferenceBody { Copy, None };

// Throws InputError when the provenance is inconsistent: an original instruction that names an inserted
// tensor or register without a source ("!reload" but no "(a)"), or an original instruction inside an inserted
// loop.
ReferenceProgram referenceProgram(const Program& allocated, ReferenceBody body = ReferenceBody::Copy);

// True when the reference can run on the allocated program's own original instructions, each inserted tensor or
// register read as the one it holds (InterpOptions::source_only with verify/reference_storage.h): every inserted tensor
// that holds a source tensor has its shape and dtype and is no input or output, and every inserted register that
// holds a source register has its width. The allocators' inserted items all do; a hand-written file may not.
bool runsOnAllocatedInstructions(const Program& allocated, const ReferenceProgram& ref);

// An original instruction of `allocated` as the recovered program has it (names mapped, a loop without its body): how
// messages show a reference instruction when the reference ran on the allocated program's own instructions.
Instruction referenceInstruction(const Program& allocated, const ReferenceProgram& ref, const Instruction& inst);

// True when the program carries any allocation: a placement or an inserted item.
bool isAllocated(const Program& p);

}  // namespace allocsim
