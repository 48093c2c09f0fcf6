// find_costs of the REG colorer (the production allocator, REG_Allocator: "spill cost += numPhysicalRegs (reg+396)
// per def"). A register's spill cost is the lanes it occupies, counted at every def and every use, each weighted by
// kLoopWeight^depth of the loop nest it sits in: spilling inserts a store after each def and a reload before each
// use, and an access in a loop body runs once per iteration. (The production allocator counts defs; we count uses
// too, because each use is where a reload lands.)
//
// Loop induction registers spill too. The production REG colorer runs after lower_branch has turned loops into
// sequencer instructions, where the induction variable is an ordinary register with defs (the init and the
// increment) and uses (the compare, the body's reads), so it spills like any other. Here the loop is one
// instruction, so a spilled loop register keeps its lane where the sequencer steps and tests it (the loop's header
// and end) and frees it inside the body: stored at the body's start, reloaded before each use in the body, and
// reloaded into itself at the body's end (alloc/reg/reg_spill.h). Its cost adds that store and that reload, once
// per iteration. It spills once: afterwards its range is the two ends of its body.
//
// Registers that cannot spill have infinite cost:
// - a loop register already spilled, or one that several loops step (the SSA split gives each loop its own
//   register unless the placement is kept);
// - registers inserted by an earlier spill round (the stand-ins): their ranges are already one def or one use
//   long, so spilling them again frees nothing;
// - registers whose placement is kept (O7's fixed assignment).
// A loop register that an inner loop's register bound names spills like any other: the bound must read the
// enclosing loop's register itself (docs/format.md "Loops with register bounds"), so the spill code reloads the
// register into its own lanes right before that inner loop (alloc/reg/reg_spill.h); a bound read costs one reload
// per entry of the inner loop.
// The SSA split's value webs (alloc/reg/reg_ssa.h, Origin::Copy) spill like the source registers they split.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim {

inline constexpr double kLoopWeight = 10;  // per loop level, as in Chaitin's original estimate
inline constexpr uint32_t kMaxWeightedDepth = 8;  // deeper nests weigh like depth 8 (keeps costs finite)

// Why a register cannot spill (RegCosts::why), for the refusal's message.
enum class Unspillable : uint8_t { No, StandIn, Kept, LoopDone };

struct RegCosts {
  std::vector<double> cost;        // by RegId; meaningful when spillable
  std::vector<bool> spillable;     // by RegId
  std::vector<bool> loop_register; // by RegId: some loop steps it
  std::vector<Unspillable> why;    // by RegId: No when spillable
};

// What keeps register `r` from spilling, in words ("" when it can spill); `brief`: a few words.
std::string unspillableReason(const RegCosts& c, RegId r, bool brief = false);

// `kept[r]` (may be shorter than the register list) marks registers whose placement is fixed; `loop_spilled[r]`
// (likewise) loop registers an earlier round spilled.
RegCosts findRegisterCosts(const Program& p, const std::vector<bool>& kept, const std::vector<bool>& loop_spilled);

}  // namespace allocsim
