// The Chrome / Perfetto trace-event JSON of a simulation: one process, one track (thread) per
// engine, for the SP sequencer's loop iterations, and per DMA queue; every executed instruction is a complete
// event ("ph": "X") on its engine's or queue's track, named by its operation, with its source line and text in
// args; every ring occupancy change is a counter event ("ph": "C"). Timestamps are microseconds at the timing
// table's clock. Open it in https://ui.perfetto.dev or chrome://tracing.
#pragma once

#include <ostream>
#include <string>

#include "ir/program.h"
#include "sim/simulate.h"

namespace allocsim::sim {

std::string traceEventJson(const Program& p, const Trace& t, uint32_t queues, double clock_ghz);
// The same, written to `out` event by event (never held whole: it grows with the run).
void writeTraceEventJson(std::ostream& out, const Program& p, const Trace& t, uint32_t queues, double clock_ghz);
// The track names, by TraceSlice::track.
std::string trackName(uint32_t track);

}  // namespace allocsim::sim
