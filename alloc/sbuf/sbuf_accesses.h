// The SBUF operands of one instruction: which access patterns read an SBUF tensor and which one writes it. Spill
// costs (sbuf_costs.h) count them and spill code (sbuf_spill.h) rewrites them, so both walk instructions through
// this one list. The operand slots are those of alloc/psum/psum_accesses.h (Operand, operandOf); only the space
// differs, and SBUF has no accumulating operand.
#pragma once

#include <vector>

#include "alloc/psum/psum_accesses.h"
#include "ir/program.h"

namespace allocsim {

struct SbufAccess {
  Operand operand = Operand::Dst;
  bool read = false;
  bool write = false;
};

// The operands of `inst` (not a loop) that name an SBUF tensor of `p`, sources first, destination last. An
// operand naming an unknown tensor is left out.
std::vector<SbufAccess> sbufAccesses(const Program& p, const Instruction& inst);

// The view a reload moves for a source view: the view itself, or, when its second dimension overlaps itself
// (STEP < COUNT), its contiguous hull (every element of which the view covers), so that the reload's destination
// does not overlap itself (docs/format.md: a destination view needs STEP >= COUNT).
AccessPattern reloadView(AccessPattern ap);

// Bytes a view moves: partitions x elements per partition x element size.
uint64_t viewBytes(const Program& p, const AccessPattern& ap);

}  // namespace allocsim
