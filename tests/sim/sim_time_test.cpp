// Allocation shows in time: the same kernel, allocated two ways that are both correct, runs at
// different speeds because of the false dependences one allocation creates, and the simulator names them.
//   - double buffering: the two input tiles on two addresses let the second load overlap the first tile's work;
//     on one address the load must wait for the activation still reading it (WAR);
//   - PSUM banks: two accumulators on two banks let PE fill one while ACT drains the other; on one bank PE waits
//     for ACT (WAR) and ACT for PE (RAW), so they take turns.
// Each pair is also checked against the interpreter (both allocations compute the right thing).
#include <gtest/gtest.h>

#include <string>

#include "ir/parse.h"
#include "sim/simulate.h"
#include "tests/common/sim_checks.h"
#include "tests/common/program_text.h"

namespace allocsim {
namespace {

const char kTiles[] = R"(arch tiny
dram X [8, 1024] f32 input
dram Y [8, 1024] f32 output
sbuf a [8, 128] f32 @p0+0
sbuf b [8, 128] f32 @p0+512
sbuf ya [8, 128] f32 @p0+1024
sbuf yb [8, 128] f32 @p0+1536
reg n @r0
loop n = 0, 4, 1 {
  dma a, X[:, n*256:128]
  act ya, a, relu
  dma b, X[:, n*256+128:128]
  act yb, b, relu
  dma Y[:, n*256:128], ya
  dma Y[:, n*256+128:128], yb
}
)";

bool hasPair(const sim::SimStats& s, sim::StallCause cause, Op consumer, Op producer) {
  for (const sim::StallPair& p : s.topPairs(1000))
    if (p.cause == cause && p.consumer->op == consumer && p.producer && p.producer->op == producer) return true;
  return false;
}

// A program whose two tensors have places of their own (`two`) and the same with one moved onto the other's
// (`one`: `separate` replaced by `shared`), each simulated and held against the interpreter; the separate places
// must run in fewer cycles.
struct SeparateAndShared {
  Program two, one;
  sim::SimResult fast, slow;
};
SeparateAndShared separateAndShared(const char* text, const std::string& separate, const std::string& shared) {
  SeparateAndShared r{parseProgram(text), parseProgram(replaced(text, separate, shared)), {}, {}};
  r.fast = expectSimulatorMatchesInterpreter(r.two, 1);
  r.slow = expectSimulatorMatchesInterpreter(r.one, 1);
  EXPECT_LT(r.fast.stats.cycles, r.slow.stats.cycles);
  return r;
}

TEST(SimTime, DoubleBufferedRunsFasterThanOneAddress) {
  const SeparateAndShared r = separateAndShared(kTiles, "sbuf b [8, 128] f32 @p0+512", "sbuf b [8, 128] f32 @p0+0");
  const sim::SimResult &fast = r.fast, &slow = r.slow;
  // The single address's cost is named: the load into b waits for the activation still reading a.
  EXPECT_GT(slow.stats.stall_cycles[size_t(sim::StallCause::WAR)], fast.stats.stall_cycles[size_t(sim::StallCause::WAR)]);
  EXPECT_TRUE(hasPair(slow.stats, sim::StallCause::WAR, Op::Dma, Op::Act));
  EXPECT_FALSE(hasPair(fast.stats, sim::StallCause::WAR, Op::Dma, Op::Act));
}

const char kBanks[] = R"(arch tiny
dram W [8, 8] f32 input
dram X [8, 256] f32 input
dram Y [8, 256] f32 output
sbuf w [8, 8] f32 @p0+0
sbuf x [8, 256] f32 @p0+32
sbuf y [8, 256] f32 @p0+1056
psum p1 [8, 64] f32 @bank0
psum p2 [8, 64] f32 @bank1
reg n @r0
dma w, W
dma x, X
loop n = 0, 2, 1 {
  matmul p1, w, x[:, n*128:64], start, stop
  copy y[:, n*128:64], p1
  matmul p2, w, x[:, n*128+64:64], start, stop
  copy y[:, n*128+64:64], p2
}
dma Y, y
)";

TEST(SimTime, SeparatePsumBanksLetPeAndActOverlap) {
  const SeparateAndShared r = separateAndShared(kBanks, "psum p2 [8, 64] f32 @bank1", "psum p2 [8, 64] f32 @bank0");
  // One bank: PE's matmul into p2 waits for ACT still draining p1 from the same bank; on two banks it never does.
  auto p2WaitsForP1 = [](const Program& p, const sim::SimStats& s) {
    const TensorId p1 = p.findTensor("p1"), p2 = p.findTensor("p2");
    for (const sim::StallPair& pair : s.topPairs(1000))
      if (pair.cause == sim::StallCause::WAR && pair.consumer->op == Op::Matmul && pair.consumer->dst.tensor == p2 &&
          pair.producer && pair.producer->op == Op::Copy && pair.producer->a.tensor == p1)
        return true;
    return false;
  };
  EXPECT_TRUE(p2WaitsForP1(r.one, r.slow.stats));
  EXPECT_FALSE(p2WaitsForP1(r.two, r.fast.stats));
}

// Shared access ports (docs/simulator.md "Shared ports"): on NeuronCore-v2 a DVE instruction that accesses SBUF
// waits for the end of the youngest older POOL instruction that does, and a DVE or ACT instruction that accesses PSUM
// for the other's. Costs on the tiny machine's [8, 64] f32 tiles at the default table: memset on POOL 150 + 64 = 214
// cycles; ts on DVE max(64, 64) DVE cycles at 1.12 GHz = ceil(64 x 1.4 / 1.12) = 80; copy on ACT 64.
const char kSbufPort[] = R"(arch tiny
sbuf a [8, 64] f32 @p0+0
sbuf b [8, 64] f32 @p0+256
sbuf c [8, 64] f32 @p0+512
memset a, 1.0
memset b, 2.0
ts c, a, 2.0, mul
)";

const char kPsumPort[] = R"(arch tiny
sbuf s [8, 64] f32 @p0+0
sbuf t [8, 64] f32 @p0+256
psum p1 [8, 64] f32 @bank0
psum p2 [8, 64] f32 @bank1
memset s, 1.0
ts p1, s, 2.0, mul
ts p2, s, 3.0, mul
copy t, p1
)";

sim::SimOptions withPorts(bool sbuf, bool psum) {
  sim::SimOptions o;
  o.timing = sim::TimingTable::defaults();
  o.timing->port_dve_pool_sbuf = sbuf;
  o.timing->port_dve_act_psum = psum;
  // The ports alone: results complete at the end of their cost.
  o.timing->act_dependent_interval = o.timing->dve_dependent_interval = 0;
  return o;
}

TEST(SimTime, DveWaitsForPoolOnTheSharedSbufPort) {
  const Program p = parseProgram(kSbufPort);
  // Without the port the ts starts when memset a ends (214) and ends at 294, before memset b (428).
  EXPECT_EQ(expectSimulatorMatchesInterpreter(p, 1, withPorts(false, false)).stats.cycles, 214u + 214u);
  // With it the ts waits for memset b, the youngest older POOL instruction on SBUF: 428 + 80.
  const sim::SimResult r = expectSimulatorMatchesInterpreter(p, 1, withPorts(true, false));
  EXPECT_EQ(r.stats.cycles, 428u + 80u);
  // Its whole wait from 0 (DVE free) is charged to the dependence that bound it, the port.
  EXPECT_EQ(r.stats.stall_cycles[size_t(sim::StallCause::Port)], 428u);
  EXPECT_TRUE(hasPair(r.stats, sim::StallCause::Port, Op::TS, Op::Memset));
  // The PSUM port does not concern POOL.
  EXPECT_EQ(expectSimulatorMatchesInterpreter(p, 1, withPorts(false, true)).stats.cycles, 428u);
}

TEST(SimTime, ActWaitsForDveOnTheSharedPsumPort) {
  const Program p = parseProgram(kPsumPort);
  // memset s 0..214, ts p1 214..294, ts p2 294..374; the copy reads p1 from 294 to 358 without the port.
  EXPECT_EQ(expectSimulatorMatchesInterpreter(p, 1, withPorts(true, false)).stats.cycles, 374u);
  // With it the copy waits for ts p2 (the youngest older DVE instruction on PSUM): 374 + 64.
  const sim::SimResult r = expectSimulatorMatchesInterpreter(p, 1, withPorts(true, true));
  EXPECT_EQ(r.stats.cycles, 374u + 64u);
  EXPECT_EQ(r.stats.stall_cycles[size_t(sim::StallCause::Port)], 374u);  // from 0 (ACT free), bound by the port
  EXPECT_TRUE(hasPair(r.stats, sim::StallCause::Port, Op::Copy, Op::TS));
  // The default (NeuronCore-v2) table serializes both ports; there each ts's result completes a DVE dependent
  // interval after its start (164 DVE cycles: 205), and ACT's 264 after the copy's start: p2 completes at
  // 294 + 205 = 499, the copy runs from 499 and completes at 499 + 264.
  EXPECT_EQ(expectSimulatorMatchesInterpreter(p, 1).stats.cycles, 499u + 264u);
}

}  // namespace
}  // namespace allocsim
