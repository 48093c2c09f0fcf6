// The latency data behind PSUM spill costs (the production allocator, find_costs: cost += liveN * Latency per store
// and per load). A PSUM spill is a TensorCopy DMA of the tensor's banks out of PSUM and, before each consumer, back
// in; one bank moves bank-bytes x partitions bytes. The figures are a model ("cost = fixed latency +
// bytes/bandwidth"), kept here as data so that the simulator's timing table can replace them.
#pragma once

#include <cstdint>

#include "ir/arch.h"

namespace allocsim {

struct PsumSpillLatencyModel {
  uint64_t fixed_cycles = 64;    // DMA descriptor issue and completion
  uint64_t bytes_per_cycle = 64;  // PSUM <-> SBUF DMA bandwidth
};

inline constexpr PsumSpillLatencyModel kPsumSpillLatency{};

// Cycles to move one bank of `arch` out of PSUM (store) or back in (load); the model is symmetric.
inline uint64_t psumBankMoveCycles(const Arch& arch, const PsumSpillLatencyModel& m = kPsumSpillLatency) {
  uint64_t bytes = uint64_t(arch.psum_bank_bytes) * arch.psumPartitions();
  return m.fixed_cycles + (bytes + m.bytes_per_cycle - 1) / m.bytes_per_cycle;
}

}  // namespace allocsim
