// Whether a tensor's value is dead from a position on, decided by walking the code that runs after it (liveness's
// gaps in a loop, alloc/liveness.h rule 5).
//
// A value carried around a loop's back edge is live over the whole body by the linear order alone, yet where the
// iterations rotate through parts of the tensor (`i%2` views: each iteration reads the half the one before wrote, then
// writes the other) or a nested loop rewrites it piecewise, nothing of it may be live between one mention and the
// next. deadBefore answers that question for a position `from`: for every iteration of the loops around `from`, the
// code from `from` on is executed symbolically (loop registers bound to their values, the nested loops iterated, the
// enclosing loops' back edges taken), marking per element what it writes; every read of the tensor must see an
// element written in the walk. The walk succeeds when every element has been written, or when it leaves the value's
// last mention behind for good. Then nothing written before `from` is read at or after it: the value is dead on the
// positions just before `from`, back to the previous mention.
//
// Conservative where it cannot be exact: a write in a conditional block or of a view naming a register the walk does
// not know marks nothing; a read always counts (conditional or not), and one naming an unknown register fails; a
// matmul reads its accumulator unless its start flag certainly holds. It fails on a loop with a register bound, on a
// negative loop register, and beyond a work budget.
#pragma once

#include <cstdint>

#include "alloc/linear_order.h"
#include "ir/program.h"

namespace allocsim {

// Work units (positions visited plus bitmap words touched) one question may spend before it answers false.
constexpr uint64_t kGapBudget = uint64_t(1) << 18;

// True when, for every iteration of the loops whose bodies contain `from`, what tensor `t` holds when `from` runs is
// never read: every read of `t` at positions up to `last` (the value's last mention) that runs after `from`, before
// every element has been written again, reads an element written since. Mentions after `last` belong to later values
// and are not looked at.
bool deadBefore(const Program& p, const LinearOrder& order, TensorId t, uint32_t from, uint32_t last,
                uint64_t budget = kGapBudget);

// True when, for every iteration of the loops whose bodies contain `from`, the code from `from` up to position `to`
// (in the same iterations of those loops; `to` after `from`, not past their ends) writes every element of tensor `t`
// for certain: what `t` holds at `to` was written since `from`. Reads are not looked at.
bool writtenWhole(const Program& p, const LinearOrder& order, TensorId t, uint32_t from, uint32_t to,
                  uint64_t budget = kGapBudget);

}  // namespace allocsim
