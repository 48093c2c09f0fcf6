// The timing oracle: an independent reference of the simulator's timing rules (docs/simulator.md "Timing"), in plain
// C++ and without SystemC. It walks an allocated program as the rules describe the sequencer's walk and places every
// executed instruction, loop iteration and `if`: dispatch (engine queues, registers), start and end on its engine or
// DMA queue (engine clocks, dependences on physical footprints, the DMA issuer, ring slots and the fabric's
// calendar). It shares only the timing table (sim/timing.h TimingTable, its parser) and the interpreter (which
// views and registers each step touches, loop trips and conditions) with the model; the scheduling is its own.
// verify/timing_agreement.h holds it against the model's trace.
//
// It places each step as the interpreter runs it and hands it to a sink at once. What it holds between steps is
// what a later step can still depend on: the accesses of instructions not yet complete, the engines' queues, the
// rings and the fabric's calendar — bounded by the machine, not by the run's length. A sink that compares each
// step as it comes (timingDisagreement) keeps nothing per step; timingSchedule() without a sink keeps them all.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ir/program.h"
#include "sim/timing.h"

namespace allocsim::verify {

// One executed instruction, loop iteration or `if`, as the rules place it.
struct TimedStep {
  const Instruction* inst = nullptr;
  // As sim::TraceSlice::track: 0-4 the engines PE, ACT, DVE, POOL, SP; 6 the sequencer (loop iterations, ifs);
  // 7 + q DMA queue q.
  uint32_t track = 0;
  uint64_t dispatch = 0;  // the sequencer's clock when it queued the instruction
  uint64_t ready = 0;     // DMA: when the issuer took it (its engine-queue slot frees then)
  uint64_t issue = 0;     // DMA: when it took a ring slot on its queue
  uint64_t start = 0;     // compute: its start; DMA: the start of its window on the fabric; sequencer: its start
  uint64_t end = 0;
  // When its results are complete, which is what an instruction depending on it waits for: for a compute
  // instruction the later of its end and its start plus its engine's minimum dependent interval; else its end.
  uint64_t done = 0;
  // The older steps it depends on (indices into TimingSchedule::steps, ascending) that were not complete (done) by
  // its dispatch. Those that were cannot hold it back: it starts no earlier than its dispatch.
  std::vector<uint32_t> producers;
};

struct TimingSchedule {
  std::vector<TimedStep> steps;  // in the sequencer's order
  uint64_t cycles = 0;           // the latest end (completion) of anything
  std::array<uint64_t, 6> busy_cycles{};   // per engine (ir/program.h Engine order): the sum of its costs; DMA 0
  std::array<uint64_t, 6> instructions{};  // per engine
  uint64_t loop_iterations = 0, sequencer_busy_cycles = 0;
  // Stall cycles (docs/simulator.md "Stalls"): waits for a full engine queue (the sequencer), for a ring slot (the
  // DMA issuer), and for dependences of every kind together (an engine's start after max(its clock, the dispatch);
  // a transfer's ready cycle after max(the issuer's clock, the dispatch); the sequencer's waits for registers).
  uint64_t engine_busy_stall_cycles = 0, ring_full_stall_cycles = 0, dependence_stall_cycles = 0;
  struct Queue {
    uint64_t transfers = 0, bytes = 0, descriptors = 0, busy_cycles = 0;
    uint32_t peak_occupancy = 0;
  };
  std::vector<Queue> queues;
  // Ring occupancy after each change, in time order (a slot freed in a cycle before one taken in it, then by queue).
  struct RingChange {
    uint32_t queue;
    uint64_t cycle;
    uint32_t value;
  };
  std::vector<RingChange> ring_occupancy;
  // The most accesses (an instruction's view of one memory) the oracle held at once for later steps' dependences.
  uint64_t peak_inflight_accesses = 0;
};

// Receives the schedule as the oracle places it.
class TimingStepSink {
 public:
  virtual ~TimingStepSink() = default;
  // Step `index` (the sequencer's order; the steps of one track come in the order the track runs them). Returns a
  // tag for it, any value, given back with every later step that names it as a producer: `producer_tags[k]` is the
  // tag of s.producers[k]. `s` and `producer_tags` are valid only during the call.
  virtual uint64_t onStep(uint32_t index, const TimedStep& s, const std::vector<uint64_t>& producer_tags) = 0;
  // Each ring occupancy change, in TimingSchedule::ring_occupancy's order.
  virtual void onRingChange(const TimingSchedule::RingChange& c) = 0;
};

struct TimingOracleOptions {
  uint64_t max_steps = 50'000'000;
  uint64_t max_storage_bytes = uint64_t(1) << 32;
  // What the oracle may hold: its accesses in flight and, without a sink, the schedule it returns (its steps and
  // their producers).
  uint64_t max_state_bytes = uint64_t(1) << 30;
};

// The schedule of `allocated` under table `t`. Throws InputError where the interpreter would (the program does not
// run), when the run takes more than max_steps steps, and at the instruction being placed when the oracle would
// hold more than max_state_bytes.
TimingSchedule timingSchedule(const Program& allocated, const sim::TimingTable& t, const TimingOracleOptions& o = {});

// The same, each step and ring change handed to `sink` as it is placed: the result's steps and ring_occupancy are
// empty, everything else is as above.
TimingSchedule timingSchedule(const Program& allocated, const sim::TimingTable& t, TimingStepSink& sink,
                              const TimingOracleOptions& o = {});

}  // namespace allocsim::verify
