// The SBUF colorer keeps a tensor off the bytes a tensor freed earlier in the same loop iteration when that costs no
// SBUF bytes (alloc/sbuf/sbuf_recent_bytes.h): the selection it starts from, the move, the cases where nothing
// moves, and the default allocation of a kernel whose store is still reading a tile when the next one is computed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "alloc/driver.h"
#include "alloc/first_fit.h"
#include "alloc/liveness.h"
#include "alloc/sbuf/sbuf_allocator.h"
#include "alloc/sbuf/sbuf_costs.h"
#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/sbuf/sbuf_recent_bytes.h"
#include "alloc/sbuf/sbuf_select.h"
#include "ir/parse.h"
#include "sim/simulate.h"
#include "sim/stats.h"
#include "tests/common/files.h"
#include "tests/common/verify_checks.h"
#include "verify/memory_bounds.h"

namespace allocsim {
namespace {

// tiny: 8 partitions of 4096 bytes; every tensor is [8, 256] f32, 1024 bytes per partition. In each iteration `a`
// and `d` are loaded, `b = a + d` is stored (its last reader: the store), then `c = a * a` is written and stored.
// a interferes with b, c and d; d with b; c with neither b nor d, whose ranges end before c's starts.
std::string program(bool with_d, bool in_loop) {
  std::string t = "arch tiny\ndram X [8, 256] f32 input\ndram Y [8, 256] f32 output\ndram Z [8, 256] f32 output\n";
  t += "sbuf a [8, 256] f32\nsbuf b [8, 256] f32\nsbuf c [8, 256] f32\n";
  if (with_d) t += "sbuf d [8, 256] f32\n";
  t += in_loop ? "reg i\nloop i = 0, 4, 1 {\n" : "";
  t += "dma a, X\n";
  t += with_d ? "dma d, X\ntt b, a, d, add\n" : "tt b, a, a, add\n";
  t += "dma Y, b\ntt c, a, a, mul\ndma Z, c\n";
  t += in_loop ? "}\n" : "";
  return t;
}

struct Selected {
  Program p;
  Liveness live;
  SbufGraph g;
  SbufSelection sel;
  uint32_t node(const char* name) const { return g.node_of[p.findTensor(name)]; }
  SbufRect rect(const char* name) const {
    const uint32_t i = node(name);
    return {sel.at[i]->partition, g.nodes[i].partitions, sel.at[i]->offset, g.nodes[i].bytes};
  }
};

// First fit in the order of `names` (those the program declares), the first colored first.
Selected selectInOrder(const std::string& text, std::vector<const char*> names) {
  Selected s{parseProgram(text), {}, {}, {}};
  s.live = computeLiveness(s.p);
  s.g = buildSbufGraph(s.p, s.live);
  findSbufCosts(s.p, s.live, {}, s.g);
  std::vector<uint32_t> stack;  // popped from the back
  for (auto it = names.rbegin(); it != names.rend(); ++it)
    if (s.p.findTensor(*it) != kNone) stack.push_back(s.node(*it));
  s.sel = selectSbuf(s.p, s.g, stack, SbufPolicy::FirstFit);
  return s;
}

// First fit in the order a, b, (d,) c: c goes to the lowest bytes a leaves free, b's.
Selected selectInOrder(const std::string& text) { return selectInOrder(text, {"a", "b", "d", "c"}); }

TEST(SbufRecentBytes, ATensorLeavesTheBytesOfTheStoreJustIssuedForOnesFreedEarlierInTheIteration) {
  Selected s = selectInOrder(program(true, true));
  ASSERT_TRUE(s.sel.failed.empty());
  // a at 0, b at 1024, d (beside a and b) at 2048; c, interfering only with a, first fits onto b's bytes.
  ASSERT_EQ(s.rect("c").offset, 1024u);
  ASSERT_TRUE(overlaps(s.rect("c"), s.rect("b")));
  const uint64_t footprint = s.sel.footprint;
  EXPECT_EQ(footprint, 8u * 3072u);  // a, b and d are live together at `tt b`

  // b (its store) and d (its last read, `tt b`) both ended in this iteration; no place under the 3072-byte ceiling
  // avoids both and a, so c keeps off the latest alone, b: it takes d's bytes.
  EXPECT_EQ(keepRecentBytesApart(s.p, s.g, s.live.order, SbufPolicy::FirstFit, SbufCeiling::Partition, s.sel), 1u);
  scoreSbufSelection(s.p, s.g, s.sel);
  EXPECT_EQ(s.rect("c").offset, 2048u);
  EXPECT_FALSE(overlaps(s.rect("c"), s.rect("b")));
  EXPECT_FALSE(overlaps(s.rect("c"), s.rect("a")));
  EXPECT_EQ(s.sel.footprint, footprint);
}

TEST(SbufRecentBytes, NothingMovesWhenEveryOtherPlaceWouldCostBytes) {
  Selected s = selectInOrder(program(false, true));
  ASSERT_EQ(s.rect("c").offset, 1024u);  // on b's bytes; the ceiling is 2048 and a holds 0
  EXPECT_EQ(keepRecentBytesApart(s.p, s.g, s.live.order, SbufPolicy::FirstFit, SbufCeiling::Partition, s.sel), 0u);
  EXPECT_EQ(s.rect("c").offset, 1024u);
}

TEST(SbufRecentBytes, NothingMovesOutsideLoops) {
  Selected s = selectInOrder(program(true, false));
  ASSERT_EQ(s.rect("c").offset, 1024u);
  EXPECT_EQ(keepRecentBytesApart(s.p, s.g, s.live.order, SbufPolicy::FirstFit, SbufCeiling::Partition, s.sel), 0u);
  EXPECT_EQ(s.rect("c").offset, 1024u);
}

// tiny, in a loop: a, b, d and e ([8, 256] f32, 1024 bytes per partition) are loaded and live together, then stored
// in the order e, d, b (their last reads), then c = a * a is written and stored. Select in the order a, b, d, e puts
// them at 0, 1024, 2048 and 3072 (the whole partition), and c, interfering only with a, first fits onto b's bytes.
std::string fourStores() {
  return "arch tiny\ndram X [8, 256] f32 input\n"
         "dram Y [8, 256] f32 output\ndram Z [8, 256] f32 output\ndram W [8, 256] f32 output\n"
         "dram V [8, 256] f32 output\n"
         "sbuf a [8, 256] f32\nsbuf b [8, 256] f32\nsbuf c [8, 256] f32\nsbuf d [8, 256] f32\nsbuf e [8, 256] f32\n"
         "reg i\nloop i = 0, 4, 1 {\n"
         "dma a, X\ndma b, X\ndma d, X\ndma e, X\ndma Z, e\ndma W, d\ndma Y, b\ntt c, a, a, mul\ndma V, c\n}\n";
}

TEST(SbufRecentBytes, ATensorTakesTheBytesWhoseOccupantWasReadLongestAgo) {
  Selected s = selectInOrder(fourStores(), {"a", "b", "d", "e", "c"});
  ASSERT_TRUE(s.sel.failed.empty());
  ASSERT_EQ(s.rect("c").offset, 1024u);  // b's bytes: b's store is the instruction just before c's write
  ASSERT_EQ(s.rect("e").offset, 3072u);
  // Every byte below the ceiling (4096) is a's or was b's, d's or e's; e's store is the oldest of the three reads.
  EXPECT_EQ(keepRecentBytesApart(s.p, s.g, s.live.order, SbufPolicy::FirstFit, SbufCeiling::Partition, s.sel), 1u);
  EXPECT_EQ(s.rect("c").offset, 3072u);
}

// tiny (partitions start at multiples of 4), in a loop: a and b are [8, 256] f32 and s1, s2 one partition of 256 f32
// (1024 bytes per partition each). a, b and s1 are live together; b and s1 are stored, then s2 is loaded and stored,
// and a last. Select in the order a, b, s1 puts them at p0+0, p0+1024, p0+2048: partition 0 reaches 3072 bytes, the
// others 2048; s2, interfering only with a, first fits onto b's bytes.
std::string shortTensors() {
  return "arch tiny\ndram X [8, 256] f32 input\ndram S [1, 256] f32 input\n"
         "dram Y [8, 256] f32 output\ndram V [8, 256] f32 output\ndram Z [1, 256] f32 output\n"
         "dram W [1, 256] f32 output\n"
         "sbuf a [8, 256] f32\nsbuf b [8, 256] f32\nsbuf s1 [1, 256] f32\nsbuf s2 [1, 256] f32\n"
         "reg i\nloop i = 0, 4, 1 {\n"
         "dma a, X\ndma b, X\ndma s1, S\ndma Y, b\ndma Z, s1\ndma s2, S\ndma W, s2\ndma V, a\n}\n";
}

TEST(SbufRecentBytes, WithinThePeakAShortTensorMovesToPartitionsTheTallOnesLeaveFree) {
  Selected s = selectInOrder(shortTensors(), {"a", "b", "s1", "s2"});
  ASSERT_TRUE(s.sel.failed.empty());
  ASSERT_EQ(s.rect("s2").partition, 0u);
  ASSERT_EQ(s.rect("s2").offset, 1024u);
  const uint64_t footprint = s.sel.footprint;
  EXPECT_EQ(footprint, 3072u + 7u * 2048u);

  // Per partition's mark, partition 0 is full and the others end at 2048: s2 already avoids s1, the nearest.
  EXPECT_EQ(keepRecentBytesApart(s.p, s.g, s.live.order, SbufPolicy::FirstFit, SbufCeiling::Partition, s.sel), 0u);
  // Below the peak (3072 on every partition), bytes 2048-3071 of partitions 4-7 were nobody's.
  EXPECT_EQ(keepRecentBytesApart(s.p, s.g, s.live.order, SbufPolicy::FirstFit, SbufCeiling::Peak, s.sel), 1u);
  scoreSbufSelection(s.p, s.g, s.sel);
  EXPECT_EQ(s.rect("s2").partition, 4u);
  EXPECT_EQ(s.rect("s2").offset, 2048u);
  EXPECT_EQ(s.sel.footprint, footprint + 1024u);  // one partition's mark rises to the peak
}

TEST(SbufRecentBytes, TheDefaultAllocationOfShortTensorsIsCorrectAndKeepsThePeak) {
  const Program p = parseProgram(shortTensors());
  const Program q = allocate(p, DriverOptions{}).program;
  expectCorrectAllocation(p, q, "shortTensors at -O2", 1);
  uint64_t peak = 0;
  for (const Tensor& t : q.tensors)
    if (t.space == Space::Sbuf && t.placement) peak = std::max(peak, t.placement->offset + t.bytesPerPartition());
  EXPECT_EQ(peak, 3072u);  // a, b and s1 live together on partition 0
}

// The declared tensor whose value a tensor of an allocated program holds.
TensorId declared(const Program& q, TensorId t) {
  while (t != kNone && q.tensors[t].copy_of != kNone) t = q.tensors[t].copy_of;
  return t;
}

// The instructions inside the loops of `body`, nested ones included.
void collectInLoops(const std::vector<Instruction>& body, bool in_loop, std::set<const Instruction*>& out) {
  for (const Instruction& inst : body) {
    if (in_loop) out.insert(&inst);
    collectInLoops(inst.body, in_loop || inst.op == Op::Loop, out);
  }
}

// Load headroom (keepLoadsApart). tiny: 8 partitions of 4096 bytes; a, b and w are [8, 256] f32, 1024 bytes per
// partition. In each iteration a is loaded and last read by `tt b`, then w is loaded and read with b. By hand: a and
// b are live together at `tt b`, b and w from w's load to `tt b, b, w` (2048 bytes per partition either way, the
// max-live); w interferes only with b. First fit puts a at 0, b at 1024 and w on a's bytes, and within the peak
// (2048) every other byte is b's. Both are loads onto bytes read shortly before: a onto w's, which the iteration
// before read in its `tt b, b, w` (around the back edge), w onto a's, just read by `tt b`. The pass takes the loads in
// the order of their first positions: a first, which moves above the peak, to 2048, when the limit is 3072 bytes
// (50% over the max-live) but not 3071; then w shares bytes with no recent occupant and stays.
TEST(SbufRecentBytes, ALoadMovesAboveThePeakOffTheBytesJustReadWhenTheHeadroomHoldsIt) {
  const std::string text =
      "arch tiny\ndram X [8, 256] f32 input\ndram W [8, 256] f32 input\ndram Y [8, 256] f32 output\n"
      "sbuf a [8, 256] f32\nsbuf b [8, 256] f32\nsbuf w [8, 256] f32\nreg i\n"
      "loop i = 0, 4, 1 {\n  dma a, X\n  tt b, a, a, add\n  dma w, W\n  tt b, b, w, add\n  dma Y, b\n}\n";
  Selected s = selectInOrder(text, {"a", "b", "w"});
  ASSERT_TRUE(s.sel.failed.empty());
  ASSERT_EQ(s.rect("a").offset, 0u);
  ASSERT_EQ(s.rect("b").offset, 1024u);
  ASSERT_EQ(s.rect("w").offset, 0u);
  EXPECT_EQ(loadHeadroomLimit(s.p.arch, s.g, 50), 3072u);  // 2048 over 8 partitions' area, 50% more
  // Within the peak nothing better exists: the rotation leaves both where they are.
  EXPECT_EQ(keepRecentBytesApart(s.p, s.g, s.live.order, SbufPolicy::FirstFit, SbufCeiling::Peak, s.sel), 0u);
  EXPECT_EQ(keepLoadsApart(s.p, s.g, s.live.order, SbufPolicy::FirstFit, 3071, s.sel), 0u);
  EXPECT_EQ(s.rect("a").offset, 0u);
  EXPECT_EQ(keepLoadsApart(s.p, s.g, s.live.order, SbufPolicy::FirstFit, 3072, s.sel), 1u);
  EXPECT_EQ(s.rect("a").offset, 2048u);
  EXPECT_EQ(s.rect("a").partition, 0u);
  EXPECT_EQ(s.rect("w").offset, 0u);
  EXPECT_EQ(s.rect("b").offset, 1024u);  // b is no load

  // Through the colorer: the option's percentage of the max-live is the limit (50% of 2048 bytes: one of the two
  // loads moves above the peak, a and w share no byte and the peak is 3072; 49%: both stay within 2048, on the same
  // bytes). Through the driver too, whose allocation the oracles check.
  for (const uint32_t pct : {49u, 50u}) {
    SbufOptions o;
    o.load_headroom_pct = pct;
    const SbufResult r = allocateSbuf(parseProgram(text), o);
    auto rect = [&](const char* name) {
      const Tensor& t = r.program.tensors[r.program.findTensor(name)];
      return SbufRect{t.placement->partition, t.partitions, t.placement->offset, t.bytesPerPartition()};
    };
    EXPECT_EQ(!overlaps(rect("a"), rect("w")), pct == 50u) << pct;
    EXPECT_EQ(r.stats.headroom_bytes, pct == 50u ? 8u * 1024u : 0u) << pct;
    DriverOptions d;
    d.sbuf_load_headroom_pct = pct;
    const Program q = allocate(parseProgram(text), d).program;
    EXPECT_EQ(memoryUse(q).sbuf_peak, pct == 50u ? 3072u : 2048u) << pct;
    expectCorrectAllocation(parseProgram(text), q, std::to_string(pct) + "%", 1);
  }
}

// The headroom's limit counts a tensor on some partitions on those only. tiny: 8 partitions of 4096 bytes; z is
// [8, 256] f32 (1024 bytes on every partition), loaded before the loop and stored after it; a, b and w are [4, 256]
// f32 (1024 bytes on 4 partitions), as in the test above. By hand: the most live at once is z with a and b, or z
// with b and w: 8 x 1024 + 2 x 4 x 1024 = 16384 bytes of area, 2048 per partition over the 8 partitions, so 10%
// over it is 2252 bytes (2048 * 110 / 100, rounded down). No placement reaches less than 2048: z takes 1024 bytes
// of every partition and a and b, live together, take 4 partitions x 1024 bytes each beside or above it. Counting
// every live tensor's bytes on every partition instead would give 3072 and a limit of 3379, room for a 1024-byte
// load above a 2048 peak.
TEST(SbufRecentBytes, TheHeadroomLimitCountsAShortTensorOnItsPartitionsOnly) {
  const std::string text =
      "arch tiny\ndram X [4, 256] f32 input\ndram W [4, 256] f32 input\ndram Y [4, 256] f32 output\n"
      "dram Z [8, 256] f32 input\ndram V [8, 256] f32 output\n"
      "sbuf z [8, 256] f32\nsbuf a [4, 256] f32\nsbuf b [4, 256] f32\nsbuf w [4, 256] f32\nreg i\n"
      "dma z, Z\nloop i = 0, 4, 1 {\n  dma a, X\n  tt b, a, a, add\n  dma w, W\n  tt b, b, w, add\n  dma Y, b\n}\n"
      "dma V, z\n";
  Selected s = selectInOrder(text, {"z", "a", "b", "w"});
  ASSERT_TRUE(s.sel.failed.empty());
  EXPECT_EQ(s.g.max_live, 16384u);
  EXPECT_EQ(loadHeadroomLimit(s.p.arch, s.g, 10), 2252u);
  EXPECT_EQ(loadHeadroomLimit(s.p.arch, s.g, 0), 2048u);
  // Through the driver at 10%: whatever moves, no byte of any partition lies above the limit.
  DriverOptions d;
  d.sbuf_load_headroom_pct = 10;
  const Program q = allocate(parseProgram(text), d).program;
  EXPECT_LE(memoryUse(q).sbuf_peak, 2252u);
  expectCorrectAllocation(parseProgram(text), q, "10%", 1);
}

// The layernorm tutorial's first kernel at its published size: in its row loop, each tile's row statistics are
// computed while the store of the tile before may still be reading its result. At -O2 no instruction of the loop
// waits for a store to finish reading (WAR) except one writing the stored tensor itself (the kernel's one output
// buffer); the last pair of tiles, peeled after the loop, is outside the rule.
TEST(SbufRecentBytes, AtO2InTheLoopOnlyTheStoredBufferItselfWaitsForAStoreInLayernorm) {
  const Program p = parseProgram(readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/bench/calibration/layernorm_v1.nki.txt"));
  const Program q = allocate(p, DriverOptions{}).program;
  std::set<const Instruction*> in_loops;
  collectInLoops(q.body, false, in_loops);
  sim::SimOptions so;
  so.timing_only = true;
  const sim::SimResult r = sim::simulate(q, so);
  uint32_t stores_waited_for = 0;
  for (const sim::StallPair& pair : r.stats.topPairs(SIZE_MAX)) {
    if (pair.cause != sim::StallCause::WAR || !pair.producer || pair.producer->op != Op::Dma ||
        q.tensors[pair.producer->dst.tensor].space != Space::Dram || !in_loops.count(pair.consumer))
      continue;
    ++stores_waited_for;
    EXPECT_EQ(declared(q, pair.consumer->dst.tensor), declared(q, pair.producer->a.tensor))
        << "line " << pair.consumer->loc.line << " waited " << pair.cycles << " cycles for the store on line "
        << pair.producer->loc.line;
  }
  EXPECT_GT(stores_waited_for, 0u);  // the output buffer's own reuse: the pairs above were looked at
}

}  // namespace
}  // namespace allocsim
