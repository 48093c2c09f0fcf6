// Shared by the simulator tests: the simulated run against the interpreter on the same physical storage.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/greedy_placer.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"
#include "ir/interp.h"
#include "ir/physical_storage.h"
#include "ir/program.h"
#include "sim/simulate.h"
#include "verify/timing_agreement.h"

namespace allocsim {

// Index of the first operand hash or output that differs between the two runs; -1 when they agree.
inline int64_t firstDisagreement(const InterpResult& sim, const InterpResult& ref) {
  const size_t n = std::min(sim.reads.size(), ref.reads.size());
  for (size_t i = 0; i < n; ++i)
    if (!(sim.reads[i] == ref.reads[i])) return int64_t(i);
  if (sim.reads.size() != ref.reads.size() || sim.outputs != ref.outputs || sim.steps != ref.steps) return int64_t(n);
  return -1;
}

inline InterpResult interpretPhysical(const Program& allocated, uint64_t poison_seed) {
  PhysicalStorage storage(allocated, poison_seed);
  InterpOptions o;
  return interpret(allocated, storage, o);
}

inline sim::SimResult expectSimulatorMatchesInterpreter(const Program& allocated, uint64_t poison_seed,
                                                        sim::SimOptions opts = {}) {
  opts.poison_seed = poison_seed;
  // Every simulation through here is also held against the timing oracle (unless a caller records the trace or
  // drops a dependence on purpose).
  sim::Trace trace;
  const bool timing = !opts.trace && opts.drop == sim::DropDependency::None;
  if (timing) opts.trace = &trace;
  sim::SimResult s = sim::simulate(allocated, opts);
  InterpResult ref = interpretPhysical(allocated, poison_seed);
  EXPECT_EQ(firstDisagreement(s.exec, ref), -1);
  EXPECT_GT(s.stats.cycles, 0u);
  if (timing) {
    EXPECT_EQ(verify::timingDisagreement(allocated, opts, s.stats, trace), "");
  }
  return s;
}

}  // namespace allocsim

namespace allocsim {

// The first timing difference between two runs of the same program ("" when none): cycles, per-engine and
// per-queue statistics, stall cycles by cause, the stall pairs, and the two traces slice by slice.
inline std::string timingDifference(const sim::SimResult& a, const sim::Trace& ta, const sim::SimResult& b,
                                    const sim::Trace& tb) {
  const sim::SimStats &x = a.stats, &y = b.stats;
  if (x.cycles != y.cycles) return "cycles " + std::to_string(x.cycles) + " vs " + std::to_string(y.cycles);
  if (x.instructions != y.instructions || x.loop_iterations != y.loop_iterations ||
      x.sequencer_busy_cycles != y.sequencer_busy_cycles || a.exec.steps != b.exec.steps)
    return "instruction or loop counts";
  for (size_t e = 0; e < sim::kEngines; ++e)
    if (x.engines[e].busy_cycles != y.engines[e].busy_cycles || x.engines[e].instructions != y.engines[e].instructions)
      return "engine " + std::to_string(e);
  if (x.queues.size() != y.queues.size()) return "queue count";
  for (size_t q = 0; q < x.queues.size(); ++q) {
    const sim::QueueStats &u = x.queues[q], &v = y.queues[q];
    if (u.bytes != v.bytes || u.descriptors != v.descriptors || u.transfers != v.transfers ||
        u.busy_cycles != v.busy_cycles || u.peak_occupancy != v.peak_occupancy)
      return "queue " + std::to_string(q);
  }
  if (x.stall_cycles != y.stall_cycles) return "stall cycles by cause";
  const auto px = x.topPairs(SIZE_MAX), py = y.topPairs(SIZE_MAX);
  if (px.size() != py.size()) return "stall pair count";
  for (size_t i = 0; i < px.size(); ++i)
    if (px[i].cause != py[i].cause || px[i].producer != py[i].producer || px[i].consumer != py[i].consumer ||
        px[i].cycles != py[i].cycles)
      return "stall pair " + std::to_string(i);
  if (ta.slices.size() != tb.slices.size()) return "trace slice count";
  for (size_t i = 0; i < ta.slices.size(); ++i) {
    const sim::TraceSlice &s = ta.slices[i], &t = tb.slices[i];
    if (s.track != t.track || s.start != t.start || s.end != t.end || s.inst != t.inst)
      return "trace slice " + std::to_string(i);
  }
  if (ta.ring_occupancy.size() != tb.ring_occupancy.size()) return "ring change count";
  for (size_t i = 0; i < ta.ring_occupancy.size(); ++i) {
    const sim::TraceCounter &s = ta.ring_occupancy[i], &t = tb.ring_occupancy[i];
    if (s.queue != t.queue || s.cycle != t.cycle || s.value != t.value) return "ring change " + std::to_string(i);
  }
  return "";
}

// The program generated on the tiny machine from `seed` (`size` statements, memory pressure 50, 75 or 100 by seed)
// as the greedy placer places it, or nothing when it does not fit (the placer does not spill: about one in ten
// fits). Placed programs for the simulator without an allocator's spill code in them.
inline std::optional<Program> greedilyPlacedGenerated(uint64_t seed, uint32_t size) {
  GenOptions g;
  g.arch = *archPreset("tiny");
  g.size = size;
  g.pressure = 50 + uint32_t(seed % 3) * 25;
  SeededChoices choices(seed);
  try {
    return placeGreedy(generateProgram(choices, g));
  } catch (const AllocError&) {
    return std::nullopt;
  }
}

// A full run and a timing-only run of `allocated`, both traced; the first timing difference ("" when none). With
// o.record_reads, also the first operand read that differs where the timing-only run computes it: every register
// load's, and every other instruction's it does not skip (a skipped one leaves its hash zero).
inline std::string timingOnlyDifference(const Program& allocated, sim::SimOptions o = {}) {
  sim::Trace full_trace, fast_trace;
  o.trace = &full_trace;
  o.timing_only = false;
  const sim::SimResult full = sim::simulate(allocated, o);
  o.trace = &fast_trace;
  o.timing_only = true;
  const sim::SimResult fast = sim::simulate(allocated, o);
  if (std::string d = timingDifference(full, full_trace, fast, fast_trace); !d.empty()) return d;
  if (!o.record_reads) return "";
  std::vector<bool> reg_load;  // by instruction id
  forEachInstruction(allocated.body, [&](const Instruction& inst) {
    if (inst.id >= reg_load.size()) reg_load.resize(inst.id + 1, false);
    reg_load[inst.id] = inst.op == Op::RegLoad;
  });
  const auto &x = full.exec.reads, &y = fast.exec.reads;
  if (x.size() != y.size()) return "operand read count";
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].inst_id != y[i].inst_id) return "operand read " + std::to_string(i) + " of another instruction";
    const bool loads = x[i].inst_id < reg_load.size() && reg_load[x[i].inst_id];
    if ((loads || y[i].hash != 0) && x[i].hash != y[i].hash)
      return std::string(loads ? "register load" : "computed operand read") + " " + std::to_string(i) + " differs";
  }
  return "";
}

}  // namespace allocsim
