// What a simulation measured: total cycles, per-engine busy time, DMA traffic per queue, peak
// ring occupancy, and every stall cycle attributed to its cause and to the pair of instructions involved.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim::sim {

// Port: a shared SBUF or PSUM access port held by an instruction of another engine (docs/simulator.md "Shared ports").
enum class StallCause : uint8_t { RAW, WAR, WAW, RingFull, EngineBusy, Port };
constexpr size_t kStallCauses = 6;
const char* stallCauseName(StallCause c);

constexpr size_t kEngines = 6;  // ir/program.h Engine: PE, ACT, DVE, POOL, SP, DMA (the DMA issuer)

struct EngineStats {
  uint64_t busy_cycles = 0;   // cycles executing instructions
  uint64_t instructions = 0;
};

struct QueueStats {
  uint64_t bytes = 0;
  uint64_t descriptors = 0;
  uint64_t transfers = 0;      // dma instructions served
  uint64_t busy_cycles = 0;    // cycles on the fabric
  uint32_t peak_occupancy = 0; // most ring slots in use at once
};

// Stall cycles of one (cause, producer, consumer): the consumer waited that long for the producer (RAW/WAR/WAW:
// the older instruction it depends on, the last one it waited for when there were several; ring full: the oldest
// transfer on the full ring; engine busy: the oldest instruction in the full engine queue, whose leaving frees the
// slot). producer is null when no single instruction is to blame; producer == consumer is the same instruction in
// an earlier loop iteration. Pointers into the simulated Program.
struct StallPair {
  StallCause cause;
  const Instruction* producer;
  const Instruction* consumer;
  uint64_t cycles;
};

struct SimStats {
  uint64_t cycles = 0;
  std::array<EngineStats, kEngines> engines{};
  std::vector<QueueStats> queues;
  uint64_t loop_iterations = 0;
  uint64_t sequencer_busy_cycles = 0;  // the SP sequencer's loop iterations
  std::array<uint64_t, kStallCauses> stall_cycles{};
  uint64_t instructions = 0;  // executed non-loop instructions
  // Instructions whose destination overlapped one of their sources at an offset, so they ran chunk by chunk
  // (sim/stream.h): how often, and how often the result differed from applying them at once (as the interpreter
  // does). In program order of first execution.
  struct SelfOverlap {
    const Instruction* inst;
    uint64_t executions = 0, differing = 0;
  };
  std::vector<SelfOverlap> self_overlaps;
  void addSelfOverlap(const Instruction* inst, bool differs);

  void addStall(StallCause c, const Instruction* producer, const Instruction* consumer, uint64_t cycles);
  // The stall pairs, most cycles first (ties: cause, then program order), at most n.
  std::vector<StallPair> topPairs(size_t n) const;

 private:
  // By the consumer's Instruction::id (a dense preorder number), then a short list: it is updated on every stall,
  // and one instruction stalls on few (cause, producer) pairs. topPairs sorts once.
  std::vector<std::vector<StallPair>> pairs_;
};

}  // namespace allocsim::sim
