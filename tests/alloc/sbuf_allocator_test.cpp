// The SBUF colorer (alloc/sbuf/): the geometric degree test, interference, placement policies, costs, simplify,
// spill-to-DRAM code, the best-of-N driver and its report; every gen2 corpus kernel allocates without spills in
// no more SBUF than placeGreedy; every tiny kernel allocates with spills; generated programs allocate (or fail
// cleanly); allocated programs pass the three oracles.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/cost_table.h"
#include "alloc/greedy_placer.h"
#include "alloc/liveness.h"
#include "alloc/psum/psum_allocator.h"
#include "alloc/psum/psum_costs.h"
#include "alloc/sbuf/sbuf_allocator.h"
#include "alloc/sbuf/sbuf_costs.h"
#include "alloc/sbuf/sbuf_degree.h"
#include "alloc/sbuf/sbuf_footprint.h"
#include "alloc/sbuf/sbuf_heuristic.h"
#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/sbuf/sbuf_live_ranges.h"
#include "alloc/sbuf/sbuf_placement_policy.h"
#include "alloc/sbuf/sbuf_select.h"
#include "alloc/sbuf/sbuf_simplify.h"
#include "alloc/sbuf/sbuf_spill.h"
#include "gen/generate.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/alloc/colorer_checks.h"
#include "tests/common/placed_program_checks.h"
#include "tests/common/program_text.h"
#include "tests/common/thrown.h"
#include "tests/common/verify_checks.h"
#include "verify/correct.h"
#include "verify/equivalence.h"
#include "verify/placement.h"
#include "verify/symbolic.h"

namespace allocsim {
namespace {

// A node's neighbours as a list, to compare.
using testing_colorer::findingsText;
using testing_colorer::neighboursOf;

// A correct allocation of `original`, under two poison patterns.
void expectCorrectUnderTwoPoisons(const Program& original, const Program& allocated, const std::string& what) {
  for (uint64_t poison : {5u, 6u}) expectCorrectAllocation(original, allocated, what, poison);
}

// Registers are the REG allocator's (not written yet): place them greedily, keeping every tensor where the
// colorers put it by pinning it for the call.
Program placeRegisters(const Program& allocated) {
  return testing_colorer::placeTheRestGreedily(allocated, [](const Tensor& t) { return t.space != Space::Dram; });
}


// The interference graph of p's SBUF tensors with their spill costs (no ranges split for local spills).
SbufGraph costedGraph(const Program& p, const Liveness& live) {
  SbufGraph g = buildSbufGraph(p, live);
  findSbufCosts(p, live, {}, g);
  return g;
}

SbufNode rect(uint32_t partitions, uint64_t bytes) {
  SbufNode n;
  n.partitions = partitions;
  n.bytes = bytes;
  return n;
}

std::string allocErrorOf(const Program& p) {
  return messageThrown<AllocError>([&] { allocateSbuf(p); }, "(no error)");
}

// --- the geometric degree test ---------------------------------------------------------------------------------

TEST(SbufDegree, PossiblePlacementsCountTheGridOfBandsAndAlignedOffsets) {
  const Arch tiny = *archPreset("tiny");  // 8 partitions x 4096 bytes, align 4, partition quantum 4
  EXPECT_EQ(sbufPossiblePlacements(tiny, rect(8, 1024)), 1u * 769u);   // one band, (4096 - 1024) / 4 + 1 offsets
  EXPECT_EQ(sbufPossiblePlacements(tiny, rect(4, 1024)), 2u * 769u);   // bands 0 and 4
  EXPECT_EQ(sbufPossiblePlacements(tiny, rect(5, 1024)), 1u * 769u);   // 5 rows fit only from partition 0
  EXPECT_EQ(sbufPossiblePlacements(tiny, rect(1, 4)), 2u * 1024u);
  EXPECT_EQ(sbufPossiblePlacements(tiny, rect(8, 4096)), 1u);
  const Arch gen2 = *archPreset("gen2");  // 128 x 196608, align 4, quantum 32
  EXPECT_EQ(sbufPossiblePlacements(gen2, rect(128, 2048)), 1u * 48641u);
  EXPECT_EQ(sbufPossiblePlacements(gen2, rect(32, 2048)), 4u * 48641u);
}

TEST(SbufDegree, ImpactIsVerticalImpactOfBothHeightsTimesTheSpanTerm) {
  const Arch tiny = *archPreset("tiny");
  // Full height: one band; a 1024-byte neighbour covers the offsets of a 1024-byte rectangle in a window of
  // 1024 + 1024 - 1 bytes: ceil(2047 / 4) = 512 aligned offsets.
  EXPECT_EQ(sbufImpact(tiny, rect(8, 1024), rect(8, 1024)), 1u * 512u);
  // Half height next to full height: both bands blocked (ceil(11 / 4) = 3, clamped to the 2 bands).
  EXPECT_EQ(sbufImpact(tiny, rect(4, 1024), rect(8, 1024)), 2u * 512u);
  EXPECT_EQ(sbufImpact(tiny, rect(4, 1024), rect(4, 1024)), 2u * 512u);  // ceil(7 / 4) = 2 bands
  // One row next to one row: a neighbour blocks one band of the two, and ceil(7 / 4) = 2 offsets in it.
  EXPECT_EQ(sbufImpact(tiny, rect(1, 4), rect(1, 4)), 1u * 2u);
  // Not symmetric: a small rectangle loses few positions to a big one, and the big one is clamped to its grid.
  EXPECT_EQ(sbufImpact(tiny, rect(8, 4096), rect(1, 4)), 1u);
  EXPECT_EQ(sbufImpact(tiny, rect(1, 4), rect(8, 4096)), 2u * 1024u);
}

TEST(SbufDegree, FreePlacementsSubtractEveryNeighboursImpact) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram X [8, 256] f32 input\n"
      "dram Y [8, 256] f32 output\n"
      "sbuf a [8, 256] f32\n"
      "sbuf b [8, 256] f32\n"
      "sbuf c [8, 256] f32\n"
      "\n"
      "dma a, X\n"
      "dma b, X\n"
      "dma c, X\n"
      "tt a, a, b, add\n"
      "tt a, a, c, add\n"
      "dma Y, a\n");
  const Liveness live = computeLiveness(p);
  const SbufGraph g = buildSbufGraph(p, live);
  ASSERT_EQ(g.nodes.size(), 3u);
  // Three mutual 1024-byte neighbours: 769 - 2 x 512 < 0, although three fit (the test is a sufficient bound).
  EXPECT_EQ(sbufFreePlacements(p.arch, g, 0), 769 - 2 * 512);
  EXPECT_EQ(sbufFreePlacements(p.arch, g, 1), 769 - 2 * 512);
}

// --- interference ----------------------------------------------------------------------------------------------

// a overlaps b, b overlaps c, a and c are never live together; f is pinned (fixed) and live with c.
Program chainProgram() {
  return parseProgram(
      "arch tiny\n"
      "dram X [8, 64] f32 input\n"
      "dram Y [8, 64] f32 output\n"
      "sbuf a [8, 64] f32\n"
      "sbuf b [4, 128] f32\n"
      "sbuf c [8, 64] f32\n"
      "sbuf f [8, 64] f32 pinned @p0+0\n"
      "psum q [8, 64] f32 @bank0\n"
      "\n"
      "dma a, X\n"
      "dma b[:, 0:64], a[0:4, :]\n"
      "dma c, X\n"
      "dma f, X\n"
      "tt c, c, f, add\n"
      "dma b[:, 64:64], c[4:4, :]\n"
      "dma Y[0:4, :], b[:, 0:64]\n"
      "dma Y[4:4, :], c[4:4, :]\n");
}

TEST(SbufInterference, TimeOverlapEdgesDemandAndTheMaxLiveBound) {
  Program p = chainProgram();
  ASSERT_TRUE(checkProgram(p).empty());
  const SbufGraph g = buildSbufGraph(p, computeLiveness(p));
  ASSERT_EQ(g.nodes.size(), 4u);  // the PSUM tensor is not a node
  EXPECT_EQ(g.node_of[p.findTensor("q")], kNone);
  const uint32_t a = g.node_of[p.findTensor("a")], b = g.node_of[p.findTensor("b")], c = g.node_of[p.findTensor("c")],
                 f = g.node_of[p.findTensor("f")];
  EXPECT_EQ(neighboursOf(g, a), std::vector<uint32_t>({b}));
  EXPECT_EQ(neighboursOf(g, b), std::vector<uint32_t>({a, c, f}));
  EXPECT_EQ(neighboursOf(g, c), std::vector<uint32_t>({b, f}));
  EXPECT_TRUE(g.nodes[f].fixed);
  EXPECT_FALSE(g.nodes[a].fixed);
  EXPECT_EQ(g.nodes[b].area(), 4u * 512u);
  EXPECT_EQ(g.total_demand, 3u * 2048u + 2048u);
  EXPECT_EQ(g.max_live, 3u * 2048u);  // b, c and f at the tt
  EXPECT_EQ(sbufDemandPercent(p.arch, g), 100.0 * 32768 / 8192);
}

// --- placement policies ----------------------------------------------------------------------------------------

TEST(SbufPlacementPolicy, FirstFitBestFitAndUpperLeftChooseDifferentFreePositions) {
  const Arch tiny = *archPreset("tiny");
  // Full-height obstacles at bytes [1536, 2048) and [3072, 4096): free runs of 1536 and 1024 bytes.
  const std::vector<SbufRect> taken = {{0, 8, 1536, 512}, {0, 8, 3072, 1024}};
  auto at = [&](SbufPolicy pol, uint32_t parts, uint64_t bytes) {
    std::optional<Placement> pl = placeSbufRect(tiny, pol, parts, bytes, taken);
    return pl ? "p" + std::to_string(pl->partition) + "+" + std::to_string(pl->offset) : std::string("none");
  };
  EXPECT_EQ(at(SbufPolicy::FirstFit, 8, 1000), "p0+0");
  EXPECT_EQ(at(SbufPolicy::BestFit, 8, 1000), "p0+2048");  // the tighter run
  EXPECT_EQ(at(SbufPolicy::BestFit, 8, 1100), "p0+0");     // only the wider run holds it
  EXPECT_EQ(at(SbufPolicy::UpperLeft, 4, 100), "p4+0");
  EXPECT_EQ(at(SbufPolicy::FirstFit, 4, 100), "p0+0");
  EXPECT_EQ(at(SbufPolicy::LowestOffset, 4, 100), "p0+0");
  EXPECT_EQ(at(SbufPolicy::FirstFit, 8, 1537), "none");
  EXPECT_EQ(at(SbufPolicy::BestFit, 8, 1537), "none");
  EXPECT_EQ(at(SbufPolicy::UpperLeft, 8, 1537), "none");
  // Alignment: after an obstacle ending at byte 10 the next offset is 12; the partition quantum keeps a
  // one-row rectangle off partitions 1..3.
  const std::vector<SbufRect> odd = {{0, 8, 0, 10}, {4, 4, 12, 4084}};
  EXPECT_EQ(placeSbufRect(tiny, SbufPolicy::BestFit, 1, 6, odd)->offset, 12u);
  EXPECT_EQ(placeSbufRect(tiny, SbufPolicy::BestFit, 1, 6, odd)->partition, 0u);
  EXPECT_EQ(placeSbufRect(tiny, SbufPolicy::UpperLeft, 1, 6, odd)->partition, 0u);  // band 4 is full
  EXPECT_EQ(sbufHeuristicName(sbufHeuristic(0)), "largest-first/lowest-offset");
  EXPECT_EQ(sbufHeuristicName(sbufHeuristic(1)), "earliest-start/first-fit");
  EXPECT_EQ(sbufHeuristicName(sbufHeuristic(kSbufHeuristicCount - 1)), "tensor-order/lowest-offset");
}

TEST(SbufPlacementPolicy, LowestOffsetGoesBesideANeighbourWhereFirstFitStacksAboveIt) {
  const Arch tiny = *archPreset("tiny");  // 8 partitions, bands of 4
  // Band 0 (partitions 0..3) holds bytes [0, 64); band 4 is empty.
  const std::vector<SbufRect> taken = {{0, 4, 0, 64}};
  auto at = [&](SbufPolicy pol, uint32_t parts, uint64_t bytes) {
    std::optional<Placement> pl = placeSbufRect(tiny, pol, parts, bytes, taken);
    return pl ? "p" + std::to_string(pl->partition) + "+" + std::to_string(pl->offset) : std::string("none");
  };
  EXPECT_EQ(at(SbufPolicy::FirstFit, 4, 32), "p0+64");     // lowest band first: above the neighbour
  EXPECT_EQ(at(SbufPolicy::LowestOffset, 4, 32), "p4+0");  // lowest offset first: beside it, peak stays 64
  EXPECT_EQ(at(SbufPolicy::LowestOffset, 8, 32), "p0+64");  // full height: no band is free at 0
  // Equal offsets: the lowest band.
  const std::vector<SbufRect> both = {{0, 4, 0, 64}, {4, 4, 0, 64}};
  EXPECT_EQ(placeSbufRect(tiny, SbufPolicy::LowestOffset, 4, 32, both)->partition, 0u);
}

// --- costs -----------------------------------------------------------------------------------------------------

TEST(SbufCosts, SpillDmasWeightedByTripCountsTinyRangesAndStandInsUnspillable) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram X [8, 64] f32 input\n"
      "dram Y [8, 64] f32 output\n"
      "sbuf a [8, 64] f32\n"
      "sbuf b [8, 64] f32\n"
      "sbuf c [8, 64] f32\n"
      "reg i\n"
      "\n"
      "dma a, X\n"
      "memset b, 0.0\n"
      "loop i = 0, 4, 1 {\n"
      "  tt b, b, a, add\n"
      "}\n"
      "copy c, b\n"
      "dma Y, c\n");
  const Liveness live = computeLiveness(p);
  SbufGraph g = costedGraph(p, live);
  const double move = double(dmaCycles(Space::Sbuf, Space::Dram, 2048));
  EXPECT_EQ(move, 704.0);  // alloc/cost_table.h: 640 + 2048 / 32
  EXPECT_EQ(dmaCycles(Space::Dram, Space::Sbuf, 2048), 704u);
  const SbufNode& a = g.nodes[g.node_of[p.findTensor("a")]];
  const SbufNode& b = g.nodes[g.node_of[p.findTensor("b")]];
  const SbufNode& c = g.nodes[g.node_of[p.findTensor("c")]];
  EXPECT_EQ(a.cost, move + 4 * move);                          // store after the dma; a reload per iteration
  EXPECT_EQ(b.cost, move + 4 * (move + move) + move);          // memset; load + store per iteration; copy
  EXPECT_TRUE(isInfiniteCost(c.cost));  // live only at the copy and the dma, both of which touch it
  EXPECT_FALSE(a.rehome);

  std::vector<bool> local(p.tensors.size(), false);
  local[p.findTensor("a")] = true;  // as if spill code had made it
  SbufGraph h = buildSbufGraph(p, sbufLiveness(p, local));
  findSbufCosts(p, live, local, h);
  EXPECT_TRUE(isInfiniteCost(h.nodes[h.node_of[p.findTensor("a")]].cost));
}

TEST(SbufCosts, StandInRangesAreNotExtendedOverTheirLoop) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram X [8, 64] f32 input\n"
      "sbuf r [8, 64] f32\n"
      "sbuf s [8, 64] f32\n"
      "reg i\n"
      "\n"
      "loop i = 0, 4, 1 {\n"
      "  dma r[:, i*16:16], X[:, i*16:16]\n"
      "  dma s[:, 0:16], r[:, i*16:16]\n"
      "}\n");
  const uint32_t r = p.findTensor("r");
  // Each iteration writes the chunk it then reads: per iteration (alloc/iteration_coverage.h), not carried.
  EXPECT_EQ(computeLiveness(p).tensors[r], (LiveRange{2, 3}));
  std::vector<bool> local(p.tensors.size(), false);
  local[r] = true;
  EXPECT_EQ(sbufLiveness(p, local).tensors[r], (LiveRange{2, 3}));
  EXPECT_EQ(executionsOf(sbufLiveness(p, local).order, 2), 4.0);
}

TEST(SbufCosts, PsumSpillSlotTouchedOnlyByDmasIsRehomedAtTheExtraDramCost) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram Z [8, 64] f32 output\n"
      "psum acc [8, 64] f32 @bank0\n"
      "sbuf s [8, 64] f32 !spill(acc)\n"
      "\n"
      "memset acc, 1.0\n"
      "dma s, acc !spill\n"
      "dma acc, s !reload\n"
      "dma Z, acc\n");
  SbufGraph g = costedGraph(p, computeLiveness(p));
  const SbufNode& s = g.nodes[0];
  EXPECT_TRUE(s.rehome);
  const double extra = double(dmaCycles(Space::Psum, Space::Dram, 2048)) - double(dmaCycles(Space::Psum, Space::Sbuf, 2048));
  EXPECT_EQ(s.cost, 2 * extra);  // finite although its range is tiny: rehoming frees all of it
}

// --- simplify and select ----------------------------------------------------------------------------------------

// n tensors of [8, 256] f32 (1024 bytes per partition), all live together at the sum.
Program mutual(int n) {
  std::string text = "arch tiny\ndram X [8, 256] f32 input\ndram Y [8, 256] f32 output\n";
  for (int i = 0; i < n; ++i) text += "sbuf t" + std::to_string(i) + " [8, 256] f32\n";
  text += "\n";
  for (int i = 0; i < n; ++i) text += "dma t" + std::to_string(i) + ", X\n";
  for (int i = 1; i < n; ++i) text += "tt t0, t0, t" + std::to_string(i) + ", add\n";
  text += "dma Y, t0\n";
  return parseProgram(text);
}

TEST(SbufSimplify, HiNodesArePushedOptimisticallyAndSelectStillColorsThemWhenTheyFit) {
  Program p = mutual(3);
  SbufGraph g = costedGraph(p, computeLiveness(p));
  SbufWorklistSizes sizes;
  const std::vector<uint32_t> stack = simplifySbuf(p.arch, g, SbufOrder::EarliestStart, &sizes);
  EXPECT_EQ(sizes.lo, 0u);  // 769 - 2 x 512 < 0 for each
  EXPECT_EQ(sizes.hi + sizes.inf, 3u);
  ASSERT_EQ(stack.size(), 3u);
  const SbufSelection sel = selectSbuf(p, g, stack, SbufPolicy::FirstFit);
  EXPECT_TRUE(sel.failed.empty());  // 3 x 1024 <= 4096
  EXPECT_EQ(sel.footprint, 8u * 3072u);
  EXPECT_DOUBLE_EQ(sel.score, 8.0 * 3072 / (32768 + 1));
}

TEST(SbufSelect, TheFifthFullHeightQuarterCannotAllocate) {
  Program p = mutual(5);
  SbufGraph g = costedGraph(p, computeLiveness(p));
  const SbufSelection sel = selectSbuf(p, g, simplifySbuf(p.arch, g, SbufOrder::TensorOrder), SbufPolicy::FirstFit);
  ASSERT_EQ(sel.failed.size(), 1u);
  EXPECT_EQ(sel.spill_cost, g.nodes[sel.failed[0]].cost);
  EXPECT_GE(sel.score, sel.spill_cost);
  EXPECT_LT(sel.score, sel.spill_cost + 1);
}

// --- spill code ------------------------------------------------------------------------------------------------

TEST(SbufSpill, StoreAfterTheDefAndAReloadIntoAStandInBeforeEachUse) {
  Program p = parseProgram(
      std::string(kTinyTwoTileDecls) +
      "dma a, X\n"
      "tt b, a, a, add\n"
      "ts b[:, 0:16, 16:2], a[:, 0:16, 8:2], 1.0, mul\n"
      "dma Y, b\n");
  ASSERT_TRUE(checkProgram(p).empty());
  uint32_t next_id = 0;
  std::vector<bool> local;
  const SbufSpillStats st = insertSbufSpillCode(p, {p.findTensor("a")}, {}, next_id, local);
  EXPECT_EQ(st.stores, 1u);
  EXPECT_EQ(st.reloads, 2u);  // the two reads of one view share a reload
  EXPECT_EQ(printProgram(p),
            "arch tiny\n"
            "dram X [8, 64] f32 input\n"
            "dram Y [8, 64] f32 output\n"
            "sbuf a [8, 64] f32\n"
            "sbuf b [8, 64] f32\n"
            "dram a_Spill0 [8, 64] f32 !spill(a)\n"
            "sbuf a_Reload1 [8, 64] f32 !reload(a)\n"
            "sbuf a_Reload2 [8, 64] f32 !reload(a)\n"
            "sbuf a_Reload3 [8, 64] f32 !reload(a)\n"
            "\n"
            "dma a_Reload1, X\n"
            "dma a_Spill0, a_Reload1 !spill\n"
            "dma a_Reload2, a_Spill0 !reload\n"
            "tt b, a_Reload2, a_Reload2, add\n"
            "dma a_Reload3[:, 0:24], a_Spill0[:, 0:24] !reload\n"  // the self-overlapping view's hull
            "ts b[:, 0:16, 16:2], a_Reload3[:, 0:16, 8:2], 1.0, mul\n"
            "dma Y, b\n");
  EXPECT_EQ(local, std::vector<bool>({false, false, false, false, false, true, true, true}));
  EXPECT_TRUE(checkProgram(p).empty());
}

TEST(SbufSpill, SlotsBeyondDramLimitAreAnAllocError) {
  Program p = parseProgram(
      "arch tiny dram-limit=4096\n"
      "dram X [8, 64] f32 input\n"
      "dram Y [8, 64] f32 output\n"
      "sbuf a [8, 64] f32\n"
      "\n"
      "dma a, X\n"
      "dma Y, a\n");
  uint32_t next_id = 0;
  std::vector<bool> local;
  try {
    insertSbufSpillCode(p, {p.findTensor("a")}, {}, next_id, local);
    FAIL() << "expected AllocError";
  } catch (const AllocError& e) {
    EXPECT_STREQ(e.what(),
                 "spilling SBUF tensors to DRAM (first 'a') needs 6144 bytes of DRAM tensors in total; dram-limit is 4096");
    EXPECT_EQ(e.loc().line, 4u);
  }
}

// --- the driver ------------------------------------------------------------------------------------------------

TEST(SbufAllocator, ReportLinesWhenEverythingFits) {
  Program p = parseProgram(kTinyLoadAddStore);
  const SbufResult r = allocateSbuf(p);
  const SbufStats& s = r.stats;
  // a and b: 8 partitions x 256 bytes each, both live at the tt; tiny: 8 x 4096 bytes
  EXPECT_EQ(s.demand_bytes, 4096u);
  EXPECT_EQ(s.max_live_bytes, 4096u);
  EXPECT_EQ(s.capacity_bytes, 32768u);
  EXPECT_EQ(s.demand_pct, 800.0);  // capacity / demand
  EXPECT_EQ(s.outcome.best, (ColorOrderName{"largest-first/lowest-offset", false}));
  EXPECT_EQ(s.outcome.score, 4096.0 / (32768.0 + 1));  // footprint / (capacity + 1)
  EXPECT_EQ(s.outcome.spill_cycles, 0.0);
  EXPECT_EQ(s.outcome.tensors_spilled, 0u);
  EXPECT_EQ(s.outcome.utilization_pct, 12.5);
  EXPECT_EQ(s.outcome.rounds, 1u);
  EXPECT_EQ(s.footprint_bytes, 4096u);
  EXPECT_EQ(s.spill_bytes, 0u);
  EXPECT_EQ(r.program.tensors[p.findTensor("a")].placement, (Placement{0, 0, 0}));
  EXPECT_EQ(r.program.tensors[p.findTensor("b")].placement, (Placement{0, 256, 0}));
}

TEST(SbufAllocator, VerboseReportHasTheBannersAndEveryHeuristic) {
  SbufOptions o;
  o.verbosity = 2;
  const SbufResult r = allocateSbuf(mutual(5), o);
  ASSERT_TRUE(r.stats.trace.on);
  std::set<std::string> runs, tried;
  bool lo_zero = false, one_store_one_reload = false;
  for (const ColorerEvent& e : r.stats.trace.events) {
    if (const auto* run = std::get_if<colorer_event::RunStart>(&e)) runs.insert(run->heuristic);
    if (const auto* t = std::get_if<colorer_event::Tried>(&e)) {
      tried.insert(t->order.heuristic);
      lo_zero |= t->sizes && t->sizes->lo == 0;
    }
    if (const auto* ins = std::get_if<colorer_event::Inserted>(&e))
      one_store_one_reload |= ins->stores == 1 && ins->reloads == 1;
  }
  // Every heuristic of the sweep runs its own fixpoint and tries its order.
  EXPECT_EQ(runs.size(), size_t(kSbufHeuristicCount));
  EXPECT_EQ(tried, runs);
  for (const char* h : {"largest-first/best-fit", "tensor-order/upper-left", "tensor-order/lowest-offset"})
    EXPECT_TRUE(runs.count(h)) << h;
  EXPECT_TRUE(lo_zero);
  EXPECT_TRUE(one_store_one_reload);
}

// a [8, 768] (3072 bytes per partition) is live from its load to the final sum; b and c cannot leave SBUF while
// they are live (every instruction of their ranges touches them), and a + b overflow the 4096-byte partition.
Program spillA() {
  return parseProgram(
      "arch tiny\n"
      "dram A [8, 768] f32 input\n"
      "dram B [8, 512] f32 input\n"
      "dram Y [8, 512] f32 output\n"
      "dram Z [8, 256] f32 output\n"
      "sbuf a [8, 768] f32\n"
      "sbuf b [8, 512] f32\n"
      "sbuf c [8, 256] f32\n"
      "\n"
      "dma a, A\n"
      "dma b, B\n"
      "tt b, b, b, add\n"
      "dma Y, b\n"
      "dma c, B[:, 0:256]\n"
      "tt c, c, a[:, 0:256], add\n"
      "dma Z, c\n");
}

TEST(SbufAllocator, SpillsTheSpillableTensorToDramAndPassesTheOracles) {
  const Program p = spillA();
  ASSERT_TRUE(checkProgram(p).empty());
  const SbufResult r = allocateSbuf(p);
  EXPECT_EQ(r.stats.outcome.tensors_spilled, 1u);
  // a's store after its def (3072 bytes) and its reload before the sum (a 1024-byte view).
  const uint64_t cost = dmaCycles(Space::Sbuf, Space::Dram, 8 * 3072) + dmaCycles(Space::Dram, Space::Sbuf, 8 * 1024);
  EXPECT_EQ(r.stats.outcome.spill_cycles, double(cost));
  EXPECT_EQ(r.stats.spill_bytes, 8u * 3072u);  // a's
  EXPECT_EQ(r.stats.outcome.rounds, 2u);
  const TensorId slot = r.program.findTensor("a_Spill0");
  ASSERT_NE(slot, kNone);
  EXPECT_EQ(r.program.tensors[slot].space, Space::Dram);
  EXPECT_FALSE(r.program.tensors[slot].placement.has_value());  // private storage
  EXPECT_TRUE(checkProgram(r.program).empty());
  expectCorrectUnderTwoPoisons(p, r.program, "spillA");
}

TEST(SbufAllocator, SameInputGivesByteIdenticalOutput) {
  for (const char* file : {"layernorm_tiny.nki.txt", "transpose_identity_tiny.nki.txt"}) {
    const Program p = parseProgram(readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/" + file));
    const SbufResult a = allocateSbuf(allocatePsum(p).program);
    const SbufResult b = allocateSbuf(allocatePsum(p).program);
    EXPECT_EQ(printProgram(a.program), printProgram(b.program)) << file;
    EXPECT_EQ(a.stats, b.stats) << file;
  }
}

TEST(SbufAllocator, PinnedAndAlreadyPlacedTensorsAreObstaclesThatKeepTheirPlace) {
  const Program p = parseProgram(
      "arch tiny\n"
      "dram X [8, 64] f32 input\n"
      "dram Y [8, 64] f32 output\n"
      "sbuf f [8, 64] f32 pinned @p0+0\n"
      "sbuf g [8, 64] f32 @p0+512\n"
      "sbuf a [8, 64] f32\n"
      "sbuf b [8, 64] f32\n"
      "\n"
      "dma f, X\n"
      "dma g, X\n"
      "tt a, f, g, add\n"
      "tt b, a, f, add\n"
      "dma Y, b\n");
  const SbufResult r = allocateSbuf(p);
  EXPECT_EQ(r.program.tensors[2].placement, (Placement{0, 0, 0}));
  EXPECT_EQ(r.program.tensors[3].placement, (Placement{0, 512, 0}));
  EXPECT_EQ(r.program.tensors[4].placement, (Placement{0, 256, 0}));  // between f and g
  EXPECT_EQ(r.program.tensors[5].placement, (Placement{0, 512, 0}));  // beside a and f; g is dead by then
  expectCorrectUnderTwoPoisons(p, r.program, "pinned");
}

TEST(SbufAllocator, PsumSpillSlotIsRehomedToDramWhenSbufIsFull) {
  // s holds acc's value while a and b, which do not fit beside it, are live; rehoming s is cheaper than spilling a.
  const Program p = parseProgram(
      "arch tiny sbuf-bytes=1024\n"
      "dram X [8, 128] f32 input\n"
      "dram Y [8, 128] f32 output\n"
      "dram Z [8, 64] f32 output\n"
      "psum acc [8, 64] f32 @bank0\n"
      "sbuf s [8, 64] f32 !spill(acc)\n"
      "sbuf a [8, 128] f32\n"
      "sbuf b [8, 128] f32\n"
      "\n"
      "memset acc, 1.0\n"
      "dma s, acc !spill\n"
      "dma a, X\n"
      "dma b, X\n"
      "tt a, a, b, add\n"
      "dma acc, s !reload\n"
      "dma Y, a\n"
      "dma Z, acc\n");
  ASSERT_TRUE(checkProgram(p).empty());
  const SbufResult r = allocateSbuf(p);
  EXPECT_EQ(r.program.tensors[p.findTensor("s")].space, Space::Dram);
  EXPECT_EQ(r.program.tensors[p.findTensor("a")].space, Space::Sbuf);
  EXPECT_EQ(r.program.findTensor("a_Spill0"), kNone);
  EXPECT_EQ(r.stats.outcome.tensors_spilled, 1u);
  EXPECT_TRUE(checkProgram(r.program).empty());
  // p is itself an allocation (s is acc's spill slot): the reference is recovered from the result.
  const Verdict v = checkAllocation(r.program);
  EXPECT_TRUE(v.ok()) << describeDefect(v, "rehome");
}

TEST(SbufAllocator, OperandsOfOneInstructionBeyondSbufAreACleanAllocError) {
  const Program p = parseProgram(
      "arch tiny\n"
      "dram A [8, 512] f32 input\n"
      "dram Y [8, 512] f32 output\n"
      "sbuf a [8, 512] f32\n"
      "sbuf b [8, 512] f32\n"
      "sbuf c [8, 512] f32\n"
      "\n"
      "dma a, A\n"
      "dma b, A\n"
      "tt c, a, b, add\n"
      "dma Y, c\n");
  ASSERT_TRUE(checkProgram(p).empty());
  // Round 1 spills a (live at b's load, which does not touch it); its stand-in still meets b and c at the tt.
  EXPECT_EQ(allocErrorOf(p),
            "SBUF cannot hold sbuf tensor 'c' [8, 512] f32: the tensors live with it at line 10 ('c' (8 x 2048), "
            "'a_Reload2' (8 x 2048), 'b_Reload5' (8 x 2048), partitions x bytes), none of which can be "
            "spilled, need 49152 bytes (partitions x bytes per partition); SBUF has 32768 (8 partitions x 4096 bytes)");
  try {
    allocateSbuf(p);
  } catch (const AllocError& e) {
    EXPECT_EQ(e.loc().line, 6u);  // c's declaration
  }
}

// Within capacity (8 x 1024 + 4 x 4096 = 24,576 of 32,768 bytes) but never placeable together: b fills every byte
// of its 4 partitions and a needs all 8. The error names the pair instead of only "no free rectangle".
TEST(SbufAllocator, TwoOperandsThatCanNeverShareSbufAreNamed) {
  const Program p = parseProgram(
      "arch tiny\n"
      "dram A [8, 512] f32 input\n"
      "dram B [4, 1024] f32 input\n"
      "dram Y [4, 1024] f32 output\n"
      "sbuf a [8, 512] f32\n"
      "sbuf b [4, 1024] f32\n"
      "\n"
      "dma a, A\n"
      "dma b, B\n"
      "dma b[0:4, 0:512], a[0:4, 0:512]\n"
      // Reads b's first half and writes its second: one instruction reaches every byte of b (4096 per partition)
      // and a's 2048 bytes on partitions 0..3, so neither reload can be narrowed below its whole rows.
      "tt b[0:4, 512:512], a[0:4, 0:512], b[0:4, 0:512], add\n"
      "dma Y, b\n");
  ASSERT_TRUE(checkProgram(p).empty());
  const std::string msg = allocErrorOf(p);
  EXPECT_EQ(msg.rfind("SBUF cannot hold sbuf tensor '", 0), 0u) << msg;
  EXPECT_NE(msg.find("and no placement holds both: "), std::string::npos) << msg;
  // Whichever of the two (or their stand-ins) failed, the other one is named, with the shared-partition arithmetic.
  const bool a_failed = msg.find("partitions always share one, which would need 2048 + 4096 bytes of 4096") !=
                        std::string::npos;
  const bool b_failed = msg.find("partitions always share one, which would need 4096 + 2048 bytes of 4096") !=
                        std::string::npos;
  EXPECT_TRUE(a_failed || b_failed) << msg;
  EXPECT_EQ(msg.find("no free rectangle"), std::string::npos) << msg;
}

TEST(SbufAllocator, TensorLargerThanSbufIsAnInputError) {
  Program p = parseProgram("arch tiny\nsbuf x [8, 2048] f32\n");
  try {
    allocateSbuf(p);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.format("f"), "f:2:6: sbuf tensor 'x' needs 8192 bytes per partition; SBUF has 4096\n");
  }
}

// --- the whole pipeline on the corpus and on generated programs ---------------------------------------------------

TEST(SbufAllocator, Gen2CorpusKernelsAllocateWithoutSpillsInNoMoreBytesThanGreedy) {
  size_t checked = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    if (testing_placed::isTinyKernel(file)) continue;
    const Program p = parseProgram(text);
    const PsumResult psum = allocatePsum(p);
    ASSERT_EQ(int64_t(psum.stats.outcome.tensors_spilled), 0) << file;
    const SbufResult r = allocateSbuf(psum.program);
    EXPECT_EQ(int64_t(r.stats.outcome.tensors_spilled), 0) << file;
    EXPECT_EQ(r.program.tensors.size(), p.tensors.size()) << file;
    const uint64_t ours = sbufFootprintBytes(r.program);
    const uint64_t greedy = sbufFootprintBytes(placeGreedy(p));
    const int64_t lower = int64_t(r.stats.max_live_bytes);
    EXPECT_LE(ours, greedy) << file;
    EXPECT_GE(int64_t(ours), lower) << file;
    std::cout << "[ sbuf ] " << file << ": peak SBUF bytes " << ours << " (greedy " << greedy << "), max-live lower bound "
              << lower << ", best heuristic " << r.stats.outcome.best.heuristic << "\n";
    expectCorrectUnderTwoPoisons(p, placeRegisters(r.program), file);
    ++checked;
  }
  EXPECT_EQ(checked, testing_placed::corpusKernelCount(false));
}

TEST(SbufAllocator, TinyCorpusKernelsAllocateWithSpillsAndPassTheOracles) {
  size_t checked = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    if (!testing_placed::isTinyKernel(file)) continue;
    const Program p = parseProgram(text);
    const PsumResult psum = allocatePsum(p);
    const SbufResult r = allocateSbuf(psum.program);
    const int64_t spilled = int64_t(psum.stats.outcome.tensors_spilled) + int64_t(r.stats.outcome.tensors_spilled);
    EXPECT_GT(spilled, 0) << file;
    std::cout << "[ sbuf ] " << file << ": PSUM spilled " << int64_t(psum.stats.outcome.tensors_spilled)
              << ", SB spilled " << int64_t(r.stats.outcome.tensors_spilled) << ", peak SBUF bytes "
              << sbufFootprintBytes(r.program) << ", max-live lower bound " << int64_t(r.stats.max_live_bytes)
              << ", rounds " << r.stats.outcome.rounds << "\n";
    ASSERT_TRUE(checkProgram(r.program).empty()) << file << "\n" << printProgram(r.program);
    expectCorrectUnderTwoPoisons(p, placeRegisters(r.program), file);
    ++checked;
  }
  EXPECT_EQ(checked, testing_placed::corpusKernelCount(true));
}

TEST(SbufAllocator, GeneratedProgramsAllocateAndPassTheOraclesOrFailCleanly) {
  Arch arch = *archPreset("tiny");
  ASSERT_EQ(applyArchOverride(arch, "sp-registers", "64"), "");
  uint32_t allocated = 0, with_spills = 0, psum_refused = 0, sbuf_refused = 0;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    SeededChoices c(seed * 7919 + 13);
    const Program p = generateProgram(c, GenOptions{arch, uint32_t(5 + seed % 30), uint32_t(50 + seed % 201)});
    const std::string what = "seed " + std::to_string(seed);
    PsumResult psum;
    try {
      psum = allocatePsum(p);
    } catch (const AllocError& e) {
      ++psum_refused;  // tests/alloc/psum_allocator_test.cpp accounts for these
      continue;
    }
    Program out;
    try {
      const SbufResult r = allocateSbuf(psum.program);
      with_spills += int64_t(r.stats.outcome.tensors_spilled) > 0;
      out = r.program;
    } catch (const AllocError& e) {
      ++sbuf_refused;
      const std::string msg = e.what();
      // Nothing could help: the message names the tensor and the demand against SBUF.
      EXPECT_EQ(msg.rfind("SBUF cannot hold sbuf tensor '", 0), 0u) << what << ": " << msg;
      EXPECT_NE(msg.find(" bytes (partitions x bytes per partition); SBUF has 32768 (8 partitions x 4096 bytes)"),
                std::string::npos) << what << ": " << msg;
      continue;
    }
    ++allocated;
    out = placeRegisters(out);
    ASSERT_TRUE(checkProgram(out).empty()) << what;
    expectCorrectUnderTwoPoisons(p, out, what);
    if (::testing::Test::HasFailure()) {
      std::cout << printProgram(p) << "\n----\n" << printProgram(out);
      return;
    }
  }
  std::cout << "[ sbuf ] 500 generated programs (tiny, pressure 50..250): " << allocated << " allocated and verified ("
            << with_spills << " with SB spills); AllocError: " << sbuf_refused << " from SB, " << psum_refused
            << " from PSUM\n";
  EXPECT_EQ(allocated + sbuf_refused + psum_refused, 500u);
  EXPECT_GE(allocated, 300u);
  EXPECT_GE(with_spills, 100u);
}

}  // namespace
}  // namespace allocsim
