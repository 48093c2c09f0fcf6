// The PSUM operands of one instruction (alloc/tensor_accesses.h, kept to PSUM tensors): which access patterns read
// a tensor and which one writes it. Spill costs count them and spill code rewrites them, so both walk
// instructions through this one list.
#pragma once


#include "alloc/tensor_accesses.h"
#include "ir/program.h"

namespace allocsim {

using PsumAccess = TensorAccess;

// The operands of `inst` (not a loop) that name a PSUM tensor of `p`, sources first, destination last. An
// operand naming an unknown tensor is left out.
TensorAccessList psumAccesses(const Program& p, const Instruction& inst);

}  // namespace allocsim
