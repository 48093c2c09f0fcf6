// The timing oracle (verify/timing_oracle.h) against the SystemC model: on every corpus kernel, at every optlevel the
// driver accepts for it, every executed instruction's start and end, the ring occupancy and the run's statistics
// agree exactly, and the run keeps the timing invariants (verify/timing_agreement.h).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ir/parse.h"
#include "tests/common/corpus_allocations.h"
#include "tests/common/hazard_programs.h"
#include "verify/timing_agreement.h"
#include "verify/timing_oracle.h"

namespace allocsim {
namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

// Every clock at 1 GHz (an engine cycle is a reporting cycle), DMA at one byte per ns per engine, one engine per
// partition and no descriptor overhead, no minimum dependent interval, so the expected cycles below follow from docs/simulator.md "Timing" by
// hand.
const char kTable[] = R"(clock-ghz 1
pe.clock-ghz 1
act.clock-ghz 1
dve.clock-ghz 1
pool.clock-ghz 1
sp.clock-ghz 1
engine-queue-depth 1
act.fixed 10
act.per-element 1
pool.fixed 10
pool.per-element 0
sp.scalar 2
sp.loop-iteration 3
dma.fixed-ns 100
dma.engines 16
dma.engine-bytes-per-ns 1
dma.efficiency 1
dma.descriptor-overhead-bytes 0
dma.contiguous-min-bytes 0
dma.partitions-per-engine 1
dma.convert-fixed 0
act.dependent-interval 0
dve.dependent-interval 0
)";

sim::TimingTable table() {
  sim::TimingTable t = sim::TimingTable::defaults();
  t.apply(kTable);
  return t;
}

struct Slice {
  uint32_t track;
  uint64_t start, end;
  bool operator==(const Slice&) const = default;
};

std::vector<Slice> slices(const verify::TimingSchedule& s) {
  std::vector<Slice> out;
  for (const verify::TimedStep& step : s.steps) out.push_back({step.track, step.start, step.end});
  return out;
}

void expectModelAgrees(const Program& p, const sim::TimingTable& t) {
  sim::SimOptions o;
  o.timing = t;
  const verify::TimingCheck c = verify::checkTiming(p, o);
  EXPECT_TRUE(c.differences.empty()) << joined(c.differences);
  EXPECT_TRUE(c.violations.empty()) << joined(c.violations);
}

// A load, an activation of what it loaded, a store of the result. The load: 2048 bytes in 8 descriptors (one per
// partition of its SBUF side) on 8 engines: span 2048 / 8 = 256, fabric share 2048 / 16 = 128, fixed latency 100.
TEST(TimingOracle, StraightLineByHand) {
  const Program p = parseProgram(kRawProgram);
  const verify::TimingSchedule s = verify::timingSchedule(p, table());
  // dma on queue 0: issued at 0, its window from 100, ends 100 + 256; act waits for it (RAW): 356 + max(10, 64);
  // the store on queue 1 is ready at 420, its window from 520.
  EXPECT_EQ(slices(s), (std::vector<Slice>{{7, 100, 356}, {1, 356, 420}, {8, 520, 776}}));
  EXPECT_EQ(s.steps[2].producers, std::vector<uint32_t>{1});
  EXPECT_EQ(s.cycles, 776u);
  EXPECT_EQ(s.dependence_stall_cycles, 356u + 420u);  // the act waits for the load, the store for the act
  ASSERT_EQ(s.ring_occupancy.size(), 4u);
  EXPECT_EQ(s.ring_occupancy[1].cycle, 356u);
  EXPECT_EQ(s.ring_occupancy[1].value, 0u);
  expectModelAgrees(p, table());
}

const char kThreeLoads[] = R"(arch tiny
dram X [8, 64] f32 input
sbuf x1 [8, 64] f32 @p0+0
sbuf x2 [8, 64] f32 @p0+256
sbuf x3 [8, 64] f32 @p0+512
dma x1, X
dma x2, X
dma x3, X
)";

// One queue with one ring slot: each load waits for the one before to end (ring full).
TEST(TimingOracle, RingFullByHand) {
  Program p = parseProgram(kThreeLoads);
  p.arch.dma_queues = 1;
  p.arch.dma_ring_slots = 1;
  const verify::TimingSchedule s = verify::timingSchedule(p, table());
  EXPECT_EQ(slices(s), (std::vector<Slice>{{7, 100, 356}, {7, 456, 712}, {7, 812, 1068}}));
  EXPECT_EQ(s.queues[0].peak_occupancy, 1u);
  EXPECT_EQ(s.ring_full_stall_cycles, (356u - 0u) + (712u - 356u));
  expectModelAgrees(p, table());
}

// Two queues, free rings: the second load's fabric window (128 cycles) waits for the first's; the third, back on
// queue 0, starts after the first ends there (356), where the fabric is free again.
TEST(TimingOracle, FabricCalendarByHand) {
  Program p = parseProgram(kThreeLoads);
  const verify::TimingSchedule s = verify::timingSchedule(p, table());
  EXPECT_EQ(slices(s), (std::vector<Slice>{{7, 100, 356}, {8, 228, 484}, {7, 356, 612}}));
  expectModelAgrees(p, table());
}

// A loop on the sequencer (3 cycles an iteration), an engine queue of depth 1, a register read at dispatch.
TEST(TimingOracle, LoopQueueAndRegisterByHand) {
  const Program p = parseProgram(R"(arch tiny
sbuf x [8, 64] f32 @p0+0
sbuf y [8, 64] f32 @p0+256
sbuf z [8, 64] f32 @p0+512
reg n @r0
reg k @r1
loop n = 0, 2, 1 {
  memset x, 0
}
li k, 1
copy y[:, k*16:16], z[:, 0:16]
memset y, 1
)");
  const verify::TimingSchedule s = verify::timingSchedule(p, table());
  // Iterations [0, 3) and [3, 6); the memsets cost 10; the second waits for the first (WAW, and its engine).
  // li at 6 ends at 8; the copy reads k at dispatch, so it is dispatched at 8 and costs max(10, 16).
  // The last memset is dispatched when the second left POOL's one-deep queue (13) and waits for the copy (WAW).
  EXPECT_EQ(slices(s), (std::vector<Slice>{{6, 0, 3}, {3, 3, 13}, {6, 3, 6}, {3, 13, 23}, {4, 6, 8}, {1, 8, 24},
                                           {3, 24, 34}}));
  EXPECT_EQ(s.steps[5].dispatch, 8u);
  EXPECT_EQ(s.steps[6].dispatch, 13u);
  EXPECT_EQ(s.cycles, 34u);
  EXPECT_EQ(s.engine_busy_stall_cycles, 13u - 8u);           // the last memset: POOL's queue is full until 13
  EXPECT_EQ(s.dependence_stall_cycles, (8u - 6u) + (24u - 23u));  // the copy's register; the memset's WAW
  expectModelAgrees(p, table());
}

// A minimum dependent interval of 30 on ACT, whose small cost act.fixed = 10: a reader of an
// activation's output starts 30 after that activation's start; an independent activation starts when ACT is free,
// and so does one that only overwrites what an older activation read or wrote (its own engine's order covers those).
TEST(TimingOracle, DependentIntervalByHand) {
  const Program p = parseProgram(R"(arch tiny
sbuf x [8, 4] f32 @p0+0
sbuf y [8, 4] f32 @p0+64
sbuf z [8, 4] f32 @p0+128
sbuf w [8, 4] f32 @p0+192
memset x, 1
act y, x, exp
act z, x, exp
act w, y, exp
act y, x, relu
)");
  sim::TimingTable t = table();
  t.apply("act.dependent-interval 30\n");
  const verify::TimingSchedule s = verify::timingSchedule(p, t);
  // memset [0, 10); act y [10, 20), complete at 40; act z (reads x only) [20, 30); act w reads y: [40, 50),
  // complete at 70; the last act overwrites y (WAW on act y, WAR on act w, both on ACT) and reads x: [50, 60),
  // complete at 80, the run's end.
  EXPECT_EQ(slices(s), (std::vector<Slice>{{3, 0, 10}, {1, 10, 20}, {1, 20, 30}, {1, 40, 50}, {1, 50, 60}}));
  EXPECT_EQ(s.steps[1].done, 40u);
  EXPECT_EQ(s.steps[3].done, 70u);
  EXPECT_EQ(s.cycles, 80u);
  EXPECT_EQ(s.dependence_stall_cycles, (10u - 0u) + (40u - 30u));
  expectModelAgrees(p, t);
}

// The oracle's schedule as a trace (what a model agreeing with it records).
sim::Trace traceOf(const verify::TimingSchedule& s) {
  sim::Trace t;
  for (const verify::TimedStep& step : s.steps) t.slices.push_back({step.track, step.start, step.end, step.inst});
  for (const auto& c : s.ring_occupancy) t.ring_occupancy.push_back({c.queue, c.cycle, c.value});
  return t;
}

// The comparison and the invariants see a run that differs or breaks a rule.
TEST(TimingOracle, DifferencesAndBrokenInvariantsAreReported) {
  const Program p = parseProgram(kThreeLoads);
  sim::SimOptions o;
  o.timing = table();
  const verify::TimingCheck c = verify::checkTiming(p, o);
  ASSERT_TRUE(c.agrees());
  sim::Trace trace = traceOf(c.oracle);
  EXPECT_TRUE(verify::timingDifferences(p, c.oracle, c.result.stats, trace).empty());
  verify::TimingSchedule shifted = c.oracle;
  shifted.steps[1].end += 1;
  EXPECT_EQ(verify::timingDifferences(p, shifted, c.result.stats, trace).size(), 1u);
  EXPECT_TRUE(verify::timingInvariantViolations(p, trace, &c.oracle).empty());
  // The third load starting on queue 0 before the first ends there: one at a time is broken.
  trace.slices[2].start = 300;
  EXPECT_EQ(verify::timingInvariantViolations(p, trace, nullptr).size(), 1u);
  trace.slices[2].start = 356;
  // A ring holding more transfers than its slots.
  trace.ring_occupancy.push_back({0, 2000, 5});
  EXPECT_EQ(verify::timingInvariantViolations(p, trace, nullptr).size(), 1u);
}

// An activation starting before the load it reads has ended breaks a dependence.
TEST(TimingOracle, AStartBeforeAProducersEndIsReported) {
  const Program p = parseProgram(R"(arch tiny
dram X [8, 64] f32 input
sbuf x [8, 64] f32 @p0+0
sbuf y [8, 64] f32 @p0+256
dma x, X
act y, x, relu
)");
  const verify::TimingSchedule s = verify::timingSchedule(p, table());
  sim::Trace trace = traceOf(s);
  EXPECT_TRUE(verify::timingInvariantViolations(p, trace, &s).empty());
  trace.slices[1].start = 300;
  trace.slices[1].end = 364;
  const auto v = verify::timingInvariantViolations(p, trace, &s);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("depends on"), std::string::npos) << v[0];
}

// A load, an activation of what it loaded and a store of the result, repeated: each iteration's load waits for the
// previous activation (WAR on x), each activation for the previous store (WAR on y), each store for the previous
// one (WAW on Y).
std::string loadActStoreLoop(int iterations) {
  return R"(arch tiny
dram X [8, 64] f32 input
dram Y [8, 64] f32 output
sbuf x [8, 64] f32 @p0+0
sbuf y [8, 64] f32 @p0+256
reg i @r0
loop i = 0, )" + std::to_string(iterations) + R"(, 1 {
  dma x, X
  act y, x, relu
  dma Y, y
}
)";
}

// Keeps nothing; checks that each producer comes back with the tag it was given (its index + 1) and counts.
struct CountingSink : verify::TimingStepSink {
  uint64_t steps = 0, producers = 0, ring_changes = 0;
  bool tags_match = true;
  uint64_t onStep(uint32_t index, const verify::TimedStep& s, const std::vector<uint64_t>& tags) override {
    tags_match = tags_match && index == steps && tags.size() == s.producers.size();
    for (size_t k = 0; k < tags.size() && k < s.producers.size(); ++k)
      tags_match = tags_match && tags[k] == uint64_t(s.producers[k]) + 1;
    ++steps;
    producers += s.producers.size();
    return uint64_t(index) + 1;
  }
  void onRingChange(const verify::TimingSchedule::RingChange&) override { ++ring_changes; }
};

// What the oracle holds for later steps' dependences is bounded by the machine, not by the run's length. With an
// engine queue depth of 1 (kTable), the sequencer dispatches an iteration's load once the previous store has left
// its queue, after the previous activation completed (RAW on y), which in turn waited for the store before it (WAR
// on y): at each dispatch, at most the previous store and the current iteration's three instructions are not
// complete, 4 x 2 = 8 accesses (each instruction touches two memories). Pruning waits until 64 are held (twice the
// live ones, at least 64), and one instruction adds at most 2 more: never more than 65, however many iterations.
TEST(TimingOracle, AccessesInFlightStayBoundedOnALongLoop) {
  for (int iterations : {1000, 4000}) {
    SCOPED_TRACE(std::to_string(iterations) + " iterations");
    const Program p = parseProgram(loadActStoreLoop(iterations));
    CountingSink sink;
    const verify::TimingSchedule s = verify::timingSchedule(p, table(), sink);
    EXPECT_EQ(sink.steps, 4u * uint64_t(iterations));  // each iteration, its load, activation and store
    EXPECT_TRUE(sink.tags_match);
    EXPECT_GT(sink.producers, 0u);
    EXPECT_EQ(sink.ring_changes, 4u * uint64_t(iterations));  // each transfer takes a slot and frees it
    EXPECT_TRUE(s.steps.empty());
    EXPECT_TRUE(s.ring_occupancy.empty());
    EXPECT_GT(s.peak_inflight_accesses, 0u);
    EXPECT_LE(s.peak_inflight_accesses, 65u);
  }
}

// The streamed schedule is the kept one, step by step, and the budget on what the oracle holds is reported at the
// instruction being placed: a sink that keeps nothing runs the long loop within 16 KiB, the full schedule (4000
// steps of at least sizeof(TimedStep) bytes each) does not.
TEST(TimingOracle, TheStateBudgetStopsAKeptScheduleNotAStreamedOne) {
  const Program small = parseProgram(loadActStoreLoop(3));
  struct Keeper : verify::TimingStepSink {
    std::vector<verify::TimedStep> steps;
    std::vector<verify::TimingSchedule::RingChange> ring;
    uint64_t onStep(uint32_t, const verify::TimedStep& s, const std::vector<uint64_t>&) override {
      steps.push_back(s);
      return 0;
    }
    void onRingChange(const verify::TimingSchedule::RingChange& c) override { ring.push_back(c); }
  } keeper;
  const verify::TimingSchedule kept = verify::timingSchedule(small, table());
  const verify::TimingSchedule streamed = verify::timingSchedule(small, table(), keeper);
  ASSERT_EQ(keeper.steps.size(), kept.steps.size());
  for (size_t i = 0; i < kept.steps.size(); ++i) {
    EXPECT_EQ(keeper.steps[i].inst, kept.steps[i].inst);
    EXPECT_EQ(keeper.steps[i].start, kept.steps[i].start);
    EXPECT_EQ(keeper.steps[i].end, kept.steps[i].end);
    EXPECT_EQ(keeper.steps[i].producers, kept.steps[i].producers);
  }
  ASSERT_EQ(keeper.ring.size(), kept.ring_occupancy.size());
  for (size_t i = 0; i < keeper.ring.size(); ++i) {
    EXPECT_EQ(keeper.ring[i].cycle, kept.ring_occupancy[i].cycle);
    EXPECT_EQ(keeper.ring[i].value, kept.ring_occupancy[i].value);
  }
  EXPECT_EQ(streamed.cycles, kept.cycles);

  const Program p = parseProgram(loadActStoreLoop(1000));
  verify::TimingOracleOptions o;
  o.max_state_bytes = 16 * 1024;
  CountingSink sink;
  EXPECT_NO_THROW(verify::timingSchedule(p, table(), sink, o));
  EXPECT_EQ(sink.steps, 4000u);
  try {
    verify::timingSchedule(p, table(), o);
    ADD_FAILURE() << "the kept schedule fit in 16 KiB";
  } catch (const InputError& e) {
    const std::string text = e.format("long.nki.txt");
    EXPECT_NE(text.find("the timing oracle's schedule needs more than 16384 bytes"), std::string::npos) << text;
    // At the loop or an instruction of its body (lines 7 to 10).
    bool located = false;
    for (const char* line : {"long.nki.txt:7:", "long.nki.txt:8:", "long.nki.txt:9:", "long.nki.txt:10:"})
      located = located || text.rfind(line, 0) == 0;
    EXPECT_TRUE(located) << text;
  }
}

// timingDisagreement, which holds each step against the model's trace as the oracle places it, reports what the
// comparison of the kept schedule (timingDifferences, timingInvariantViolations) reports.
TEST(TimingOracle, TheStreamedCheckReportsWhatTheKeptOneDoes) {
  const Program p = parseProgram(loadActStoreLoop(20));
  sim::SimOptions o;
  o.timing = table();
  const verify::TimingCheck c = verify::checkTiming(p, o);
  ASSERT_TRUE(c.agrees());
  const sim::Trace agreeing = traceOf(c.oracle);
  EXPECT_EQ(verify::timingDisagreement(p, o, c.result.stats, agreeing), "");
  auto kept = [&](const sim::Trace& t) {
    std::string s;
    for (const std::string& l : verify::timingDifferences(p, c.oracle, c.result.stats, t)) s += "  " + l + "\n";
    for (const std::string& l : verify::timingInvariantViolations(p, t, &c.oracle)) s += "  " + l + "\n";
    return s;
  };
  // An activation moved before the load it reads (a difference and a broken dependence), a slice missing from the
  // end of a track, a ring change shifted: more than 8 lines of differences, so the limit and the count show too.
  sim::Trace broken = agreeing;
  for (sim::TraceSlice& s : broken.slices)
    if (s.track == 1) s.start -= 1, s.end -= 1;
  broken.slices.pop_back();
  broken.ring_occupancy[3].cycle += 1;
  const std::string expected = kept(broken);
  ASSERT_NE(expected.find("which it depends on"), std::string::npos) << expected;
  ASSERT_NE(expected.find("more"), std::string::npos) << expected;
  const std::string streamed = verify::timingDisagreement(p, o, c.result.stats, broken);
  EXPECT_NE(streamed.find(expected), std::string::npos) << streamed << "\nkept:\n" << expected;
}

// Under every timing table the repository ships: the default (NeuronCore-v2) and sim/timing/gen3.txt on top of it.
std::vector<std::pair<std::string, sim::TimingTable>> shippedTables() {
  std::vector<std::pair<std::string, sim::TimingTable>> out{{"default", sim::TimingTable::defaults()}};
  sim::TimingTable gen3 = sim::TimingTable::defaults();
  gen3.apply(readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/sim/timing/gen3.txt"));
  out.emplace_back("gen3", gen3);
  return out;
}

TEST(TimingOracle, EveryCorpusKernelAgreesWithTheModelExactly) {
  const auto tables = shippedTables();
  std::set<std::string> kernels;
  forEachCorpusAllocation([&](const std::string& name, int level, const Program& allocated) {
    kernels.insert(name);
    for (const auto& [table_name, table] : tables) {
      if (table_name != "default" && level != 2) continue;
      SCOPED_TRACE(name + " -O" + std::to_string(level) + ", " + table_name + " timing table");
      sim::SimOptions so;
      so.timing_only = true;
      so.timing = table;
      const verify::TimingCheck c = verify::checkTiming(allocated, so);
      EXPECT_TRUE(c.differences.empty()) << joined(c.differences);
      EXPECT_TRUE(c.violations.empty()) << joined(c.violations);
      EXPECT_EQ(c.oracle.cycles, c.result.stats.cycles);
    }
  });
  // Every kernel fits at -O2 at least.
  EXPECT_EQ(kernels.size(), corpusKernelNames().size());
  EXPECT_FALSE(kernels.empty());
}

}  // namespace
}  // namespace allocsim
