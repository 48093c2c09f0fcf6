// The tensor operands of one instruction: which access patterns read a tensor and which one writes it, sources
// first, destination last. The PSUM and SBUF colorers' costs and spill code walk instructions through this one
// list (they run one Chaitin–Briggs skeleton, as in the production allocator), each keeping the operands in its own
// space (alloc/psum/psum_accesses.h, alloc/sbuf/sbuf_accesses.h).
#pragma once

#include <cstdint>
#include "ir/inline_list.h"
#include "ir/operand_table.h"
#include "ir/program.h"

namespace allocsim {

struct TensorAccess {
  Operand operand = Operand::Dst;  // a view operand (ir/operand_table.h)
  bool read = false;   // the instruction reads this view (a matmul without an unconditional start reads its
                       // accumulator: it adds to what the bank holds)
  bool write = false;  // the destination
};

// At most five operands (act: a, scale, bias, dst, reduce_dst; ts: a, scalar, scalar2, dst, reduce_dst), kept inline:
// the colorers ask for every instruction in every round, and a heap list cost an allocation each time.
using TensorAccessList = InlineList<TensorAccess, 5>;

// The operands of `inst` (not a loop) that name a tensor of `p` in `space`, sources first, destination last. An
// operand naming an unknown tensor is left out.
TensorAccessList tensorAccesses(const Program& p, const Instruction& inst, Space space);

}  // namespace allocsim
