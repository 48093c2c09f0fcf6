// The simulator's entry point: executes an allocated program on the SystemC model
// of the core (sim/top.h) — engines that issue in program order, a scoreboard over physical storage, DMA rings,
// timing from sim/timing/default.txt — with the interpreter's own element code (ir/interp.h InstructionStepper),
// and returns what the program computed (outputs and per-instruction operand hashes, comparable with
// interpret()) and what it cost (cycles, busy time, stalls).
//
// The SystemC kernel is elaborated once per process; every simulate() call is a job fed to the same modules, so a
// test or a fuzz target may simulate any number of programs in one process. The kernel runs on a thread of its own
// (sim/kernel_thread.h), so callers on several threads are served one at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/interp.h"
#include "ir/progress.h"
#include "ir/program.h"
#include "sim/scoreboard.h"
#include "sim/stats.h"
#include "sim/timing.h"

namespace allocsim::sim {

// One executed instruction (or loop iteration) on one track, for the trace writers (sim/trace.h).
struct TraceSlice {
  uint32_t track;  // 0..5: the engines in ir/program.h order (DMA = the issuer); 6: the SP sequencer's loop
                   // iterations; 7 + q: DMA queue q
  uint64_t start, end;  // cycles from the start of the run
  const Instruction* inst;
};
// A ring's occupancy changed to `value` at `cycle` (queue q).
struct TraceCounter {
  uint32_t queue;
  uint64_t cycle;
  uint32_t value;
};
struct Trace {
  std::vector<TraceSlice> slices;
  std::vector<TraceCounter> ring_occupancy;
};

struct SimOptions {
  uint64_t input_seed = 1;
  uint64_t poison_seed = 0;
  uint64_t max_steps = 50'000'000;
  uint64_t max_storage_bytes = uint64_t(1) << 32;
  // The timing table; unset, the table of the program's arch preset (TimingTable::forPreset): timingFor().
  std::optional<TimingTable> timing;
  bool record_reads = true;  // fill exec.reads (memory grows with the run; off for very long runs)
  DropDependency drop = DropDependency::None;  // test only: see sim/scoreboard.h
  Trace* trace = nullptr;  // when set, every slice and ring change is recorded (memory grows with the run)
  // A VCD (sc_trace) of engine activity and ring occupancy. SystemC sets traces up before elaboration, so only
  // the process's first simulate() may ask for one (std::logic_error otherwise). The $date line is fixed, so the
  // same run gives a byte-identical file.
  std::string vcd_path;
  // Run the interpreter on the same physical storage first and throw its InputError, if any, from the caller's
  // stack: an exception thrown inside a SystemC thread switches stacks under the sanitizers (ASan cannot follow
  // QuickThreads and reports false positives afterwards). With the full scoreboard a program the interpreter
  // completes cannot fail in the simulator. Off only for runs known to be valid (the benchmark).
  bool prevalidate = true;
  // Temporal decoupling, as TLM-2.0's quantum keeper: each unit (sequencer, engines, DMA issuer and queues) keeps
  // its own clock and waits for the SystemC kernel only when it is more than `quantum` cycles ahead of SystemC time
  // or needs another unit's decision. Every decision is taken on cycles already decided, so results do not depend
  // on it (a test runs several); it trades host speed for how far SystemC time may trail the model. The order in
  // which values move is then kept by the dependences alone. 0: every unit waits out every instruction and moves
  // its values at its end cycle, in model-time order. It is 0 with a VCD (signals change at their cycles) and with
  // `drop` (a missing dependence then shows as values taken in time order, as hardware would take them). The
  // default is large enough that a unit rarely waits for time (a timed wait is a kernel round trip, each a few
  // hundred host instructions); what bounds how far a unit runs ahead is its queues, not the quantum.
  uint64_t quantum = 1'000'000;
  const ProgressFn* progress = nullptr;  // called every kProgressSteps steps, from the simulation's thread
  // Timing only: compute just what the timing depends on. Registers, addresses, loop trips and every decision of
  // the model are computed as in a full run, so cycles, busy time, stalls, stall pairs and traces are exactly the
  // full run's; the tensor data path (inputs, element computation, the interpreter check run first) is skipped.
  // A program with a register load from a tensor (`reg_load`) computes the instructions whose results can reach one,
  // and loads the inputs they can read (sim/reg_load_slice.h); the rest skip their data. Left empty: exec.outputs, exec.reads' hashes (zero), stats.self_overlaps (they compare data).
  // Bad input is still reported as InputError, raised in the model (SimOptions::prevalidate does not apply).
  bool timing_only = false;

  // The table a run of `p` uses.
  const TimingTable& timingFor(const Program& p) const { return timing ? *timing : TimingTable::forPreset(p.arch.name); }
};

struct SimResult {
  InterpResult exec;  // outputs, operand hashes (in program order), steps: as interpret() on physical storage
  SimStats stats;
};

// Throws InputError when the program cannot run (no placement, bounds, a view outside its tensor, too many steps):
// the same conditions, with the same messages, as interpret() on PhysicalStorage.
SimResult simulate(const Program& allocated, const SimOptions& opts = {});

// Whether a timing-only run of `p` skips all its tensor data (it has no register load from a tensor).
bool timingSkipsData(const Program& p);

}  // namespace allocsim::sim
