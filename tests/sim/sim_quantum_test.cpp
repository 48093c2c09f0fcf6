// Temporal decoupling (SimOptions::quantum, sim/shared.h) must not change a result: every unit decides on cycles
// decided before, never on SystemC time, so a run in which every unit waits out every instruction (quantum 0: the
// values move at their cycles, in model-time order) and runs in which they run ahead by any amount give the same
// cycles, busy time, queue figures, stalls with their pairs, trace slices, ring occupancy, outputs and operand
// hashes. Checked on the tiny corpus kernels at -O2 and on generated programs with few queue slots and short
// engine queues (many stalls of every kind).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/parse.h"
#include "sim/simulate.h"
#include "tests/common/files.h"
#include "tests/common/sim_checks.h"

namespace allocsim {
namespace {

// Everything a run reports, as text (instructions by id: the same program object is simulated every time).
std::string runSummary(const Program& p, const sim::SimOptions& base, uint64_t quantum) {
  sim::Trace trace;
  sim::SimOptions o = base;
  o.quantum = quantum;
  o.trace = &trace;
  const sim::SimResult r = sim::simulate(p, o);
  std::ostringstream s;
  auto id = [](const Instruction* i) { return i ? int64_t(i->id) : int64_t(-1); };
  s << "cycles " << r.stats.cycles << " instructions " << r.stats.instructions << " iterations "
    << r.stats.loop_iterations << " seq " << r.stats.sequencer_busy_cycles << "\n";
  for (const sim::EngineStats& e : r.stats.engines) s << "engine " << e.instructions << " " << e.busy_cycles << "\n";
  for (const sim::QueueStats& q : r.stats.queues)
    s << "queue " << q.transfers << " " << q.bytes << " " << q.descriptors << " " << q.busy_cycles << " "
      << q.peak_occupancy << "\n";
  for (uint64_t c : r.stats.stall_cycles) s << "stall " << c << "\n";
  for (const sim::StallPair& sp : r.stats.topPairs(1000))
    s << "pair " << int(sp.cause) << " " << id(sp.producer) << " " << id(sp.consumer) << " " << sp.cycles << "\n";
  for (const sim::TraceSlice& t : trace.slices)
    s << "slice " << t.track << " " << t.start << " " << t.end << " " << id(t.inst) << "\n";
  for (const sim::TraceCounter& c : trace.ring_occupancy)
    s << "ring " << c.queue << " " << c.cycle << " " << c.value << "\n";
  for (const std::vector<uint8_t>& out : r.exec.outputs) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a of the output's bytes
    for (uint8_t b : out) h = (h ^ b) * 1099511628211ULL;
    s << "output " << out.size() << " " << h << "\n";
  }
  for (const OperandRead& read : r.exec.reads) s << "read " << read.inst_id << " " << read.hash << "\n";
  return s.str();
}

void expectQuantumDoesNotMatter(const Program& p, const sim::SimOptions& base) {
  const std::string step_by_step = runSummary(p, base, 0);
  for (uint64_t quantum : {uint64_t(1), uint64_t(97), uint64_t(10'000), sim::SimOptions{}.quantum, UINT64_MAX}) {
    SCOPED_TRACE("quantum " + std::to_string(quantum));
    EXPECT_EQ(runSummary(p, base, quantum), step_by_step);
  }
}

TEST(SimQuantum, TinyCorpusKernelsGiveTheSameRunAtEveryQuantum) {
  int kernels = 0, gen2 = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels")) {
    const std::string name = entry.path().filename().string();
    gen2 += name.ends_with(".nki.txt") && !name.ends_with("_tiny.nki.txt");
    if (name.find("_tiny.nki.txt") == std::string::npos) continue;
    DriverOptions d;
    d.optlevel = 2;
    const Program allocated = allocate(parseProgram(readFile(entry.path())), d).program;
    SCOPED_TRACE(name);
    expectQuantumDoesNotMatter(allocated, sim::SimOptions{});
    ++kernels;
  }
  EXPECT_GT(kernels, 0);
  EXPECT_EQ(kernels, gen2);  // every gen2 kernel has its tiny twin
}

TEST(SimQuantum, GeneratedProgramsWithShortQueuesGiveTheSameRunAtEveryQuantum) {
  uint32_t programs = 0;
  // Most generated programs do not fit the greedy placer (no spilling): about one in ten does.
  for (uint64_t seed = 1; programs < 25 && seed < 800; ++seed) {
    std::optional<Program> placed = greedilyPlacedGenerated(seed, 30);
    if (!placed) continue;
    Program& p = *placed;
    p.arch.dma_queues = 1 + uint32_t(seed % 3);
    p.arch.dma_ring_slots = 1 + uint32_t(seed % 2);
    sim::SimOptions o;
    o.timing = sim::TimingTable::forPreset(p.arch.name);
    o.timing->engine_queue_depth = 1 + uint32_t(seed % 4);
    SCOPED_TRACE("generated program " + std::to_string(seed));
    expectQuantumDoesNotMatter(p, o);
    ++programs;
  }
  EXPECT_EQ(programs, 25u);
}

}  // namespace
}  // namespace allocsim
