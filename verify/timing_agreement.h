// The simulator's timing held against the timing oracle (verify/timing_oracle.h) and against invariants any run must
// keep. `allocsim run` checks both (docs/simulator.md "Checking the timing"); the property suite, the corpus test and
// a fuzz target check generated programs and every corpus kernel.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"
#include "sim/simulate.h"
#include "verify/timing_oracle.h"

namespace allocsim::verify {

// Where the model's run (its statistics and trace) differs from the oracle's schedule: every slice on every track
// (engines, the sequencer, DMA queues: instruction, start, end), the ring occupancy changes, the run's cycles, busy
// cycles and counts per engine and per queue. One line each, at most `max_lines` (then a count of the rest); empty
// when they agree exactly.
std::vector<std::string> timingDifferences(const Program& p, const TimingSchedule& oracle, const sim::SimStats& stats,
                                           const sim::Trace& trace, size_t max_lines = 8);

// The invariants of a run, checked on the model's trace: each engine and each DMA queue runs one instruction at a
// time; no ring holds more transfers than its slots; a transfer starts no earlier than the end of the transfer
// `dma-ring-slots` places ahead of it on its queue (its slot was free); and, with `deps` (the oracle's dependences of
// the same program), every instruction starts at or after the ends of the older instructions it depends on, as the
// model ran them. One line each, at most `max_lines`; empty when all hold.
std::vector<std::string> timingInvariantViolations(const Program& p, const sim::Trace& trace,
                                                   const TimingSchedule* deps, size_t max_lines = 8);

// For a run already made with a trace (`trace` was o.trace): the oracle's schedule under o.timing, then the
// differences and broken invariants as one text, a line each under a heading; "" when the timing is right. Throws
// InputError as timingSchedule() does.
std::string timingDisagreement(const Program& allocated, const sim::SimOptions& o, const sim::SimStats& stats,
                               const sim::Trace& trace);

struct TimingCheck {
  sim::SimResult result;                  // the model's run
  sim::Trace trace;                       // its trace
  TimingSchedule oracle;
  std::vector<std::string> differences;   // timingDifferences
  std::vector<std::string> violations;    // timingInvariantViolations
  bool agrees() const { return differences.empty() && violations.empty(); }
};

// Simulates `allocated` with `o` (a trace is recorded whatever o.trace says), computes the oracle's schedule with the
// same timing table and compares them. Throws InputError as simulate() does.
TimingCheck checkTiming(const Program& allocated, sim::SimOptions o);

}  // namespace allocsim::verify
