// The simulator's model rules on small hand-allocated programs: every dependence class matters (dropping one from
// the scoreboard gives a run the interpreter disagrees with), independent work overlaps, stalls are named.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "alloc/alloc_error.h"
#include "ir/parse.h"
#include "sim/simulate.h"
#include "tests/common/files.h"
#include "tests/common/hazard_programs.h"
#include "tests/common/sim_checks.h"

namespace allocsim {
namespace {

// x is written by a slow load and then by a fast memset; only the WAW dependence keeps the load from landing last.
const char kWawProgram[] = R"(arch tiny
dram X [8, 512] f32 input
dram Y [8, 512] f32 output
sbuf x [8, 512] f32 @p0+0
dma x, X
memset x, 0
dma Y, x
)";

struct DropCase {
  const char* program;
  sim::DropDependency drop;
};

TEST(Sim, DroppingAnyDependenceClassGivesADetectedMismatch) {
  for (DropCase c : {DropCase{kRawProgram, sim::DropDependency::RAW}, DropCase{kWarProgram, sim::DropDependency::WAR},
                     DropCase{kWawProgram, sim::DropDependency::WAW}}) {
    const Program p = parseProgram(c.program);
    SCOPED_TRACE(int(c.drop));
    // With the full scoreboard the simulator agrees with the interpreter...
    sim::SimResult full = expectSimulatorMatchesInterpreter(p, 3);
    // ...and without the one class it does not.
    sim::SimOptions o;
    o.poison_seed = 3;
    o.drop = c.drop;
    o.timing = sim::TimingTable::forPreset(p.arch.name);
    o.timing->apply(kHazardTiming);  // the race each program is worked out with, whatever the shipped DMA model
    EXPECT_GT(full.stats.cycles, 0u);
    EXPECT_NE(firstDisagreement(sim::simulate(p, o).exec, interpretPhysical(p, 3)), -1)
        << "dropping the class went unnoticed";
  }
}

TEST(Sim, WarStallIsNamedWithItsPair) {
  const Program p = parseProgram(kWarProgram);
  sim::SimResult r = expectSimulatorMatchesInterpreter(p, 1);
  EXPECT_GT(r.stats.stall_cycles[size_t(sim::StallCause::WAR)], 0u);
  bool named = false;
  for (const sim::StallPair& s : r.stats.topPairs(100))
    if (s.cause == sim::StallCause::WAR && s.consumer->op == Op::Memset && s.producer->op == Op::Act) named = true;
  EXPECT_TRUE(named);
}

TEST(Sim, SameInputSameCycles) {
  const Program p = parseProgram(kWarProgram);
  sim::SimResult a = sim::simulate(p), b = sim::simulate(p);
  EXPECT_EQ(a.stats.cycles, b.stats.cycles);
  EXPECT_EQ(a.stats.stall_cycles, b.stats.stall_cycles);
  EXPECT_EQ(a.exec.reads, b.exec.reads);
}

// The model is elaborated once per process and serves every simulate() call (sim/simulate.cpp), so what ran before
// must not leak into a run. corpus/allocated/sim_run_order.nki.txt (a sim fuzz finding) took 3 cycles more after
// some programs than after itself while the threads started each job in the order they finished the last one.
TEST(Sim, CyclesDoNotDependOnWhatRanBefore) {
  const Program x =
      parseProgram(readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/allocated/sim_run_order.nki.txt"));
  sim::SimOptions o;
  o.timing = sim::TimingTable::defaults();
  o.timing->engine_queue_depth = 4;
  const sim::SimStats alone = sim::simulate(x, o).stats;
  uint32_t others = 0;
  for (uint64_t seed = 1; others < 30 && seed < 600; ++seed) {  // about one in ten fits the greedy placer
    std::optional<Program> placed = greedilyPlacedGenerated(seed, 24);
    if (!placed) continue;
    Program& other = *placed;
    other.arch.dma_queues = 1 + uint32_t(seed % 4);
    ++others;
    sim::simulate(other);
    const sim::SimStats again = sim::simulate(x, o).stats;
    EXPECT_EQ(again.cycles, alone.cycles) << "after generated program " << seed;
    EXPECT_EQ(again.stall_cycles, alone.stall_cycles) << "after generated program " << seed;
  }
  EXPECT_EQ(others, 30u);
}

// Cycles follow the timing table: a load then a copy on ACT, nothing else; the total is derived from the table's
// numbers by hand (docs/simulator.md "Timing": DMA fixed latency + (bytes + descriptors x overhead) / (engines used
// x bandwidth); ACT max(MIN_II, elements per partition) ACT cycles, converted to reporting cycles).
TEST(Sim, CyclesFollowTheTimingTable) {
  const Program p = parseProgram(R"(arch tiny
dram X [8, 64] f32 input
sbuf x [8, 64] f32 @p0+0
sbuf y [8, 64] f32 @p0+256
dma x, X
copy y, x
)");
  sim::SimOptions o;
  o.timing = sim::TimingTable::defaults();
  o.timing->apply("clock-ghz 1\ndma.fixed-ns 100\ndma.engines 16\ndma.engine-bytes-per-ns 2\n"
                 "dma.descriptor-overhead-bytes 64\ndma.efficiency 1\ndma.contiguous-min-bytes 0\nact.clock-ghz 0.5\n"
                 "act.fixed 10\nact.per-element 2\nact.dependent-interval 0\n");
  sim::SimResult r = sim::simulate(p, o);
  // 8 descriptors (one per SBUF partition) on one engine (8 partitions per engine): (2048 + 8 x 64) bytes at
  // 2 bytes/ns.
  const uint64_t dma = 100 + (8 * 64 * 4 + 8 * 64) / (1 * 2);
  const uint64_t act = 2 * (2 * 64);  // max(10, 2 x 64) ACT cycles at half the reporting clock
  EXPECT_EQ(r.stats.cycles, dma + act);
  EXPECT_EQ(r.stats.stall_cycles[size_t(sim::StallCause::RAW)], dma);
  EXPECT_EQ(r.stats.engines[size_t(Engine::ACT)].busy_cycles, act);
}

// Matmul costs max(min(64, N_stationary), N_moving) PE cycles, 4x with f32 inputs, at the PE's own clock.
TEST(Sim, MatmulFollowsTheCostFormula) {
  auto run = [](const std::string& dtype, uint32_t m, uint32_t n) {
    const std::string text = "arch gen2\nsbuf a [128, " + std::to_string(m) + "] " + dtype + " @p0+0\nsbuf b [128, " +
                             std::to_string(n) + "] " + dtype + " @p0+4096\npsum c [" + std::to_string(m) + ", " +
                             std::to_string(n) + "] f32 @bank0\nmemset a, 1.0\nmemset b, 1.0\nmatmul c, a, b, start, stop\n";
    sim::SimOptions o;
    o.timing = sim::TimingTable::defaults();
    o.timing->apply("clock-ghz 1\npe.clock-ghz 2\n");
    return sim::simulate(parseProgram(text), o).stats.engines[size_t(Engine::PE)].busy_cycles;
  };
  EXPECT_EQ(run("bf16", 128, 512), 256u);   // 512 PE cycles at 2 GHz = 256 ns
  EXPECT_EQ(run("bf16", 128, 16), 32u);     // max(min(64, 128), 16) = 64 PE cycles
  EXPECT_EQ(run("bf16", 32, 16), 16u);      // max(min(64, 32), 16) = 32 PE cycles
  EXPECT_EQ(run("f32", 128, 256), 512u);    // 4 x 256 PE cycles
}

// A full ring stalls the issuer: tiny has 2 queues of 4 slots; 12 independent loads fill both rings.
TEST(Sim, FullRingStallsTheIssuer) {
  std::string text = "arch tiny\ndram X [8, 64] f32 input\n";
  for (int i = 0; i < 12; ++i) text += "sbuf x" + std::to_string(i) + " [8, 64] f32 @p0+" + std::to_string(i * 256) + "\n";
  for (int i = 0; i < 12; ++i) text += "dma x" + std::to_string(i) + ", X\n";
  sim::SimResult r = expectSimulatorMatchesInterpreter(parseProgram(text), 1);
  EXPECT_GT(r.stats.stall_cycles[size_t(sim::StallCause::RingFull)], 0u);
  EXPECT_EQ(r.stats.queues.size(), 2u);
  EXPECT_EQ(r.stats.queues[0].peak_occupancy, 4u);
  EXPECT_EQ(r.stats.queues[0].transfers + r.stats.queues[1].transfers, 12u);
}

TEST(Sim, RuntimeErrorsAreInputErrorsAndTheModelKeepsWorking) {
  // The loop drives the offset past the tensor's end on its second iteration.
  const Program bad = parseProgram(R"(arch tiny
dram X [8, 64] f32 input
sbuf x [8, 64] f32 @p0+0
reg n @r0
loop n = 0, 3, 1 {
  dma x[:, 0:32], X[:, n*40:32]
}
)");
  EXPECT_THROW(sim::simulate(bad), InputError);
  // The next job on the same elaborated model runs normally.
  expectSimulatorMatchesInterpreter(parseProgram(kRawProgram), 5);
}

}  // namespace
}  // namespace allocsim
