// What one instruction reads and writes, as whole tensors and registers: the mentions liveness is built from.
// Reads happen before writes (ir/interp.h: all sources are read before the destination is written), so a
// `tt a, a, b` reads a's old value and an in-place update is never a fresh definition.
#pragma once

#include <vector>

#include "ir/inline_list.h"
#include "ir/program.h"

namespace allocsim {

// How much of its tensor a write replaces, which decides whether the old value can be live across it.
enum class WriteCover : uint8_t {
  Partial,      // some elements, or a register-indexed view: the rest of the old value survives
  Whole,        // every element, on every execution
  WholeOnFirst  // a full-view matmul with start@first: every element on the first iteration of its innermost
                // loop only (later iterations accumulate)
};

struct TensorWrite {
  TensorId tensor = kNone;
  WriteCover cover = WriteCover::Partial;
};

struct OperandEffects {
  // A matmul that may accumulate reads its destination too, except a full-view start@first one (WholeOnFirst).
  std::vector<TensorId> tensor_reads;
  std::vector<TensorWrite> tensor_writes;
  std::vector<RegId> reg_reads;   // address terms, affine_select's offset c, scalar operands, rs / rt
  std::vector<RegId> reg_writes;  // rd; every register write replaces the whole register
};

// The effects of a non-loop instruction. A loop's own effect (it writes its register at the header and at its
// end) is the caller's: it has two positions. Tensor and register ids out of range are left out, so a
// malformed program gives fewer mentions, never undefined behaviour.
OperandEffects operandEffects(const Program& p, const Instruction& inst);
// The same into `out` (cleared first): a walk over every instruction reuses one OperandEffects, instead of four
// vectors allocated per instruction (computeLiveness runs once per allocator round).
void operandEffects(const Program& p, const Instruction& inst, OperandEffects& out);

// The tensor views a non-loop instruction accesses, for walks that evaluate views per execution
// (alloc/iteration_coverage.h). Lists the same operands as operandEffects: sources in operand order, then the
// destination. A matmul reads its destination (the accumulator) before writing it unless its start flag holds on
// that execution; `accumulates` says the caller must decide that per execution.
struct OperandViews {
  // At most three: a source and two scalars (ts, act), or two sources (tt, matmul). Inline: iteration coverage asks
  // for every instruction of every iteration it walks, and a vector was a heap allocation each time.
  InlineList<const AccessPattern*, 3> reads;
  const AccessPattern* write = nullptr;
  bool accumulates = false;  // matmul: also reads *write first, unless start holds
  // act's or ts's fused reduction destination R (docs/format.md "Fused reduction"): written after `write`.
  const AccessPattern* reduce_write = nullptr;
};
OperandViews operandViews(const Instruction& inst);

}  // namespace allocsim
