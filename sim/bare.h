// The bare model (issue 8 item 7): the simulator's own SystemC threads doing nothing but wait(latency) per
// instruction, on the latencies a full simulation measured. It is the SystemC kernel's ceiling for this program:
// bench/sim_speed.cpp reports the full model's speed as a fraction of it.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/simulate.h"

namespace allocsim::sim {

// Per track (TraceSlice::track numbering), the latency of every slice, in order.
std::vector<std::vector<uint64_t>> bareTracks(const Trace& t);
// Runs them on the elaborated model; returns the number of waits (= slices).
uint64_t simulateBare(const std::vector<std::vector<uint64_t>>& tracks);

}  // namespace allocsim::sim
