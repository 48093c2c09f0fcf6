// The PSUM colorer of the production allocator (alloc/psum/): bank footprint and capacity guard, interference and the
// additive degree test, bitmap first fit, accumulation-group costs, TensorCopy spill code, the best-of-n driver and its
// report; every corpus kernel allocates, and allocated programs pass the three oracles.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/greedy_placer.h"
#include "alloc/liveness.h"
#include "alloc/psum/psum_allocator.h"
#include "alloc/psum/psum_bank_model.h"
#include "alloc/psum/psum_costs.h"
#include "alloc/psum/psum_def_regions.h"
#include "alloc/psum/psum_interference.h"
#include "alloc/psum/psum_select.h"
#include "alloc/psum/psum_simplify.h"
#include "gen/generate.h"
#include "ir/check.h"
#include "tests/common/files.h"
#include "verify/correct.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/alloc/colorer_checks.h"
#include "tests/common/thrown.h"
#include "tests/common/verify_checks.h"
#include "verify/equivalence.h"
#include "verify/placement.h"
#include "verify/symbolic.h"

namespace allocsim {
namespace {

// A node's neighbours as a list, to compare.
using testing_colorer::findingsText;
using testing_colorer::neighboursOf;

const std::string kKernelDir = std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/";

std::string readKernel(const std::string& file) { return readFile(kKernelDir + file); }

// The SBUF colorer is not ours: place the unplaced SBUF tensors (the spill slots among them) with placeGreedy,
// keeping the PSUM banks this allocator chose by pinning them for the call.
Program placeTheRest(const Program& psum_allocated) {
  return testing_colorer::placeTheRestGreedily(psum_allocated, [](const Tensor& t) { return t.space == Space::Psum; });
}

// --- bank model and guard -------------------------------------------------------------------------------------

TEST(PsumBankModel, FootprintIsCeilOfBytesPerPartitionOverBankBytes) {
  Program p = parseProgram(
      "arch tiny\n"
      "psum a [8, 64] f32\n"
      "psum b [8, 65] f32\n"
      "psum c [1, 256] f32\n");
  EXPECT_EQ(psumBanksOf(p.arch, p.tensors[0]), 1u);  // 256 B = one 256 B bank
  EXPECT_EQ(psumBanksOf(p.arch, p.tensors[1]), 2u);  // 260 B
  EXPECT_EQ(psumBanksOf(p.arch, p.tensors[2]), 4u);  // partitions do not count
  Program g = parseProgram("psum t [128, 512] f32\n");
  EXPECT_EQ(psumBanksOf(g.arch, g.tensors[0]), 1u);  // gen2: one 2 KiB bank
}

TEST(PsumBankModel, CapacityGuardIsTheProductionFatalVerbatim) {
  Program p = parseProgram(
      "arch tiny\n"
      "psum ok [8, 64] f32\n"
      "  psum big [8, 320] f32\n");
  try {
    allocatePsum(p);
    FAIL() << "expected AllocError";
  } catch (const AllocError& e) {
    EXPECT_STREQ(e.what(), "big is too big for PSUM, requires 5 banks with PSUM size 4");
    EXPECT_EQ(e.loc().line, 3u);
    EXPECT_EQ(e.loc().col, 8u);  // the tensor's name
  }
}

// --- interference, the additive test, first fit --------------------------------------------------------------

// a (1 bank) and b (2 banks) overlap; b and c (1 bank) overlap; a and c do not.
Program chainProgram() {
  return parseProgram(
      "arch tiny psum-banks=3\n"
      "sbuf s [8, 8] f32\n"
      "sbuf o [8, 128] f32\n"
      "psum a [8, 64] f32\n"
      "psum b [8, 128] f32\n"
      "psum c [8, 64] f32\n"
      "dram O [8, 128] f32 output\n"
      "\n"
      "memset s, 1.0\n"
      "memset o, 2.0\n"
      "matmul a, s, o[:, 0:64], start, stop\n"
      "matmul b[:, 0:64], s, o[:, 0:64], start, stop\n"
      "matmul b[:, 64:64], s, o[:, 64:64], start, stop\n"
      "copy o[:, 0:64], a\n"
      "matmul c, s, o[:, 0:64], start, stop\n"
      "copy o, b\n"
      "tt o[:, 0:64], o[:, 0:64], c, add\n"
      "dma O, o\n");
}

TEST(PsumInterference, TimeOverlapEdgesAndDemand) {
  Program p = chainProgram();
  ASSERT_TRUE(checkProgram(p).empty());
  Liveness live = computeLiveness(p);
  PsumGraph g = buildPsumGraph(p, live);
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].banks, 1u);
  EXPECT_EQ(g.nodes[1].banks, 2u);
  EXPECT_EQ(g.nodes[2].banks, 1u);
  EXPECT_EQ(neighboursOf(g, 0), (std::vector<uint32_t>{1}));
  EXPECT_EQ(neighboursOf(g, 1), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(neighboursOf(g, 2), (std::vector<uint32_t>{1}));
  EXPECT_EQ(g.total_demand, 4u);
  EXPECT_EQ(g.max_concurrent, 3u);
  // The production ratio: NUM_PSUM_BANKS / total demand = 3 / 4.
  EXPECT_DOUBLE_EQ(psumDemandPercent(p.arch, g), 75.0);
}

TEST(PsumSimplify, AdditiveBankTest) {
  Program p = chainProgram();
  Liveness live = computeLiveness(p);
  PsumGraph g = buildPsumGraph(p, live);
  findPsumCosts(p, g);
  // 3 - own - sum(neighbours): a 3-1-2 = 0, b 3-2-1-1 = -1, c 3-1-2 = 0.
  EXPECT_EQ(psumFreeBanks(g, 3, 0), 0);
  EXPECT_EQ(psumFreeBanks(g, 3, 1), -1);
  EXPECT_EQ(psumFreeBanks(g, 3, 2), 0);
  PsumWorklistSizes sizes;
  std::vector<uint32_t> stack = simplifyPsum(g, 3, PsumHeuristic::TensorOrder, &sizes);
  EXPECT_EQ(sizes.lo, 2u);
  EXPECT_EQ(sizes.hi, 1u);
  EXPECT_EQ(sizes.inf, 0u);
  // lo in tensor order: a first; removing a gives b its bank back (3-2-1 = 0: "neighbor push to low"), and b
  // comes before c in tensor order.
  EXPECT_EQ(stack, (std::vector<uint32_t>{0, 1, 2}));
  // Popped c first: bank 0; b at the first 2-bank window c leaves (1-2); a at the first bank b leaves (0).
  PsumSelection sel = selectPsum(p, g, stack);
  EXPECT_TRUE(sel.failed.empty());
  EXPECT_EQ(sel.base[2], 0u);
  EXPECT_EQ(sel.base[1], 1u);
  EXPECT_EQ(sel.base[0], 0u);
  // Fewest banks first drains a and c before b, so b is colored first and takes banks 0-1.
  std::vector<uint32_t> by_banks = simplifyPsum(g, 3, PsumHeuristic::FewestBanks);
  EXPECT_EQ(by_banks, (std::vector<uint32_t>{0, 2, 1}));
  PsumSelection wide_first = selectPsum(p, g, by_banks);
  EXPECT_EQ(wide_first.base[1], 0u);
  EXPECT_EQ(wide_first.base[2], 2u);
  EXPECT_EQ(wide_first.base[0], 2u);
  EXPECT_EQ(sel.banks_used, 3u);
}

TEST(PsumSelect, FirstFitTakesTheLowestBaseWithEnoughFreeBanks) {
  std::vector<bool> occ = {true, false, false, true, false, false, false, true};
  EXPECT_EQ(firstFitBank(occ, 1), 1u);
  EXPECT_EQ(firstFitBank(occ, 2), 1u);
  EXPECT_EQ(firstFitBank(occ, 3), 4u);
  EXPECT_EQ(firstFitBank(occ, 4), std::nullopt);
  EXPECT_EQ(firstFitBank(std::vector<bool>(4, false), 4), 0u);
}

TEST(PsumSelect, NodeThatFindsNoWindowCannotAllocate) {
  Program p = chainProgram();
  p.arch.psum_banks = 2;  // b (2 banks) and a / c (1 bank) cannot share 2 banks
  Liveness live = computeLiveness(p);
  PsumGraph g = buildPsumGraph(p, live);
  findPsumCosts(p, g);
  // Stack order forced: a popped first (bank 0), then b finds no 2-bank window.
  PsumSelection sel = selectPsum(p, g, {1, 2, 0});
  EXPECT_EQ(sel.base[0], 0u);
  EXPECT_EQ(sel.failed, (std::vector<uint32_t>{1}));
  EXPECT_FALSE(sel.base[1].has_value());
  EXPECT_GT(sel.spill_cost, 0.0);
}

// --- costs ---------------------------------------------------------------------------------------------------

TEST(PsumCosts, BanksTimesLatencyPerSaveAndReload) {
  Program p = chainProgram();
  p.renumber();
  Liveness live = computeLiveness(p);
  PsumGraph g = buildPsumGraph(p, live);
  findPsumCosts(p, g);
  // b: two groups (two saves), one consumer (one reload); a: one group, one consumer.
  PsumSpillPlan b = planPsumSpill(p, p.findTensor("b"));
  ASSERT_TRUE(b.spillable) << b.why_not;
  EXPECT_EQ(b.saves(), 2u);
  EXPECT_EQ(b.reloads, 1u);
  const double move = 64 + (256 * 8) / 64;  // psum_spill_latency.h on tiny: fixed + bank bytes x partitions / bw
  EXPECT_DOUBLE_EQ(g.nodes[1].cost, 2 * 3 * move);
  EXPECT_DOUBLE_EQ(g.nodes[0].cost, 1 * 2 * move);
}

TEST(PsumCosts, ClosedGroupsAreSpillableAfterTheyClose) {
  Program p = parseProgram(
      "arch tiny\n"
      "sbuf s [8, 8] f32\n"
      "sbuf o [8, 64] f32\n"
      "psum straight [8, 64] f32\n"
      "psum looped [8, 64] f32\n"
      "psum written [8, 64] f32\n"
      "reg k\n"
      "\n"
      "memset s, 1.0\n"
      "memset o, 1.0\n"
      "matmul straight, s, o, start\n"
      "loop k = 0, 2, 1 {\n"
      "  matmul straight, s, o\n"
      "}\n"
      "matmul straight, s, o, stop\n"
      "loop k = 0, 2, 1 {\n"
      "  matmul looped, s, o, start@first\n"
      "  matmul looped, s, o, stop@last\n"
      "}\n"
      "copy written, o\n"
      "tt written, written, straight, add\n"
      "copy o, looped\n"
      "tt o, o, written, add\n");
  ASSERT_TRUE(checkProgram(p).empty());
  p.renumber();
  // straight: one save after its closing matmul (ids: memset 0, memset 1, matmul 2, loop 3, matmul 4, matmul 5).
  PsumSpillPlan straight = planPsumSpill(p, p.findTensor("straight"));
  ASSERT_TRUE(straight.spillable) << straight.why_not;
  ASSERT_EQ(straight.group_saves.size(), 1u);
  EXPECT_EQ(straight.group_saves[0].after, 5u);
  EXPECT_EQ(straight.reloads, 1u);
  // looped: saved after its K-loop (id 6), not inside it.
  PsumSpillPlan looped = planPsumSpill(p, p.findTensor("looped"));
  ASSERT_TRUE(looped.spillable) << looped.why_not;
  ASSERT_EQ(looped.group_saves.size(), 1u);
  EXPECT_EQ(looped.group_saves[0].after, 6u);
  // written: two def regions by other instructions (a save after each), two consumers.
  PsumSpillPlan written = planPsumSpill(p, p.findTensor("written"));
  ASSERT_TRUE(written.spillable) << written.why_not;
  EXPECT_TRUE(written.group_saves.empty());
  EXPECT_EQ(written.writer_saves, 2u);
  EXPECT_EQ(written.reloads, 2u);
}

TEST(PsumCosts, GroupsThatCannotBeSavedOnceClosedAreUnspillable) {
  // half: a second group of the same tensor opens inside the first; kz: its K-loop never runs (a save after it
  // would read nothing); idx: the register addressing its group changes inside the group.
  Program p = parseProgram(
      "arch tiny\n"
      "sbuf s [8, 8] f32\n"
      "sbuf o [8, 32] f32\n"
      "psum half [8, 64] f32\n"
      "psum kz [8, 32] f32\n"
      "psum idx [8, 64] f32\n"
      "reg k\n"
      "reg j\n"
      "\n"
      "memset s, 1.0\n"
      "memset o, 1.0\n"
      "matmul half[:, 0:32], s, o, start\n"
      "matmul half[:, 32:32], s, o, start, stop\n"
      "matmul half[:, 0:32], s, o, stop\n"
      "loop k = 0, 0, 1 {\n"
      "  matmul kz, s, o, start@first, stop@last\n"
      "}\n"
      "li j, 0\n"
      "matmul idx[:, j*32:32], s, o, start\n"
      "li j, 0\n"
      "matmul idx[:, j*32:32], s, o, stop\n"
      "copy o, half[:, 0:32]\n"
      "tt o, o, idx[:, 0:32], add\n");
  ASSERT_TRUE(checkProgram(p).empty()) << formatDiagnostic("p", checkProgram(p).front());
  p.renumber();
  Liveness live = computeLiveness(p);
  PsumGraph g = buildPsumGraph(p, live);
  findPsumCosts(p, g);
  for (const char* name : {"half", "kz", "idx"}) {
    EXPECT_FALSE(planPsumSpill(p, p.findTensor(name)).spillable) << name;
    EXPECT_TRUE(isInfiniteCost(g.nodes[g.node_of[p.findTensor(name)]].cost)) << name;
  }
  EXPECT_EQ(planPsumSpill(p, p.findTensor("half")).why_not,
            "a matmul inside an open group that is not a plain continuation or close of it (line 13)");
}

// --- driver, spill, report -----------------------------------------------------------------------------------

TEST(PsumAllocator, ReportLinesAndNoSpillWhenItFits) {
  PsumResult r = allocatePsum(chainProgram());
  for (const Tensor& t : r.program.tensors)
    if (t.space == Space::Psum) {
      EXPECT_TRUE(t.placement.has_value()) << t.name;
    }
  const PsumStats& s = r.stats;
  EXPECT_EQ(s.demand_pct, 75.0);  // capacity 3 banks / demand 4 banks
  EXPECT_EQ(s.outcome.score, 0.75);  // no spill, 3 banks / (3 + 1)
  EXPECT_EQ(s.outcome.best, (ColorOrderName{"tensor-order", false}));
  EXPECT_EQ(s.outcome.spill_cycles, 0.0);
  EXPECT_EQ(s.outcome.tensors_spilled, 0u);
  EXPECT_EQ(s.outcome.utilization_pct, 100.0);
  EXPECT_EQ(s.outcome.rounds, 1u);
  EXPECT_EQ(s.max_concurrent_banks, 3u);
  EXPECT_FALSE(s.trace.on);
  EXPECT_TRUE(s.trace.events.empty());  // nothing recorded round by round unless asked
  expectCorrectAllocation(placeTheRest(r.program), "allocated", 1);
}

TEST(PsumAllocator, VerboseReportHasTheProductionBanners) {
  PsumOptions o;
  o.verbosity = 2;
  PsumResult r = allocatePsum(chainProgram(), o);
  ASSERT_TRUE(r.stats.trace.on);
  // One round that tries the four heuristics, each through simplify and plain; simplify's worklist sizes are
  // recorded for simplify's orders only.
  const std::vector<ColorerEvent>& ev = r.stats.trace.events;
  ASSERT_EQ(ev.size(), 1u + 8u + 1u);
  EXPECT_EQ(std::get<colorer_event::RoundStart>(ev.front()).round, 1u);
  bool fewest_banks = false;
  for (size_t i = 1; i <= 8; ++i) {
    const auto& tried = std::get<colorer_event::Tried>(ev[i]);
    EXPECT_EQ(tried.sizes.has_value(), !tried.order.plain);
    EXPECT_TRUE(tried.failed.empty());
    if (tried.order.heuristic != "fewest-banks" || tried.order.plain) continue;
    fewest_banks = true;
    EXPECT_EQ(tried.sizes->lo, 2u);
    EXPECT_EQ(tried.sizes->lo + tried.sizes->hi + tried.sizes->inf, 3u);
  }
  EXPECT_TRUE(fewest_banks);
  EXPECT_TRUE(std::holds_alternative<colorer_event::RoundBest>(ev.back()));
}

// True when some instruction of `body` (loops included) is not original: spill code.
bool hasInserted(const std::vector<Instruction>& body) {
  for (const Instruction& i : body)
    if (i.origin != Origin::Source || hasInserted(i.body)) return true;
  return false;
}

// The K-loops of `body` (loops directly holding a start@first matmul), recursively, with the instruction that
// follows each in its block (nullptr at the end of a block).
void kLoops(const std::vector<Instruction>& body,
            std::vector<std::pair<const Instruction*, const Instruction*>>& out) {
  for (size_t k = 0; k < body.size(); ++k) {
    const Instruction& i = body[k];
    if (i.op != Op::Loop) continue;
    bool opens = false;
    for (const Instruction& j : i.body) opens |= j.op == Op::Matmul && j.start == When::First;
    if (opens) out.push_back({&i, k + 1 < body.size() ? &body[k + 1] : nullptr});
    else kLoops(i.body, out);
  }
}

TEST(PsumAllocator, MatmulBlockedTinySpillsClosedAccumulators) {
  Program p = parseProgram(readKernel("matmul_blocked_tiny.nki.txt"));
  PsumOptions o;
  o.verbosity = 1;
  PsumResult r = allocatePsum(p, o);
  const Program& a = r.program;
  // Well-formed: no spill code touches an open accumulation group.
  EXPECT_EQ(checkProgram(a).size(), 0u) << formatDiagnostic("allocated", checkProgram(a).front());
  std::vector<std::string> spilled;
  uint32_t reloads = 0;
  for (const Tensor& t : a.tensors) {
    if (t.space == Space::Psum) {
      EXPECT_TRUE(t.placement.has_value()) << t.name;
    }
    if (t.name.find("_SpillTensorCopy") != std::string::npos) {
      EXPECT_EQ(t.space, Space::Sbuf);
      EXPECT_EQ(t.origin, Origin::Spill);
      EXPECT_FALSE(t.placement.has_value());  // the SBUF colorer's job
      ASSERT_LT(t.copy_of, a.tensors.size());
      EXPECT_EQ(t.name.rfind(a.tensors[t.copy_of].name + "_SpillTensorCopy", 0), 0u);
      spilled.push_back(a.tensors[t.copy_of].name);
    }
    if (t.name.find("_ReloadTensorCopy") != std::string::npos) {
      ++reloads;
      EXPECT_EQ(t.space, Space::Psum);
      EXPECT_EQ(t.origin, Origin::Reload);
      EXPECT_EQ(t.elements, 64u);  // the full shape of the accumulator
    }
  }
  // Six accumulators hold results together, one group is open at a time, PSUM has four banks: spilling three
  // closed accumulators leaves at most four banks in use anywhere (three results and one open group, or three
  // results and one reload).
  EXPECT_EQ(spilled, (std::vector<std::string>{"acc0", "acc1", "acc2"}));
  EXPECT_EQ(reloads, 3u);
  EXPECT_EQ(r.stats.outcome.tensors_spilled, 3u);
  EXPECT_EQ(r.stats.outcome.utilization_pct, 100.0);
  EXPECT_EQ(r.stats.max_concurrent_banks, 6u);
  EXPECT_EQ(r.stats.banks_used, 4u);
  EXPECT_EQ(r.stats.spill_saves, 3u);
  EXPECT_EQ(r.stats.spill_reloads, 3u);
  bool acc_failed = false;  // a round's selection could not give an accumulator its bank
  for (const ColorerEvent& e : r.stats.trace.events)
    if (const auto* tried = std::get_if<colorer_event::Tried>(&e))
      for (const colorer_event::FailedNode& f : tried->failed) acc_failed |= f.tensor.rfind("acc", 0) == 0 && f.size == 1;
  EXPECT_TRUE(acc_failed);

  // Nothing inside a K-loop; each spilled accumulator's K-loop is followed by its save, a whole-tensor copy of
  // the accumulator itself (its matmuls still write it).
  std::vector<std::pair<const Instruction*, const Instruction*>> loops;
  kLoops(a.body, loops);
  ASSERT_EQ(loops.size(), 6u);
  for (const auto& [loop, next] : loops) {
    EXPECT_FALSE(hasInserted(loop->body));
    const std::string acc = a.tensors[loop->body.back().dst.tensor].name;
    const bool is_spilled = std::find(spilled.begin(), spilled.end(), acc) != spilled.end();
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(next->origin == Origin::Spill, is_spilled) << acc;
    if (is_spilled) {
      EXPECT_EQ(a.tensors[next->a.tensor].name, acc);
      EXPECT_TRUE(isFullAccess(a, next->a));
      EXPECT_EQ(a.tensors[next->dst.tensor].copy_of, a.findTensor(acc));
    }
  }
  // One reload right before each consumer, which reads it instead of the accumulator.
  const std::string text = printProgram(a);
  for (size_t n = 0; n < spilled.size(); ++n) {
    const TensorId acc = a.findTensor(spilled[n]);
    std::string slot, reload;
    for (const Tensor& t : a.tensors) {
      if (t.copy_of != acc) continue;
      (t.origin == Origin::Spill ? slot : reload) = t.name;
    }
    const std::string consumer = "copy res_block[:, " + std::to_string(64 * (spilled[n].back() - '0')) + ":64], ";
    EXPECT_NE(text.find("    dma " + reload + ", " + slot + " !reload\n    " + consumer + reload + "\n"),
              std::string::npos)
        << spilled[n] << "\n" << text;
    EXPECT_EQ(text.find(consumer + spilled[n] + "\n"), std::string::npos) << spilled[n];
  }
  // The result reparses to itself (the spill code is in the format) and passes the oracles.
  EXPECT_EQ(parseProgram(text), a);
  Program placed = placeTheRest(a);
  EXPECT_TRUE(checkProgram(placed).empty());
  expectCorrectAllocation(placed, "allocated", 1);
}

TEST(PsumAllocator, OraclesRejectASpilledProgramWithABankMovedOntoALiveOne) {
  // The oracle path of the tests above can fail: put every PSUM stand-in on the bank of a live accumulator.
  Program a = placeTheRest(allocatePsum(parseProgram(readKernel("matmul_blocked_tiny.nki.txt"))).program);
  const uint32_t acc3_bank = a.tensors[a.findTensor("acc3")].placement->bank;
  for (Tensor& t : a.tensors)
    if (t.origin == Origin::Reload) t.placement->bank = acc3_bank;
  EXPECT_FALSE(checkPlacement(a).empty());
  EXPECT_FALSE(checkSymbolic(a).empty());
}

// Three one-bank accumulators x, y and z on a 2-bank PSUM, with s and o to multiply (declarations on lines 1-6).
constexpr const char* kThreeAccumulatorsOnTwoBanks =
    "arch tiny psum-banks=2\nsbuf s [8, 8] f32\nsbuf o [8, 64] f32\npsum x [8, 64] f32\npsum y [8, 64] f32\n"
    "psum z [8, 64] f32\n";

TEST(PsumAllocator, TooManyReloadsWhenOpenGroupsAloneExceedPsum) {
  // Three accumulation groups open at once on a 2-bank PSUM: each may be saved once closed, but no spill frees
  // a bank while the three are open together.
  Program p = parseProgram(
      std::string(kThreeAccumulatorsOnTwoBanks) +
      "\n"
      "memset s, 1.0\n"
      "memset o, 1.0\n"
      "matmul x, s, o, start\n"
      "matmul y, s, o, start\n"
      "matmul z, s, o, start\n"
      "matmul x, s, o, stop\n"
      "matmul y, s, o, stop\n"
      "matmul z, s, o, stop\n"
      "copy o, x\n"
      "tt o, o, y, add\n"
      "tt o, o, z, add\n");
  ASSERT_TRUE(checkProgram(p).empty());
  const std::string what = messageThrown<AllocError>([&] { allocatePsum(p); }, "allocated");
  EXPECT_EQ(what.rfind("PSUM cannot hold ", 0), 0u) << what;
}

TEST(PsumAllocator, TooManyReloadsWhenOpenKLoopGroupsExceedPsum) {
  // Three K-loop groups open over the same loop on a 2-bank PSUM; each is saved after the loop once spilled, but
  // inside the loop all three hold their banks, so spilling them (one round each) frees nothing there.
  Program p = parseProgram(
      std::string(kThreeAccumulatorsOnTwoBanks) +
      "reg k\n"
      "\n"
      "memset s, 1.0\n"
      "memset o, 1.0\n"
      "loop k = 0, 4, 1 {\n"
      "  matmul x, s, o, start@first, stop@last\n"
      "  matmul y, s, o, start@first, stop@last\n"
      "  matmul z, s, o, start@first, stop@last\n"
      "}\n"
      "copy o, x\n"
      "tt o, o, y, add\n"
      "tt o, o, z, add\n");
  ASSERT_TRUE(checkProgram(p).empty());
  try {
    allocatePsum(p);
    FAIL() << "expected AllocError";
  } catch (const AllocError& e) {
    // The obstacle named: over the loop all three groups are open together, 3 banks against 2.
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("PSUM cannot hold psum tensor 'x' [8, 64] f32 (1 bank", 0), 0u) << what;
    EXPECT_NE(what.find("at line 11"), std::string::npos) << what;  // the loop, where all three are open
    EXPECT_NE(what.find("y (1 bank"), std::string::npos) << what;
    EXPECT_NE(what.find("z (1 bank"), std::string::npos) << what;
    EXPECT_NE(what.find("together they need 3 banks and PSUM has 2;"), std::string::npos) << what;
    EXPECT_EQ(what.find("spillable)"), std::string::npos) << what;
    EXPECT_EQ(e.loc().line, 4u);  // x's declaration
  }
}

TEST(PsumAllocator, SpillSlotGoesToDramWhenItsRowsDoNotFitSbuf) {
  // One bank, two overlapping accumulators; a 256-byte row does not fit a 128-byte SBUF partition.
  Program p = parseProgram(
      "arch tiny psum-banks=1 sbuf-bytes=128\n"
      "sbuf s [8, 8] f32\n"
      "sbuf o [8, 16] f32\n"
      "psum x [8, 64] f32\n"
      "psum y [8, 64] f32\n"
      "dram O [8, 16] f32 output\n"
      "\n"
      "memset s, 1.0\n"
      "memset o, 2.0\n"
      "matmul x[:, 16:16], s, o, start, stop\n"
      "matmul y[:, 0:16], s, o, start, stop\n"
      "copy o, x[:, 16:16]\n"
      "tt o, o, y[:, 0:16], add\n"
      "dma O, o\n");
  ASSERT_TRUE(checkProgram(p).empty());
  PsumResult r = allocatePsum(p);
  uint32_t slots = 0;
  for (const Tensor& t : r.program.tensors) {
    if (t.origin != Origin::Spill) continue;
    ++slots;
    EXPECT_EQ(t.space, Space::Dram) << t.name;
  }
  EXPECT_EQ(slots, 2u);
  // x first; then x's reload before the copy still meets y, so y follows: one bank holds one at a time.
  EXPECT_EQ(r.stats.outcome.tensors_spilled, 2u);
  // The reloads are laid out like the tensor they stand for, and operands keep their views (a stand-in shaped
  // like the view broke the verifier's reference, which reads x_ReloadTensorCopy1[:, 0:16] as x[:, 0:16]).
  for (const Tensor& t : r.program.tensors)
    if (t.origin == Origin::Reload) {
      EXPECT_EQ(t.elements, 64u) << t.name;
    }
  // Each group keeps its accumulator and is saved (its view) right after it closes; each consumer reads a reload.
  const std::string text = printProgram(r.program);
  EXPECT_NE(text.find("matmul x[:, 16:16], s, o, start, stop\n"
                      "dma x_SpillTensorCopy0[:, 16:16], x[:, 16:16] !spill\n"
                      "matmul y[:, 0:16], s, o, start, stop\n"
                      "dma y_SpillTensorCopy2[:, 0:16], y[:, 0:16] !spill\n"
                      "dma x_ReloadTensorCopy1[:, 16:16], x_SpillTensorCopy0[:, 16:16] !reload\n"
                      "copy o, x_ReloadTensorCopy1[:, 16:16]\n"
                      "dma y_ReloadTensorCopy3[:, 0:16], y_SpillTensorCopy2[:, 0:16] !reload\n"
                      "tt o, o, y_ReloadTensorCopy3[:, 0:16], add\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(checkProgram(r.program).empty());
  expectCorrectAllocation(placeTheRest(r.program), "allocated", 1);
}

TEST(PsumAllocator, PinnedPlacementOutsidePsumIsBadInput) {
  Program p = chainProgram();
  TensorId b = p.findTensor("b");
  p.tensors[b].pinned = true;
  p.tensors[b].placement = Placement{0, 0, 2};  // banks 2-3 of 3
  try {
    allocatePsum(p);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.diagnostics().front().message, "placement @bank2 of 'b' (2 banks) exceeds PSUM (3 banks)");
  }
}

TEST(PsumAllocator, Deterministic) {
  Program p = parseProgram(readKernel("matmul_blocked_tiny.nki.txt"));
  PsumResult a = allocatePsum(p), b = allocatePsum(p);
  EXPECT_EQ(printProgram(a.program), printProgram(b.program));
  EXPECT_EQ(a.stats, b.stats);
}

TEST(PsumAllocator, PinnedPlacementIsKept) {
  Program p = chainProgram();
  TensorId c = p.findTensor("c");
  p.tensors[c].pinned = true;
  p.tensors[c].placement = Placement{0, 0, 0};
  PsumResult r = allocatePsum(p);
  EXPECT_EQ(r.program.tensors[c].placement->bank, 0u);
  EXPECT_NE(r.program.tensors[p.findTensor("b")].placement->bank, 0u);
  expectCorrectAllocation(placeTheRest(r.program), "allocated", 1);
}

// --- keeping a loop's freshly read banks apart (psum_recent_banks.h) ------------------------------------------

// tiny (4 banks of 256 bytes), in a loop: one row s is broadcast into p (one bank), p is read by the vector engine,
// then s is broadcast into q and q read. p and q are never live together, so select's first fit puts both in bank 0,
// where q's broadcast must wait for p's reader; banks 1-3 are free.
std::string twoBroadcasts(bool in_loop) {
  std::string t = "arch tiny\ndram S [1, 64] f32 input\ndram Y [8, 64] f32 output\ndram Z [8, 64] f32 output\n"
                  "sbuf s [1, 64] f32\nsbuf o1 [8, 64] f32\nsbuf o2 [8, 64] f32\n"
                  "psum p [8, 64] f32\npsum q [8, 64] f32\n";
  t += in_loop ? "reg i\nloop i = 0, 4, 1 {\n" : "";
  t += "dma s, S\nbroadcast p, s\ntt o1, p, p, add\ndma Y, o1\nbroadcast q, s\ntt o2, q, q, mul\ndma Z, o2\n";
  t += in_loop ? "}\n" : "";
  return t;
}

TEST(PsumRecentBanks, InALoopTensorsThatFollowEachOtherTakeDifferentFreeBanks) {
  const Program p = parseProgram(twoBroadcasts(true));
  const PsumResult r = allocatePsum(p);
  const uint32_t bp = r.program.tensors[p.findTensor("p")].placement->bank;
  const uint32_t bq = r.program.tensors[p.findTensor("q")].placement->bank;
  EXPECT_NE(bp, bq);
  EXPECT_EQ(r.stats.banks_used, 2u);
  expectCorrectAllocation(p, placeTheRest(r.program), "two broadcasts in a loop", 1);
}

TEST(PsumRecentBanks, OutsideLoopsSelectsFirstFitStays) {
  const Program p = parseProgram(twoBroadcasts(false));
  const PsumResult r = allocatePsum(p);
  EXPECT_EQ(r.program.tensors[p.findTensor("p")].placement->bank, 0u);
  EXPECT_EQ(r.program.tensors[p.findTensor("q")].placement->bank, 0u);
  EXPECT_EQ(r.stats.banks_used, 1u);
}

TEST(PsumRecentBanks, WithoutAFreeBankNothingMoves) {
  // One bank: p and q can only share it.
  Program p = parseProgram(twoBroadcasts(true));
  p.arch.psum_banks = 1;
  const PsumResult r = allocatePsum(p);
  EXPECT_EQ(r.program.tensors[p.findTensor("p")].placement->bank, 0u);
  EXPECT_EQ(r.program.tensors[p.findTensor("q")].placement->bank, 0u);
}

// --- the corpus ----------------------------------------------------------------------------------------------

class PsumCorpus : public ::testing::TestWithParam<const char*> {};

TEST_P(PsumCorpus, AllocatesAndPassesTheOracles) {
  const std::string file = GetParam();
  Program p = parseProgram(readKernel(file));
  PsumResult r = allocatePsum(p);
  for (const Tensor& t : r.program.tensors)
    if (t.space == Space::Psum) {
      EXPECT_TRUE(t.placement.has_value()) << t.name;
    }
  const bool tiny = file.find("_tiny") != std::string::npos;
  if (!tiny) {
    EXPECT_EQ(r.stats.outcome.tensors_spilled, 0u) << file;
  }
  // The tiny kernels overfill SBUF, which placeGreedy (no spilling) cannot place: the oracles run on gen2 ones
  // and on matmul_blocked_tiny (above).
  if (!tiny) expectCorrectAllocation(placeTheRest(r.program), "allocated", 1);
  EXPECT_LE(r.stats.banks_used, r.stats.banks) << file;
  std::cout << "[psum figures] " << file << ": banks used " << r.stats.banks_used << ", max concurrent demand "
            << r.stats.max_concurrent_banks << ", spilled " << r.stats.outcome.tensors_spilled << "\n";
}

INSTANTIATE_TEST_SUITE_P(Kernels, PsumCorpus,
                         ::testing::Values("attention_block.nki.txt", "attention_block_tiny.nki.txt",
                                           "layernorm.nki.txt", "layernorm_tiny.nki.txt", "looped_add.nki.txt",
                                           "looped_add_tiny.nki.txt", "matmul_blocked.nki.txt",
                                           "matmul_blocked_tiny.nki.txt", "matmul_hoisted.nki.txt",
                                           "matmul_hoisted_tiny.nki.txt", "matmul_tiled.nki.txt",
                                           "matmul_tiled_tiny.nki.txt", "pooling.nki.txt", "pooling_tiny.nki.txt",
                                           "transpose_identity.nki.txt", "transpose_identity_tiny.nki.txt"));

// --- generated programs ----------------------------------------------------------------------------------------

// 300 generated tiny programs at PSUM pressure 100..200%, allocated on a machine where only PSUM is short
// (64 SP registers and a 1 MiB SBUF, so that placeGreedy places the rest without spilling): every result is
// well-formed (no spill code inside an open accumulation group) and passes the three oracles, or allocation is
// refused with a clean AllocError ("PSUM cannot hold": groups open together need more banks than PSUM
// has, or spilling the closed tensors around them does not free enough). The same input gives a byte-identical
// output and report.
TEST(PsumGenerated, WellFormedAndPassTheOraclesOrAreRefused) {
  uint32_t fit = 0, spilled = 0, refused = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    SeededChoices choices(seed);
    GenOptions o;
    o.arch = *archPreset("tiny");
    o.size = 25;
    o.pressure = 100 + uint32_t(seed % 101);
    Program p = generateProgram(choices, o);
    ASSERT_EQ(applyArchOverride(p.arch, "sp-registers", "64"), "");
    ASSERT_EQ(applyArchOverride(p.arch, "sbuf-bytes", "1048576"), "");
    ASSERT_TRUE(checkProgram(p).empty());
    PsumResult r;
    try {
      r = allocatePsum(p);
    } catch (const AllocError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("PSUM cannot hold ", 0), 0u) << e.what();
      ++refused;
      continue;
    }
    PsumResult again = allocatePsum(p);
    EXPECT_EQ(printProgram(again.program), printProgram(r.program));
    EXPECT_EQ(again.stats, r.stats);
    const bool did_spill = r.stats.outcome.tensors_spilled != 0;
    ++(did_spill ? spilled : fit);
    const std::vector<Diagnostic> ill = checkProgram(r.program);
    EXPECT_TRUE(ill.empty()) << formatDiagnostic("allocated", ill.front()) << "\n" << printProgram(r.program);
    if (!ill.empty()) continue;
    Program a = placeTheRest(r.program);
    EXPECT_TRUE(checkProgram(a).empty());
    expectCorrectAllocation(a, "allocated", 1);
  }
  std::cout << "[psum generated] 300 programs: " << fit << " fit without spilling, " << spilled
            << " spilled (well-formed, oracles pass), " << refused << " refused (PSUM cannot hold)\n";
  EXPECT_EQ(fit + spilled + refused, 300u);
  EXPECT_GE(spilled, 30u);  // the pressure makes the spill path common, not incidental
}

}  // namespace
}  // namespace allocsim
