// Whether a tensor's value is carried around a loop's back edge ("liveness that follows the data"),
// decided from its views.
//
// A tensor all of whose executed mentions lie in the body of loop L needs to be live across L's back edge only
// when some iteration of L reads an element that the same iteration has not written before the read: that
// element holds what an earlier iteration (or nothing) left there. When every read of every iteration is covered
// by earlier writes of the same iteration, the value is per iteration and its live range is [first mention, last
// mention] inside the body (the production allocator's "a loop-carried value is live across the whole loop body"
// applies to the others only).
//
// The views are affine in the loop registers (docs/format.md), with floor divisions and remainders, and the loops'
// bounds are constants or indexes of enclosing loops' registers, so the
// question is decidable: this walk executes L's body symbolically for every iteration of L and of the loops
// around it, with the loop registers bound to their values, and marks, per element, what the current iteration
// has written (reads before writes within one instruction, as ir/interp.h; a matmul reads its accumulator unless
// its start flag holds on this execution — start@first on the first iteration of its innermost loop). It is
// exact where it answers. Registers the walk knows: loop registers of the enclosing loops, values computed from
// them by li/addi/add/mov inside the walk, and such a value stored to a register spill slot and loaded back
// (reg_store SLOT, r ... reg_load r', SLOT, the REG colorer's spill code: a DRAM tensor that only those two name in
// the tested body, through one constant view). A view whose address depends on any other register is still
// decided where that cannot matter: such a write is left out (it could only add coverage; a Carried verdict
// reached without it becomes Undecidable), and such a read is covered when every element of the tensor is already
// written by that iteration. It answers Undecidable (the caller then keeps the conservative rule and counts the
// case) for any other such read, when a view falls outside its tensor (a malformed program), or when the walk would
// exceed its work budget.
// Conditional blocks and loops with register bounds: the walk evaluates an if's condition and a loop's bound from the
// registers it knows (the enclosing loops': the usual case, `if k <= q`, `loop k = 0, q+1, 1`), and then follows
// exactly what runs. Where it cannot evaluate one, the body is uncertain: its writes are left out (as above), an
// uncovered read in it gives Undecidable, what it computes is forgotten after it, and a Carried verdict anywhere in
// such a walk becomes Undecidable.
#pragma once

#include <cstdint>
#include <memory>

#include "alloc/linear_order.h"
#include "ir/program.h"

namespace allocsim {

enum class CoverageQuestion : uint8_t;  // which of the questions below (alloc/iteration_coverage.cpp)

enum class IterationCoverage : uint8_t {
  Covered,     // every read in every iteration of the loop is covered by earlier writes of that iteration
  Carried,     // some iteration reads an element it has not written: a true loop-carried value
  Undecidable  // the walk could not tell (see above): treat as carried
};

// Work units (bitmap words touched plus instructions visited) one decision may spend before it gives up.
constexpr uint64_t kCoverageBudget = uint64_t(1) << 24;

// What the walk learns about a program's loops that does not depend on the tensor asked about: the register spill
// slots of an outermost loop's body, and for a loop around a tested one what its body writes and which registers may
// depend on its register. Each is a pass over a whole enclosing body; a caller that asks about many tensors of one
// program and order (computeLiveness) keeps one cache for all its calls, and gets the same answers as without it.
// The program and the order must not change while the cache is in use.
class CoverageCache {
 public:
  CoverageCache();
  ~CoverageCache();
  CoverageCache(const CoverageCache&) = delete;
  CoverageCache& operator=(const CoverageCache&) = delete;
  struct Data;  // alloc/iteration_coverage.cpp

 private:
  friend IterationCoverage decideCoverage(const Program&, const LinearOrder&, TensorId, int32_t, CoverageCache&,
                                          uint64_t, CoverageQuestion);
  std::unique_ptr<Data> data_;
};

// Decides coverage of tensor `t` for loop `loop` (an index into order.loops). Mentions of `t` outside the loop's
// body are not looked at: the caller asks only about loops that contain all of them.
IterationCoverage iterationCoverage(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                                    uint64_t budget = kCoverageBudget);
IterationCoverage iterationCoverage(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                                    CoverageCache& cache, uint64_t budget = kCoverageBudget);

// The stronger question liveness asks of a loop that holds a value's first mention but not its last: Covered when,
// besides every read being covered as above, every iteration has written every element of `t` by its end. Then
// nothing an iteration leaves survives the next one, and a value read after the loop is the last iteration's only.
IterationCoverage iterationRewrite(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                                   CoverageCache& cache, uint64_t budget = kCoverageBudget);

// The question liveness asks of a loop that holds a value's last mention but not its first: Covered when every read
// in every iteration but the first of each run is covered by earlier writes of that iteration (the first reads what
// was there before the loop, which the value's range covers up to its last mention anyway). Then nothing an
// iteration leaves is read by the next one, and the value need not stay live past its last mention in the body.
IterationCoverage laterIterationCoverage(const Program& p, const LinearOrder& order, TensorId t, int32_t loop,
                                         CoverageCache& cache, uint64_t budget = kCoverageBudget);

// The question liveness asks of a loop whose run writes `t` without reading it first: Covered when, over one run of
// the loop (its iterations one after another, what each writes kept), every read is of an element the run has
// written and by the run's end every element of `t` has been written. Then what is read after the loop is never
// older than the loop.
IterationCoverage runRewrite(const Program& p, const LinearOrder& order, TensorId t, int32_t loop, CoverageCache& cache,
                             uint64_t budget = kCoverageBudget);

// The question liveness asks of a loop after a partial write that may start a value: Covered when, over one run of
// the loop (its iterations one after another, what each writes kept), every read is of an element the run has
// written. Then nothing the loop reads is older than the loop.
IterationCoverage runCoverage(const Program& p, const LinearOrder& order, TensorId t, int32_t loop, CoverageCache& cache,
                              uint64_t budget = kCoverageBudget);

}  // namespace allocsim
