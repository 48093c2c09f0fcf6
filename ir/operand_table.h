// Which operands each instruction has and what it does with each: one table for every pass that walks an
// instruction's operands (liveness, the colorers' accesses, iteration coverage, DMA footprints, the checker, the
// oracles' operand names, gen --stats). A pass keeps its own questions (which space, which order of mentions) and
// asks this table what the instruction reads and writes.
#pragma once

#include <cstdint>

#include "ir/inline_list.h"
#include "ir/program.h"

namespace allocsim {

// The operand fields of an instruction. Dst .. ReduceDst are views (a scalar one when its ScalarOperand is a tensor
// view); Rd, Rs, Rt registers (a scalar one when it is a register); MaskC the index whose registers an
// affine_select's or iota's offset c, an if's condition or a loop's register bound reads.
enum class Operand : uint8_t {
  Dst,
  A,
  B,
  Scalar,     // ts's scalar, tt_scan's initial value
  Scale,      // act's
  Bias,       // act's
  Scalar2,    // ts's second op's scalar
  ReduceDst,  // act's and ts's fused reduction destination (docs/format.md "Fused reduction")
  Rd,
  Rs,
  Rt,
  MaskC,
};

enum class Role : uint8_t {
  Read,   // read; all of an instruction's reads happen before its writes (ir/interp.h)
  Write,  // written (the view's elements, or the whole register)
  // matmul's destination: written, and read first (added to) on the executions where its start flag does not hold
  Accumulate,
};

struct OperandUse {
  Operand operand;
  Role role;
  const char* name;  // the operand's name in diagnostics: "destination", "source a", "stationary", "initial value"
};

// At most five (act: dst, a, scale, bias, reduce_dst; ts: dst, a, scalar, scalar2, reduce_dst), kept inline: the
// allocators ask for every instruction in every round.
using OperandUses = InlineList<const OperandUse*, 5>;

// The operands `inst` has, in the order they are written (docs/format.md "Instructions"): the destination first,
// then the sources; a loop's register before its bound. A scalar operand is listed when it is a register or a tensor
// view (an immediate is no operand), the fused reduction's destination when there is one. A loop's or an if's body
// is not among its operands.
OperandUses operandUses(const Instruction& inst);

// The view an operand names: Dst, A, B and ReduceDst always; a scalar operand when it is a tensor view; otherwise
// nullptr (a register operand, an immediate scalar).
const AccessPattern* operandView(const Instruction& inst, Operand o);
// The register an operand names: Rd, Rs, Rt; a scalar operand when it is a register; otherwise kNone (MaskC is an
// index: inst.rare->mask.c).
RegId operandRegister(const Instruction& inst, Operand o);

// The view field of a view operand (Dst .. ReduceDst), whatever the scalar's kind; throws std::invalid_argument
// for a register operand.
const AccessPattern& operandOf(const Instruction& inst, Operand o);
AccessPattern& operandOf(Instruction& inst, Operand o);

}  // namespace allocsim
