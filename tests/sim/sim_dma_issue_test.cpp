// The DMA issue rule (docs/simulator.md "The model", sim/dma_issuer.h): transfers are triggered in program order from
// one instruction stream, as the Sync engine triggers a kernel's loads and stores, so a transfer waiting for its
// dependences holds back the later ones, even an independent one bound for another queue; each queue then serves
// its ring in order. Cycles derived by hand from the timing table below.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ir/parse.h"
#include "sim/simulate.h"

namespace allocsim {
namespace {

// Reporting clock 1 GHz; a transfer costs dma.fixed-ns after its issue, then its bytes at 2 bytes/ns on each engine
// it uses (one per 8 partitions) and a share of the 16 engines' fabric; no descriptor overhead. ACT: max(10, N).
sim::TimingTable table() {
  sim::TimingTable t = sim::TimingTable::defaults();
  t.apply("clock-ghz 1\ndma.fixed-ns 100\ndma.engines 16\ndma.partitions-per-engine 8\ndma.engine-bytes-per-ns 2\n"
          "dma.descriptor-overhead-bytes 0\ndma.efficiency 1\ndma.contiguous-min-bytes 0\ndma.convert-fixed 0\n"
          "act.clock-ghz 1\nact.fixed 10\nact.per-element 1\nact.dependent-interval 0\nsp.clock-ghz 1\n");
  return t;
}

// x is loaded, copied to y (ACT reads x), then reloaded: the reload must wait for the copy to have read x (WAR). The
// load of z after it depends on nothing.
const char kBlockedReload[] = R"(arch tiny
dram X [8, 64] f32 input
dram Z [8, 64] f32 input
sbuf x [8, 64] f32 @p0+0
sbuf y [8, 64] f32 @p0+256
sbuf z [8, 64] f32 @p0+512
dma x, X
copy y, x
dma x, X
dma z, Z
)";

struct Span {
  uint32_t track;
  uint64_t start, end;
  auto operator<=>(const Span&) const = default;
};

// The slices of the engines and the DMA queues, by start: not the issuer's track (its waits, not the transfers) nor
// the sequencer's.
std::vector<Span> spans(const sim::Trace& trace) {
  std::vector<Span> out;
  for (const sim::TraceSlice& s : trace.slices)
    if (s.track != 5 && s.track != 6) out.push_back({s.track, s.start, s.end});
  std::sort(out.begin(), out.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  return out;
}

TEST(SimDmaIssue, ABlockedTransferHoldsBackTheLaterIndependentOne) {
  sim::Trace trace;
  sim::SimOptions o;
  o.timing = table();
  o.trace = &trace;
  const sim::SimResult r = sim::simulate(parseProgram(kBlockedReload), o);
  // Each transfer moves 8 x 64 x 4 = 2048 bytes over 8 partitions: one engine, 2048 / 2 = 1024 cycles on its queue,
  // 2048 / (16 x 2) = 64 cycles of fabric.
  // dma x (queue 0): issued at 0, window from 100, ends 1124. copy (ACT): starts at 1124, max(10, 64) = 64: 1188.
  // dma x again (queue 1): waits for the copy's read of x, issued at 1188, window from 1288 (the fabric is free),
  // ends 2312. dma z (queue 0): ready at 0, but triggered after the reload, so issued at 1188 too; its window
  // starts after the reload's on the fabric, 1288 + 64 = 1352, and after the end of queue 0's previous transfer
  // (1124): it ends 1352 + 1024 = 2376.
  const std::vector<Span> want = {{7, 100, 1124}, {1, 1124, 1188}, {8, 1288, 2312}, {7, 1352, 2376}};
  EXPECT_EQ(spans(trace), want);
  EXPECT_EQ(r.stats.cycles, 2376u);
  // The reload's wait is a WAR stall from its dispatch (0) to the copy's end; z's wait behind it is no dependence.
  EXPECT_EQ(r.stats.stall_cycles[size_t(sim::StallCause::WAR)], 1188u);
}

}  // namespace
}  // namespace allocsim
