// What `allocsim run` and `allocsim trace` print about a simulation (sim/stats.h): cycles, per-engine busy %,
// DMA queues, stalls by cause and the top stall pairs; and the check that the simulated run computed what the
// interpreter computes on the same physical storage.
#pragma once

#include <optional>
#include <string>

#include "ir/interp.h"
#include "ir/program.h"
#include "sim/simulate.h"

namespace allocsim::cli {

std::string simStatsText(const Program& p, const sim::SimStats& s, double clock_ghz, size_t top_pairs = 5);
std::string simStatsJson(const Program& p, const sim::SimStats& s, size_t top_pairs = 5);

// "line 12 `copy c, acc`" for the instruction with Instruction::id `id` (empty when none has it).
std::string instructionById(const Program& p, uint32_t id);

// The first difference between the simulated run and the interpreter's run of the same allocated program with
// the same seeds (operand hash at an instruction, the number of steps, or an output tensor), as one line; nullopt
// when they agree.
std::optional<std::string> simulatorDisagreement(const Program& p, const InterpResult& sim, const InterpResult& ref);

}  // namespace allocsim::cli
