// The bare model: SystemC threads doing nothing but wait(latency) per instruction, one thread per track of a trace
// the full model recorded (its engines, its sequencer's loop iterations, its DMA queues), on the latencies it
// measured. It is the SystemC kernel's ceiling for that program: bench/sim_speed.cpp reports the full model's speed
// as a fraction of it.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/simulate.h"

namespace allocsim::bench {

// Per track (TraceSlice::track numbering), the latency of every slice, in order.
std::vector<std::vector<uint64_t>> bareTracks(const sim::Trace& t);
// Runs them on the process's SystemC kernel, which a sim::simulate() call must have elaborated before; returns the
// number of waits (= slices).
uint64_t simulateBare(const std::vector<std::vector<uint64_t>>& tracks);

}  // namespace allocsim::bench
