// The SBUF operands of one instruction: which access patterns read an SBUF tensor and which one writes it. Spill
// costs (sbuf_costs.h) count them and spill code (sbuf_spill.h) rewrites them, so both walk instructions through
// this one list: alloc/tensor_accesses.h's, kept to SBUF tensors and without a matmul's destination.
#pragma once

#include <cstdint>

#include "alloc/tensor_accesses.h"
#include "ir/program.h"

namespace allocsim {

using SbufAccess = TensorAccess;  // never `read` and `write` at once: SBUF has no accumulating operand

// The operands of `inst` (not a loop) that name an SBUF tensor of `p`, sources first, destination last; a
// matmul's destination is left out (it is PSUM's), and so is an operand naming an unknown tensor.
TensorAccessList sbufAccesses(const Program& p, const Instruction& inst);

// Bytes a view moves: partitions x elements per partition x element size.
uint64_t viewBytes(const Program& p, const AccessPattern& ap);

}  // namespace allocsim
