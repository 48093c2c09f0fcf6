// Invariants every simulated run's timing must keep, checked from its trace (sim/simulate.h Trace) without the
// model's code: one instruction at a time on each engine and on each DMA queue (their slices do not overlap), every
// slice ends no earlier than it starts, and a DMA ring never holds more transfers than its slots.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"
#include "sim/simulate.h"

namespace allocsim::sim {

// The broken invariants, one line each ("ACT: `tt ...` starts at cycle 130 before `act ...` ends at 290"); empty when
// every one holds.
std::vector<std::string> timingInvariantViolations(const Program& p, const Trace& trace);

}  // namespace allocsim::sim
