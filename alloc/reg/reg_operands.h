// Where an instruction names registers, as mutable slots: the REG spill writer (alloc/reg/reg_spill.h) renames a
// spilled register to its stand-in at exactly these places. Reads: the register terms of every index of every view
// (dst, a, b, the scalar view) and of affine_select's offset c, a register scalar, rs and rt; the write: rd. A loop's
// rd is both and is never renamed (the sequencer steps it in place; a spilled loop register is spilled inside its
// body only, alloc/reg/reg_spill.h), so loops are left to the caller.
#pragma once

#include <vector>

#include "ir/program.h"

namespace allocsim {

struct RegisterSlots {
  std::vector<RegId*> reads;  // in operand order; a register read twice appears twice
  RegId* write = nullptr;     // rd, or null
};

// The slots of a non-loop instruction; slots holding kNone are left out.
RegisterSlots registerSlots(Instruction& inst);
// The same into `out` (its vector keeps its room): for a pass that asks for every instruction.
void registerSlots(Instruction& inst, RegisterSlots& out);
// After slots were renamed: an index's terms are kept sorted by register (ir/program.h Index), so re-sort them.
// Call once all of an instruction's slots are renamed (the slot order changes).
void normalizeRegisterTerms(Instruction& inst);

}  // namespace allocsim
