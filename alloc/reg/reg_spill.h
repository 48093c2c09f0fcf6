// insert_spill_code of the REG colorer (the production allocator, REG_Allocator: "a register that cannot be colored is
// materialized into a MemoryLocation ... and reloaded around each use"). Each spilled register r gets
//   - a slot: `dram <r>_RegSpill<k> [1, lanes] u32 !spill`, in storage of its own (DRAM, like the SBUF colorer's
//     spill slots), touched by inserted instructions only;
//   - at every def: the instruction writes a fresh stand-in `reg <r>_Spill<k> !spill(r)`, and
//     `reg_store slot, <stand-in> !spill` follows it at once;
//   - at every use: `reg_load <stand-in>, slot !reload` comes right before the instruction, which reads a fresh
//     `reg <r>_Reload<k> !reload(r)` instead (one per instruction, however often it reads r).
// A spilled loop register (alloc/reg/reg_costs.h) spills inside its loop's body only: the body starts with
// `reg_store slot, <r> !spill`, its reads of r are reloads into stand-ins as above, and it ends with
// `reg_load <r>, slot !reload`, which gives r back its value before the sequencer steps and tests it. An inner loop
// whose register bound names r (the bound reads the enclosing loop's register itself, docs/format.md "Loops with
// register bounds") is preceded by the same `reg_load <r>, slot !reload`: r holds its value from there to that
// loop's entry only.
// The production allocator threads a bir::sync::Wait between the SP engine's access and the spill store / reload;
// here the store and the load sit next to the access in SP program order, and the simulator's scoreboard orders them
// by the register and slot bytes they share (RAW / WAR), which is what the waits do. The stand-ins name r
// (`!spill(r)`, `!reload(r)`), so the oracles read them as r (docs/verification.md).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

struct RegSpillStats {
  uint64_t stores = 0;   // reg_store instructions inserted
  uint64_t reloads = 0;  // reg_load instructions inserted
};

// Rewrites `p` for the registers in `spilled`. `next_id` numbers the new
// names across rounds.
RegSpillStats insertRegisterSpills(Program& p, const std::vector<RegId>& spilled, uint32_t& next_id);

}  // namespace allocsim
