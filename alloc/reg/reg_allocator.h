// The REG colorer (the production allocator, "REG_Allocator — the scalar register colorer"): colors the program's
// registers onto the SP register lanes, spilling to memory until everything colors. It runs last at every optlevel
// (alloc/driver.h). The cycle, per round ("REG GCA interation nums = <round>", the production allocator's spelling;
// GCA is its name for graph-coloring allocation), on the colorers' one skeleton (alloc/colorer.h):
//
//   live_range   alloc/liveness.h over the current program (loop-extended: a loop register is live across its loop)
//   build        alloc/reg/reg_interference.h (a spilled loop register is live at the two ends of its body only)
//   coalesce     alloc/reg/reg_coalesce.h (conservative SSA-copy coalescing; the production allocator runs it before
//                build, here it reads the graph build made)
//   find_costs   alloc/reg/reg_costs.h (lanes per def and use, x10 per loop level; stand-ins, kept registers and
//                loop registers already spilled cannot spill)
//   simplify / select   alloc/reg/reg_color.h, one coloring and its score ("REG score = <s> (lower is better)")
//   insert_spill_code   alloc/reg/reg_spill.h when select leaves registers uncolored
//
// Representatives, once before the rounds: alloc/reg/reg_ssa.h splits a register that holds unrelated values (a
// loop register reused by several loops) into one register per value web (SSA values coalesced where one read
// may see several defs). Each round then coalesces copies (alloc/reg/reg_coalesce.h): registers joined by a `mov`
// whose ranges meet only at that copy are colored as one node and get one color (reported as
// reg.coalesced_copies).
//
// Spill choice after select: every uncolored spillable register spills; an uncolored register that cannot spill
// (a stand-in, a loop register spilled already) makes its cheapest spillable neighbour spill. When an uncolored
// register has no spillable neighbour, no spill can make room for it, and the production allocator's FATAL is raised
// as an AllocError (exit 3): "cannot allocate registers since spilling candidates are not enough". Every round spills
// at least one source register, or a loop register for the only time, so the fixpoint ends.
//
// Counted (RegStats, printed by tools/report_format.h): each round's score, the registers spilled (loop registers
// among them), the spill code and its cycles (each executed reg_store / reg_load priced as a DMA of its bytes between
// DRAM and the SP engine, alloc/cost_table.h), the lanes used against the lanes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim {

struct RegOptions {
  std::vector<bool> keep;  // by RegId (may be shorter): keep this register's placement (O7)
  int verbosity = 0;       // 1: per round, the registers spilled (RegRound::spilled)
};

// One round of the REG colorer.
struct RegRound {
  double score = 0;           // of its coloring (lower is better)
  uint32_t uncolored = 0;     // registers its coloring left without lanes
  std::vector<std::string> spilled;  // the registers it spilled then (RegOptions::verbosity >= 1)
  bool operator==(const RegRound&) const = default;
};

struct RegStats {
  uint32_t ssa_split = 0;         // registers added by splitting value webs (alloc/reg/reg_ssa.h)
  uint32_t rounds = 0;
  double score = 0;               // the final coloring's
  uint64_t edges = 0;             // of the final round's interference graph
  uint32_t coalesced_copies = 0;  // in the final round
  uint32_t registers = 0;         // after the rounds (spill stand-ins included)
  uint32_t spilled = 0;           // registers spilled over all rounds
  uint64_t spilled_loop_registers = 0;  // of them
  uint64_t spill_stores = 0, spill_reloads = 0;
  uint64_t spill_cycles = 0;      // of the executed spill code
  uint32_t lanes_used = 0, lanes = 0;
  double utilization_pct = 0;     // lanes used / lanes
  bool traced = false;            // RegOptions::verbosity >= 1
  std::vector<RegRound> round_log;  // every round, in order
  bool operator==(const RegStats&) const = default;
};

// Places every register of `p`, inserting spill code where needed. Throws AllocError (the FATAL above).
RegStats allocateRegisters(Program& p, const RegOptions& o = {});

}  // namespace allocsim
