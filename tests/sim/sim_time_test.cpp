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

namespace allocsim {
namespace {

std::string replaceOnce(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' in the program");
  return s.replace(at, from.size(), to);
}

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

TEST(SimTime, DoubleBufferedRunsFasterThanOneAddress) {
  const Program two = parseProgram(kTiles);
  const Program one = parseProgram(replaceOnce(kTiles, "sbuf b [8, 128] f32 @p0+512", "sbuf b [8, 128] f32 @p0+0"));
  sim::SimResult fast = expectSimulatorMatchesInterpreter(two, 1);
  sim::SimResult slow = expectSimulatorMatchesInterpreter(one, 1);
  EXPECT_LT(fast.stats.cycles, slow.stats.cycles);
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
  const Program two = parseProgram(kBanks);
  const Program one = parseProgram(replaceOnce(kBanks, "psum p2 [8, 64] f32 @bank1", "psum p2 [8, 64] f32 @bank0"));
  sim::SimResult fast = expectSimulatorMatchesInterpreter(two, 1);
  sim::SimResult slow = expectSimulatorMatchesInterpreter(one, 1);
  EXPECT_LT(fast.stats.cycles, slow.stats.cycles);
  // One bank: PE's matmul into p2 waits for ACT still draining p1 from the same bank; on two banks it never does.
  auto p2WaitsForP1 = [](const Program& p, const sim::SimStats& s) {
    const TensorId p1 = p.findTensor("p1"), p2 = p.findTensor("p2");
    for (const sim::StallPair& pair : s.topPairs(1000))
      if (pair.cause == sim::StallCause::WAR && pair.consumer->op == Op::Matmul && pair.consumer->dst.tensor == p2 &&
          pair.producer && pair.producer->op == Op::Copy && pair.producer->a.tensor == p1)
        return true;
    return false;
  };
  EXPECT_TRUE(p2WaitsForP1(one, slow.stats));
  EXPECT_FALSE(p2WaitsForP1(two, fast.stats));
}

}  // namespace
}  // namespace allocsim
