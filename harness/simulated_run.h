// The last check on an allocator's output ("the simulator's cycles"): the allocated program runs
// on the SystemC model of the core (sim/simulate.h) and must compute what the reference interpreter computes on
// the same physical storage — the DRAM outputs, every instruction's operand values and the step count
// (sim/agreement.h). A program whose meaning depends on timing (a hazard the scoreboard orders one way and the
// interpreter another) fails here. The run's timing is then held against the timing oracle (verify/timing_agreement.h:
// every instruction's start and end, and the invariants of any run), so a simulator whose cycles are wrong fails too.
// The outcome records the simulated cycles, which campaigns sum up.
#pragma once

#include "harness/outcome.h"
#include "ir/program.h"
#include "sim/simulate.h"

namespace allocsim {

// Runs after the oracles passed (`allocated` is well-formed and runs in the interpreter). Sets out.cycles, or
// fails `out` with kind "simulator:disagrees", "simulator:timing" or "simulator:cannot-run". Safe to call from several threads: the
// SystemC kernel is one per process, so simulations are serialized.
void checkSimulatedRun(const Program& allocated, const CheckSeeds& seeds, CaseOutcome& out);
// The same with the simulator's options given (seeds, timing; tests use SimOptions::drop to see a disagreement).
void checkSimulatedRun(const Program& allocated, const sim::SimOptions& opts, CaseOutcome& out);

}  // namespace allocsim
