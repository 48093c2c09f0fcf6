// The allocators' linear order (the production allocator, "Where the PSUM colorer sits": Rep::linearize flattens
// loops, and the PSUM and SBUF colorers share the one LinearizedFunction so that loop-crossing live ranges stay
// consistent).
//
// Positions, in order:
//   0                 program start (where inputs are defined)
//   ...               every instruction in preorder; a loop contributes a header position, then its body, then a
//                     loop-end position (the back edge / exit: where the loop leaves its register at the first
//                     value >= hi); an `if` contributes one instruction position (it reads its condition's
//                     registers), then its body's positions, marked conditional: they run only where it holds;
//                     so are the body's positions of a loop with a register bound (it may stop before hi)
//   size() - 1        program end (where outputs are used)
// A loop's header and end positions belong to the enclosing nest, not to the loop: they run once per entry.
//
// The order holds pointers into the program's instructions: it must not outlive the Program it was built from.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

struct LinearLoop {
  const Instruction* inst = nullptr;
  uint32_t header = 0;      // position of the loop header
  uint32_t end = 0;         // position of the loop end (> header; the body lies strictly between)
  int32_t parent = -1;      // index of the enclosing loop, -1 at top level
  uint32_t depth = 1;       // 1 for a top-level loop
  uint64_t trips = 0;       // iterations per entry: ceil((hi - lo) / step), 0 when lo >= hi (or step <= 0); with a
                            // register bound, the most on any entry
  bool body_runs = false;   // the body executes at all: this loop and every enclosing loop have trips > 0, and no
                            // enclosing body is one that never runs (alloc/conditional_runs.h, neverRunBodies)
};

struct LinearPosition {
  enum class Kind : uint8_t { Start, Instruction, LoopHeader, LoopEnd, End } kind = Kind::Start;
  const Instruction* inst = nullptr;  // the instruction (for a loop header / end: the loop)
  int32_t loop = -1;                  // the innermost loop whose body contains this position, -1 if none
  bool executes = true;               // false inside a body that never runs: a loop's of no trips, or an if's or a
                                      // register-bounded loop's that the loop registers never let run
  // Inside an if's body or a register-bounded loop's (at any depth): the instruction may not run on every iteration
  // of its loops, so its writes never replace a value for certain (liveness, iteration coverage).
  bool conditional = false;
};

struct LinearOrder {
  std::vector<LinearPosition> positions;
  std::vector<LinearLoop> loops;  // in preorder of their headers

  uint32_t start() const { return 0; }
  uint32_t end() const { return uint32_t(positions.size() - 1); }
  // The loops whose bodies contain `pos`, outermost first (the production allocator's getLoopnest()).
  std::vector<int32_t> nest(uint32_t pos) const;
  // The same into `chain` (cleared first): a caller asking for many positions keeps one vector's room.
  void nest(uint32_t pos, std::vector<int32_t>& chain) const;
  // The loop directly in `loop`'s body (`loop` -1: the top level) whose body holds `pos`, at any depth; -1 when `pos`
  // lies directly in `loop`'s body, or outside it.
  int32_t childIn(uint32_t pos, int32_t loop) const;
};

// Flattens `p.body` (iteratively: any nesting depth is fine).
LinearOrder linearize(const Program& p);

// Iterations of `loop` per entry; 0 when it never runs (lo >= hi, or a non-positive step in a malformed program).
uint64_t loopTrips(const Instruction& loop);

}  // namespace allocsim
