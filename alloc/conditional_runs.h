// Whether code inside conditional blocks (`if`) and loops with register bounds runs, where the loop registers
// decide it. The linear order marks such code conditional (alloc/linear_order.h): liveness then never lets its writes
// replace a value. Where the conditions and bounds name only the registers of the loops around them, they can be
// evaluated for every iteration of those loops, and two answers are certain:
//   always  the instruction runs on every iteration of every loop around it (every `if` on the way holds, every
//           register-bounded loop on the way runs at least once): it runs exactly as unconditional code would;
//   once    the outermost construct around it is a loop, and the instruction runs at least once on that loop's
//           one run through its iterations;
//   later   with `once`: how many iterations of that outermost loop begin after the instruction's last run, where
//           no loop between the two begins another iteration after that run (then of the positions inside the
//           outermost loop's body, only those after the instruction's run again after its last run, on those
//           later iterations only); -1 when an inner loop does.
//   skips_last  by depth (bit d - 1 for the loop around it at depth d, LinearLoop::depth, up to 64): the instruction
//           never runs on that loop's last iteration, on any of its runs (`if i == 2` in `loop i = 0, 4`).
//   only_last  by depth, as skips_last: the instruction runs on that loop's last iteration only, on every one of its
//           runs (`if i == 3` in `loop i = 0, 4`; `loop j = 0, i % 3` in `loop i = 0, 2`: only i = 1 runs it).
// A condition or bound that names any other register, a register that something else inside its loop writes, or a
// walk beyond the work budget answers neither.
//
// The same walk finds the bodies that never run: an `if` whose condition holds on no iteration of the loops around
// it, a loop whose register bound lets no iteration run on any entry (`if i % 2 != 0` in a loop of one iteration,
// `loop j = 0, i` in `loop i = 0, 1`). Such code is never executed: the linear order marks it so (alloc/linear_order.h)
// and nothing it mentions is live there. The answer is sound: a body that can run, or one whose conditions and
// bounds the walk cannot evaluate (as above), is never listed.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "ir/program.h"

namespace allocsim {

struct ConditionalRuns {
  bool always = false;
  bool once = false;
  int64_t later = -1;
  uint64_t skips_last = 0;
  uint64_t only_last = 0;
};

// Iterations the walk of one conditional body may visit before it gives up.
constexpr uint64_t kConditionalRunsBudget = uint64_t(1) << 14;

// The answers for every non-body instruction inside an `if` or a register-bounded loop (at any depth), by address.
// The map holds pointers into `p`: it must not outlive it.
std::unordered_map<const Instruction*, ConditionalRuns> conditionalRuns(const Program& p);

// The `if`s and register-bounded loops (at any depth) whose bodies never run, by address (pointers into `p`).
std::unordered_set<const Instruction*> neverRunBodies(const Program& p);

}  // namespace allocsim
