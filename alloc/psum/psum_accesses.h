// The PSUM operands of one instruction: which access patterns read a tensor and which one writes it. Spill costs
// count them and spill code rewrites them, so both walk instructions through this one list.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

enum class Operand : uint8_t { Dst, A, B, Scalar };

struct PsumAccess {
  Operand operand = Operand::Dst;
  bool read = false;   // the instruction reads this view (a matmul without an unconditional start reads its
                       // accumulator: it adds to what the bank holds)
  bool write = false;  // the destination
};

// The operands of `inst` (not a loop) that name a PSUM tensor of `p`, sources first, destination last. An
// operand naming an unknown tensor is left out.
std::vector<PsumAccess> psumAccesses(const Program& p, const Instruction& inst);

const AccessPattern& operandOf(const Instruction& inst, Operand o);
AccessPattern& operandOf(Instruction& inst, Operand o);

}  // namespace allocsim
