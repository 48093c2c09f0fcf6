// find_costs of the REG colorer (seed 000, REG_Allocator: "spill cost += numPhysicalRegs (reg+396) per def").
// A register's spill cost is the lanes it occupies, counted at every def and every use, each weighted by
// kLoopWeight^depth of the loop nest it sits in: spilling inserts a store after each def and a reload before each
// use, and an access in a loop body runs once per iteration. (The seed counts defs; we count uses too, because
// each use is where a reload lands.)
//
// Registers that cannot spill have infinite cost:
// - loop induction registers: the sequencer steps and tests them in place on every iteration (an induction
//   variable is live across its loop), and the loop's own register may not be written inside the body, so no
//   reload could feed it;
// - registers inserted by an earlier spill round (the stand-ins): their ranges are already one def or one use
//   long, so spilling them again frees nothing;
// - registers whose placement is kept (O7's fixed assignment).
// The SSA split's value webs (alloc/reg/reg_ssa.h, Origin::Copy) spill like the source registers they split.
#pragma once

#include <vector>

#include "ir/program.h"

namespace allocsim {

inline constexpr double kLoopWeight = 10;  // per loop level, as in Chaitin's original estimate
inline constexpr uint32_t kMaxWeightedDepth = 8;  // deeper nests weigh like depth 8 (keeps costs finite)

struct RegCosts {
  std::vector<double> cost;        // by RegId; meaningful when spillable
  std::vector<bool> spillable;     // by RegId
  std::vector<bool> loop_register; // by RegId: some loop steps it
};

// `kept[r]` (may be shorter than the register list) marks registers whose placement is fixed.
RegCosts findRegisterCosts(const Program& p, const std::vector<bool>& kept);

}  // namespace allocsim
