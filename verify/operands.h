// The operands an executed instruction reads, named for a diagnostic: its registers (address terms and scalar
// sources) and its source views, in the order the interpreter resolves them (ir/interp.h ExecAccess::reads).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim {

struct RegisterOperand {
  RegId reg = kNone;
  std::string role;  // "address of destination 'a[:, n*16:16]'", "source rs", "scalar"
};

// Address-term registers of the views (destination first, then sources in operand order; partition before
// offset), then affine_select's offset c, then the scalar sources (rs, rt, a ts register scalar). An index's terms come in register-id order,
// or, given `term_order` (indexed by RegId, e.g. ReferenceProgram::registers), in the order of the ids it maps
// them to: an allocated instruction's terms then pair up by position with its reference instruction's even when
// renaming re-sorted them.
std::vector<RegisterOperand> registerOperands(const Program& p, const Instruction& inst,
                                              const std::vector<RegId>* term_order = nullptr);

// A name for each entry of ExecAccess::reads of `inst` ("source a 'b0'", "accumulator 'acc'"), given how many
// views it read (a matmul reads its accumulator first when it has no start).
std::vector<std::string> readOperandNames(const Program& p, const Instruction& inst, size_t reads);

}  // namespace allocsim
