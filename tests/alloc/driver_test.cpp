// The allocation driver (alloc/driver.h) and the Selection Map it follows (alloc/optlevel.h, the production
// allocator): which path every combination of optlevel, allocator, cores and the two remapping flags selects, or
// which clean error; what each path produces, checked by the three oracles; O7 reproducing placements pinned from an
// O2 run.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/psum/psum_allocator.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/common/placed_program_checks.h"
#include "tests/common/thrown.h"
#include "tests/common/verify_checks.h"
#include "tools/report_format.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

std::string selectionError(const SelectionInput& in) {
  return messageThrown<OptionError>([&] { selectAllocator(in); }, "selected");
}

SelectionInput at(int optlevel, std::string allocator = "", int cores = 1) {
  SelectionInput in;
  in.optlevel = optlevel;
  in.allocator = std::move(allocator);
  in.cores = cores;
  return in;
}

// --allocator and -O together: the name picks the allocator, the optlevel the effort; -O0, -O7, -O8 are aliases.
TEST(SelectionMap, AllocatorNameAndOptlevelResolve) {
  auto is = [](AllocatorChoice c, int level, const std::string& name) {
    EXPECT_EQ(c.optlevel, level);
    EXPECT_EQ(c.allocator, name);
  };
  is(resolveAllocator("", std::nullopt), 2, "");
  is(resolveAllocator("", 7), 7, "");
  is(resolveAllocator("coloring", std::nullopt), 2, "coloring");
  is(resolveAllocator("coloring", 3), 3, "coloring");
  is(resolveAllocator("no-reuse", std::nullopt), 0, "");
  is(resolveAllocator("fixed", std::nullopt), 7, "");
  is(resolveAllocator("fixed", 7), 7, "");
  is(resolveAllocator("lsa", std::nullopt), 8, "");
  is(resolveAllocator("lsa", 6), 6, "lsa");
  is(resolveAllocator("exact", 7), 7, "exact");
  EXPECT_THROW(resolveAllocator("fixed", 2), OptionError);
  EXPECT_THROW(resolveAllocator("no-reuse", 1), OptionError);
  EXPECT_THROW(resolveAllocator("coloring", 0), OptionError);
  // Each alias selects the path its name does.
  EXPECT_EQ(selectAllocator(at(resolveAllocator("fixed", std::nullopt).optlevel)).path, AllocPath::FixedAssignment);
  EXPECT_EQ(selectAllocator(at(resolveAllocator("no-reuse", std::nullopt).optlevel)).path, AllocPath::NoReuse);
  EXPECT_EQ(selectAllocator(at(resolveAllocator("lsa", std::nullopt).optlevel)).path, AllocPath::LinearScan);
  const AllocatorChoice lsa6 = resolveAllocator("lsa", 6);
  EXPECT_EQ(selectAllocator(at(lsa6.optlevel, lsa6.allocator)).path, AllocPath::LinearScan);
}

TEST(SelectionMap, EachOptlevelSelectsItsPath) {
  const std::vector<std::pair<int, AllocPath>> map = {
      {0, AllocPath::NoReuse},          {1, AllocPath::Coloring},        {2, AllocPath::Coloring},
      {3, AllocPath::Coloring},         {6, AllocPath::ColoringWithLoops}, {7, AllocPath::FixedAssignment},
      {8, AllocPath::LinearScan}};
  for (const auto& [level, path] : map)
    for (const char* allocator : {"", "coloring"}) {
      Selection s = selectAllocator(at(level, allocator));
      EXPECT_EQ(s.optlevel, level);
      EXPECT_EQ(s.path, path) << "-O" << level << " allocator '" << allocator << "'";
    }
  EXPECT_EQ(selectAllocator(at(6, "lsa")).path, AllocPath::LinearScan);
  EXPECT_EQ(selectAllocator(at(8, "lsa")).path, AllocPath::LinearScan);
}

TEST(SelectionMap, LoopsInBackendRemapsTwoToSixAndAnythingElseToEight) {
  for (int level : {0, 1, 2, 3, 6, 7, 8}) {
    SelectionInput in = at(level);
    in.loops_in_backend = true;
    EXPECT_EQ(selectAllocator(in).optlevel, level == 2 ? 6 : 8) << level;
  }
}

TEST(SelectionMap, SmtAllocationForcesSevenEvenWithLoopsInBackend) {
  for (int level : {0, 1, 2, 3, 6, 7, 8}) {
    SelectionInput in = at(level);
    in.smt_allocation = true;
    EXPECT_EQ(selectAllocator(in).path, AllocPath::FixedAssignment) << level;
    in.loops_in_backend = true;
    EXPECT_EQ(selectAllocator(in).optlevel, 7) << level;
  }
}

TEST(SelectionMap, AnUnknownAllocatorQuotesTheAssert) {
  EXPECT_EQ(selectionError(at(2, "greedy")),
            "unknown allocator 'greedy' (expected coloring or lsa; the driver asserts allocator==\"\" || "
            "allocator==\"coloring\" || allocator==\"lsa\")");
}

TEST(SelectionMap, MultiCoreRefusesLsaOptlevelZeroAndEight) {
  const std::string assert_text =
      "(the driver asserts vncNcCount==1 || (allocator!=\"lsa\" && optlevel!=0 && optlevel!=8))";
  EXPECT_EQ(selectionError(at(0, "", 2)),
            "2 cores need a multi-core allocator, but optlevel 0 is single-core only " + assert_text);
  EXPECT_EQ(selectionError(at(8, "", 4)),
            "4 cores need a multi-core allocator, but optlevel 8 is single-core only " + assert_text);
  EXPECT_EQ(selectionError(at(6, "lsa", 2)),
            "2 cores need a multi-core allocator, but --allocator lsa is single-core only " + assert_text);
  // the assert sees the remapped optlevel: loops-in-backend turns -O1 into 8
  SelectionInput loops = at(1, "", 2);
  loops.loops_in_backend = true;
  EXPECT_EQ(selectionError(loops),
            "2 cores need a multi-core allocator, but optlevel 8 is single-core only " + assert_text);
  for (int level : {1, 2, 3, 6, 7}) EXPECT_EQ(selectionError(at(level, "", 2)), "selected") << level;
}

TEST(SelectionMap, OptlevelsOutsideTheMapAreCleanErrors) {
  EXPECT_EQ(selectionError(at(4)), "optlevel 4 does not exist (the selection map has 0, 1, 2, 3, 6, 7 and 8)");
  EXPECT_EQ(selectionError(at(5)), "optlevel 5 does not exist (the selection map has 0, 1, 2, 3, 6, 7 and 8)");
  EXPECT_EQ(selectionError(at(9)), "optlevel 9 is out of range 0..8");
  EXPECT_EQ(selectionError(at(-1)), "optlevel -1 is out of range 0..8");
  EXPECT_EQ(selectionError(at(2, "", 0)), "--cores must be at least 1, got 0");
  EXPECT_EQ(selectionError(at(2, "lsa")),
            "--allocator lsa takes effect only at optlevel 6 (optlevel 8 always uses the linear-scan allocator); "
            "optlevel 2 runs the coloring path");
}

// Every combination either selects a path consistent with the remapped optlevel or is an OptionError; no other
// outcome, and multi-core never gets a single-core path.
TEST(SelectionMap, EveryCombinationIsAPathOrAnOptionError) {
  size_t selected = 0, refused = 0;
  for (int level = -1; level <= 9; ++level)
    for (const char* allocator : {"", "coloring", "lsa", "LSA"})
      for (int cores : {0, 1, 2})
        for (int flags = 0; flags < 4; ++flags) {
          SelectionInput in = at(level, allocator, cores);
          in.loops_in_backend = flags & 1;
          in.smt_allocation = flags & 2;
          try {
            Selection s = selectAllocator(in);
            ++selected;
            EXPECT_TRUE(s.optlevel >= 0 && s.optlevel <= 8 && s.optlevel != 4 && s.optlevel != 5);
            if (cores > 1) {
              EXPECT_TRUE(s.path != AllocPath::NoReuse && s.path != AllocPath::LinearScan);
            }
            if (in.smt_allocation) {
              EXPECT_EQ(s.path, AllocPath::FixedAssignment);
            }
          } catch (const OptionError&) {
            ++refused;
          }
        }
  EXPECT_EQ(selected + refused, 11u * 4 * 3 * 4);
  EXPECT_GT(selected, 50u);
}

Program corpusKernel(const std::string& name) {
  return parseProgram(
      readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/" + name + ".nki.txt"));
}

DriverResult run(const Program& p, int optlevel) {
  DriverOptions o;
  o.optlevel = optlevel;
  return allocate(p, o);
}

// What O7 expects from upstream: the PSUM part of the assignment already made (O7 runs no PSUM coloring pass).
Program psumFixed(const Program& p) { return allocatePsum(p, PsumOptions{}).program; }

std::vector<std::string> stepNames(const DriverResult& r) {
  std::vector<std::string> out;
  for (const StepStats& step : r.steps) out.push_back(cli::stepName(step));
  return out;
}

TEST(Driver, EachPathRunsItsStepsAndRegRunsLast) {
  Program p = corpusKernel("matmul_tiled");
  EXPECT_EQ(stepNames(run(p, 0)), (std::vector<std::string>{"no-reuse", "reg"}));
  // the production allocator: dma_optimization_psum after the PSUM colorer, dma_optimization_sb after the SBUF
  // colorer; at O7 both before SB coloring
  EXPECT_EQ(stepNames(run(p, 2)),
            (std::vector<std::string>{"psum", "dma_optimization_psum", "sbuf", "dma_optimization_sb", "reg"}));
  EXPECT_EQ(stepNames(run(p, 6)),
            (std::vector<std::string>{"psum", "dma_optimization_psum", "sbuf", "dma_optimization_sb", "reg"}));
  EXPECT_EQ(stepNames(run(psumFixed(p), 7)),
            (std::vector<std::string>{"dma_optimization_psum", "dma_optimization_sb", "sbuf", "reg", "in-place"}));
  EXPECT_EQ(stepNames(run(p, 8)), (std::vector<std::string>{"lsa", "reg"}));
  DriverOptions lsa;
  lsa.optlevel = 6;
  lsa.allocator = "lsa";
  const DriverResult liw = allocate(p, lsa);
  EXPECT_EQ(stepNames(liw), (std::vector<std::string>{"lsa", "reg"}));
  EXPECT_TRUE(std::get<LsaStats>(liw.steps[0]).loop_aware);  // run_with_loops: "Linear Scan Allocator(LIW)"
  EXPECT_FALSE(std::get<LsaStats>(run(p, 8).steps[0]).loop_aware);
  // O7 with everything placed: nothing is re-colored
  EXPECT_EQ(stepNames(run(run(p, 2).program, 7)),
            (std::vector<std::string>{"dma_optimization_psum", "dma_optimization_sb", "reg", "in-place"}));
}

TEST(Driver, OptlevelsOneToThreeDifferInBestOfNEffort) {
  for (auto [level, psum, sbuf] : {std::tuple{1, 1u, 1u}, std::tuple{2, 4u, 7u}, std::tuple{3, 4u, 16u},
                                   std::tuple{6, 4u, 7u}, std::tuple{7, 4u, 7u}}) {
    EXPECT_EQ(effortFor(level).psum_heuristics, psum) << level;
    EXPECT_EQ(effortFor(level).sbuf_heuristics, sbuf) << level;
  }
  Program p = corpusKernel("matmul_blocked_tiny");
  for (auto [level, tried] : {std::pair{1, 1}, std::pair{2, 4}, std::pair{3, 4}}) {
    DriverOptions o;
    o.optlevel = level;
    o.verbosity = 1;
    DriverResult r = allocate(p, o);
    ASSERT_EQ(stepNames(r)[0], "psum");
    const PsumStats& psum = std::get<PsumStats>(r.steps[0]);
    int loops = 0;
    for (const ColorerEvent& e : psum.trace.events) loops += std::holds_alternative<colorer_event::Tried>(e);
    const int rounds = int(psum.outcome.rounds);
    EXPECT_EQ(loops, 2 * tried * rounds) << "-O" << level;  // each heuristic through simplify and plain
  }
}

TEST(Driver, SameInputGivesByteIdenticalOutput) {
  for (const char* name : {"matmul_blocked_tiny", "attention_block", "layernorm"})
    for (int level : {1, 2, 7, 8}) {
      Program p = level == 7 ? psumFixed(corpusKernel(name)) : corpusKernel(name);
      DriverResult a = run(p, level), b = run(p, level);
      EXPECT_EQ(printProgram(a.program), printProgram(b.program)) << name << " -O" << level;
      EXPECT_TRUE(a.steps == b.steps) << name << " -O" << level;
    }
}

TEST(Driver, Gen2CorpusKernelsPassAllThreeOraclesAtEveryOptlevel) {
  size_t checked = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    if (testing_placed::isTinyKernel(file)) continue;
    Program p = parseProgram(text);
    for (int level : {0, 1, 2, 3, 6, 7}) {
      expectCorrectAllocation(p, run(level == 7 ? psumFixed(p) : p, level).program, file + " -O" + std::to_string(level), 7);
      ++checked;
    }
  }
  EXPECT_EQ(checked, testing_placed::corpusKernelCount(false) * 6);
}

// Tiny kernels overfill the tiny machine: O0 (no reuse) cannot place them and says so with the demand; every
// coloring level spills them into place, and the result passes all three oracles.
TEST(Driver, TinyCorpusKernelsSpillAtEveryColoringLevelAndPassAllThreeOracles) {
  size_t passed = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    if (!testing_placed::isTinyKernel(file)) continue;
    Program p = parseProgram(text);
    try {
      run(p, 0);
      ADD_FAILURE() << file << " fits without reuse";
    } catch (const AllocError& e) {
      EXPECT_NE(std::string(e.what()).find(" without reuse: "), std::string::npos) << e.what();
    }
    for (int level : {1, 2, 3, 6, 7}) {
      const std::string what = file + " -O" + std::to_string(level);
      DriverResult r = run(level == 7 ? psumFixed(p) : p, level);
      bool spilled = false;
      for (const Tensor& t : r.program.tensors) spilled |= t.origin == Origin::Spill || t.origin == Origin::Reload;
      EXPECT_TRUE(spilled) << what;
      expectCorrectAllocation(p, r.program, what, 7);
      ++passed;
    }
  }
  EXPECT_EQ(passed, testing_placed::corpusKernelCount(true) * 5);
  const std::string msg = [] {
    try {
      run(corpusKernel("matmul_blocked_tiny"), 0);
    } catch (const AllocError& e) {
      return e.format("matmul_blocked_tiny.nki.txt");
    }
    return std::string("fits");
  }();
  EXPECT_EQ(msg,
            "matmul_blocked_tiny.nki.txt:22:6: psum tensor 'acc4' [8, 64] f32 (1 bank) does not fit in PSUM without "
            "reuse: all psum tensors need 6 banks, PSUM has 4");
}

// Pins every placed SBUF/PSUM tensor, as a user hands O7 an assignment made elsewhere.
Program pinned(Program p) {
  for (Tensor& t : p.tensors)
    if (t.placement && t.space != Space::Dram) t.pinned = true;
  return p;
}

TEST(Driver, OptlevelSevenReproducesPlacementsPinnedFromAnEarlierRun) {
  size_t checked = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    Program p = parseProgram(text);
    DriverResult o2 = run(p, 2);
    Program fixed = pinned(o2.program);
    DriverResult o7 = run(fixed, 7);
    EXPECT_EQ(printProgram(o7.program), printProgram(fixed)) << file;
    EXPECT_EQ(printProgram(run(o2.program, 7).program), printProgram(o2.program)) << file << " (placed, unpinned)";
    expectCorrectAllocation(p, o7.program, file + " -O7", 7);
    ++checked;
  }
  EXPECT_EQ(checked, testing_placed::corpusKernelCount(false) + testing_placed::corpusKernelCount(true));
}

TEST(Driver, OptlevelSevenColorsWhatTheInputLeftUnplacedAroundTheFixedPart) {
  Program p = corpusKernel("attention_block");
  Program partial = run(p, 2).program;
  std::vector<bool> kept(partial.tensors.size());
  bool drop = false;
  for (size_t i = 0; i < partial.tensors.size(); ++i) {
    Tensor& t = partial.tensors[i];
    if (t.space != Space::Sbuf) {
      kept[i] = t.space == Space::Psum;
      continue;
    }
    kept[i] = !(drop = !drop);
    if (!kept[i]) t.placement.reset();
  }
  partial.registers[0].phys = 9;  // a register placement of the input is kept too
  DriverResult r = run(partial, 7);
  for (size_t i = 0; i < partial.tensors.size(); ++i) {
    if (kept[i]) {
      EXPECT_EQ(r.program.tensors[i].placement, partial.tensors[i].placement) << partial.tensors[i].name;
    }
    EXPECT_TRUE(r.program.tensors[i].placement || r.program.tensors[i].space == Space::Dram);
    EXPECT_EQ(r.program.tensors[i].pinned, partial.tensors[i].pinned) << "pinned flags are restored";
  }
  EXPECT_EQ(r.program.registers[0].phys, 9u);
  expectCorrectAllocation(p, r.program, "attention_block -O7 (half fixed)", 7);
}

// As in the production allocator, O7 has no PSUM coloring pass, and a coloring that cannot fit is "Allocation failed for ...".
TEST(Driver, OptlevelSevenRunsNoPsumPassAndSaysAllocationFailed) {
  Program p = corpusKernel("matmul_tiled");
  try {
    run(p, 7);
    ADD_FAILURE() << "O7 colored PSUM";
  } catch (const AllocError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("Allocation failed for ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("optlevel 7 runs no PSUM coloring pass"), std::string::npos) << e.what();
  }
  // SBUF fixed so that nothing is left for the unplaced tensor: a whole-SBUF pinned tensor live throughout.
  Program full = parseProgram(
      "arch tiny\n"
      "dram A [8, 1024] u32 input\n"
      "dram O [8, 2] u32 output\n"
      "sbuf big [8, 1024] u32 pinned @p0+0\n"
      "sbuf t [8, 2] u32\n"
      "dma big, A\n"
      "copy t, big[:, 0:2]\n"
      "copy big[:, 2:2], t\n"
      "dma O, big[:, 2:2]\n");
  try {
    run(full, 7);
    ADD_FAILURE() << "O7 placed 't' in a full SBUF";
  } catch (const AllocError& e) {
    // The copy reads big and writes t, resident together: 8 x 4096 + 8 x 8 bytes of 32768, refused up front.
    EXPECT_EQ(std::string(e.what()).rfind("copy reads and writes SBUF tensors of 32832 bytes in all (big, t)", 0), 0u)
        << e.what();
  }
}

TEST(Driver, OptlevelSevenRefusesAnInconsistentFixedAssignment) {
  Program p = run(corpusKernel("matmul_tiled"), 2).program;
  TensorId lhs = p.findTensor("lhsT_tile"), rhs = p.findTensor("rhs_tile");
  p.tensors[rhs].placement = p.tensors[lhs].placement;
  try {
    run(p, 7);
    ADD_FAILURE() << "accepted";
  } catch (const AllocError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("smt allocation fails in-place write checker: sbuf tensor 'rhs_tile'", 0),
              0u)
        << e.what();
  }
}

}  // namespace
}  // namespace allocsim

namespace allocsim {
namespace {

// DriverOptions::sbuf_packing = false takes the exact packing candidate away at every coloring level (the SBUF
// colorer then counts no packing outcome); the default keeps it.
TEST(DriverOptions, SbufPackingOffLeavesTheSearchOut) {
  const Program p = parseProgram(
      "arch tiny\n"
      "dram A [4, 64] f32 input\n"
      "dram O [4, 64] f32 output\n"
      "sbuf a [4, 64] f32\n"
      "sbuf b [4, 64] f32\n"
      "dma a, A\n"
      "tt b, a, a, add\n"
      "dma O, b\n");
  auto mentionsPacking = [](const DriverResult& r) {
    const SbufStats* sbuf = findStep<SbufStats>(r);
    return sbuf && sbuf->packing != SbufStats::Packing::NotTried;
  };
  for (int level : {1, 2, 3, 6}) {
    DriverOptions o;
    o.optlevel = level;
    o.verbosity = 1;
    EXPECT_TRUE(mentionsPacking(allocate(p, o))) << "O" << level;
    o.sbuf_packing = false;
    EXPECT_FALSE(mentionsPacking(allocate(p, o))) << "O" << level;
  }
}

}  // namespace
}  // namespace allocsim
