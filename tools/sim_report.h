// What `allocsim run` and `allocsim trace` print about a simulation (sim/stats.h): cycles, per-engine busy %,
// DMA queues, stalls by cause and the top stall pairs (the agreement check with the interpreter: sim/agreement.h).
#pragma once

#include <optional>
#include <string>

#include "ir/interp.h"
#include "ir/program.h"
#include "sim/agreement.h"
#include "sim/simulate.h"

namespace allocsim::cli {

std::string simStatsText(const Program& p, const sim::SimStats& s, double clock_ghz, size_t top_pairs = 5);
std::string simStatsJson(const Program& p, const sim::SimStats& s, size_t top_pairs = 5);

using sim::instructionById;
using sim::simulatorDisagreement;

}  // namespace allocsim::cli
