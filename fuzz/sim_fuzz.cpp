// Fuzz target: the SystemC model against the reference interpreter.
// bytes -> generated program (tiny machine, the bytes are the generator's decisions) -> placeGreedy (placeNoReuse
// when it does not fit) -> the simulator and the interpreter on the same physical storage with the same seeds:
// every operand hash, the step count and every DRAM output must be identical. The input also picks the machine's
// concurrency (DMA queues, ring slots, engine queue depth), so the scoreboard, the rings and the fabric calendar
// see many interleavings of the same program; a dependence the scoreboard misses shows up as a different operand
// hash at the instruction that read too early. One input in four is simulated twice: same cycles, same stalls.
// Any disagreement prints the program, its allocation and the first difference, then aborts.
#include <cinttypes>
#include <optional>

#include "alloc/greedy_placer.h"
#include "fuzz/fuzz_program.h"
#include "ir/physical_storage.h"
#include "sim/agreement.h"
#include "sim/simulate.h"

using namespace allocsim;

namespace {

std::string statsLine(const sim::SimStats& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "cycles %" PRIu64 ", stalls RAW %" PRIu64 " WAR %" PRIu64 " WAW %" PRIu64
                " ring-full %" PRIu64 " engine-busy %" PRIu64 " port %" PRIu64,
                s.cycles, s.stall_cycles[0], s.stall_cycles[1], s.stall_cycles[2], s.stall_cycles[3],
                s.stall_cycles[4], s.stall_cycles[5]);
  return buf;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;  // first: it spans the whole execution, as libFuzzer's leak check does
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in)) return 0;  // a repeat of a case this process ran
  std::optional<Program> placed = fuzz::placeOrPlaceApart(in.program, placeGreedy);
  if (!placed) return 0;  // does not fit the machine without reuse either
  Program& allocated = *placed;
  // Concurrency from the knob: 1-4 DMA queues, 1-4 ring slots, engine queues 1-8 deep.
  allocated.arch.dma_queues = 1 + uint32_t(in.knob & 3);
  allocated.arch.dma_ring_slots = 1 + uint32_t((in.knob >> 2) & 3);
  sim::SimOptions o;
  o.timing = sim::TimingTable::forPreset(allocated.arch.name);
  o.poison_seed = in.poison_seed;
  o.timing->engine_queue_depth = 1 + uint32_t((in.knob >> 4) & 7);

  InterpResult ref;
  try {
    PhysicalStorage storage(allocated, in.poison_seed);
    ref = interpret(allocated, storage, InterpOptions{});
  } catch (const InputError&) {
    return 0;  // the allocation does not run (the oracles' business, not the simulator's)
  }
  sim::SimResult r;
  try {
    r = sim::simulate(allocated, o);
  } catch (const InputError& e) {
    fuzz::reportBug("sim", "the simulator refused a program the interpreter runs", in.program, &allocated,
                    e.format("allocated"));
  }
  // An instruction writing over its own source at an offset streams in hardware order (sim/stream.h), which the
  // interpreter does not model: then the same run with chunks wider than any view (applied at once) must agree.
  for (const sim::SimStats::SelfOverlap& so : r.stats.self_overlaps) {
    if (so.differing == 0) continue;
    o.timing->stream_chunk_elements = 1u << 20;
    r = sim::simulate(allocated, o);
    for (const sim::SimStats::SelfOverlap& again : r.stats.self_overlaps)
      if (again.differing)
        fuzz::reportBug("sim", "one chunk per instruction still differs from applying it at once", in.program,
                        &allocated, sim::instructionById(allocated, again.inst->id));
    break;
  }
  if (auto diff = sim::simulatorDisagreement(allocated, r.exec, ref))
    fuzz::reportBug("sim", "the simulator disagrees with the interpreter", in.program, &allocated, *diff);

  // What the statistics promise: every instruction ran on one engine, no engine or queue was busy longer than
  // the run, and every transfer went through a queue.
  uint64_t per_engine = 0, transfers = 0;
  for (const sim::EngineStats& e : r.stats.engines) {
    per_engine += e.instructions;
    if (e.busy_cycles > r.stats.cycles)
      fuzz::reportBug("sim", "an engine was busy longer than the run", in.program, &allocated, statsLine(r.stats));
  }
  for (const sim::QueueStats& q : r.stats.queues) {
    transfers += q.transfers;
    if (q.busy_cycles > r.stats.cycles || q.peak_occupancy > allocated.arch.dma_ring_slots)
      fuzz::reportBug("sim", "a DMA queue exceeded the run or its ring", in.program, &allocated, statsLine(r.stats));
  }
  if (per_engine != r.stats.instructions || transfers != r.stats.engines[size_t(Engine::DMA)].instructions)
    fuzz::reportBug("sim", "instruction counts do not add up", in.program, &allocated, statsLine(r.stats));

  if (in.poison_seed % 4 == 0) {  // one input in four: determinism
    sim::SimResult again = sim::simulate(allocated, o);
    if (statsLine(again.stats) != statsLine(r.stats) || again.exec.reads != r.exec.reads)
      fuzz::reportBug("sim", "the same program simulated twice gave different results", in.program, &allocated,
                      statsLine(r.stats) + "\nthen " + statsLine(again.stats));
  }
  return 0;
}
