// One colorer heuristic alone (DriverOptions::sbuf_heuristic / psum_heuristic, `alloc --sbuf-heuristic`): each of the
// 16 SBUF heuristics and 4 PSUM orders gives an allocation the three oracles accept, best-of-n's result is its
// winner's run alone, and the options are refused where no such colorer runs.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/optlevel.h"
#include "alloc/psum/psum_heuristic.h"
#include "alloc/sbuf/sbuf_heuristic.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/common/cli_run.h"
#include "tests/common/placed_program_checks.h"
#include "tests/common/verify_checks.h"

namespace allocsim {
namespace {

DriverOptions alone(int optlevel, uint32_t sbuf, uint32_t psum) {
  DriverOptions o;
  o.optlevel = optlevel;
  o.sbuf_heuristic = sbuf;
  o.psum_heuristic = psum;
  return o;
}

// The tiny kernels overfill the tiny machine, so every heuristic spills on them (the losers included, whose
// results best-of-n never hands on); each one's own fixpoint must still be a correct allocation.
TEST(SingleHeuristic, EachHeuristicAloneAllocatesTheTinyKernelsCorrectly) {
  uint32_t checked = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    if (!testing_placed::isTinyKernel(file)) continue;
    const Program p = parseProgram(text);
    for (uint32_t k = 0; k < kSbufHeuristicCount; ++k) {
      const uint32_t psum = k % kPsumHeuristicCount;
      const std::string what = file + " --sbuf-heuristic " + std::to_string(k) + " --psum-heuristic " +
                               std::to_string(psum);
      DriverResult r;
      try {
        r = allocate(p, alone(2, k, psum));
      } catch (const AllocError& e) {
        ADD_FAILURE() << what << " refused: " << e.what();  // O1 (heuristic 0 alone) places every one
        continue;
      }
      expectCorrectAllocation(p, r.program, what, 11 + k);
      ++checked;
    }
  }
  EXPECT_EQ(checked, testing_placed::corpusKernelCount(true) * kSbufHeuristicCount);
}

// -O3 tries all 16 SBUF heuristics and keeps the best fixpoint; the heuristic its report names, run alone at the
// same level, gives the same program byte for byte (the options choose that heuristic and nothing else, and
// best-of-n's shared spill rounds change no run). On generated programs, whose winners vary; a result of the exact
// packing or of live-range splitting is no one heuristic's.
TEST(SingleHeuristic, BestOfNGivesItsWinnersRunAlone) {
  uint32_t compared = 0, not_first = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededChoices c(seed);
    const Program p = generateProgram(c, GenOptions{*archPreset("tiny"), 6, 200});
    DriverOptions all;
    all.optlevel = 3;
    const std::optional<DriverResult> allocated = allocatedUnlessRefused(p, all);
    if (!allocated) continue;
    const DriverResult& best = *allocated;
    const SbufStats* sbuf = findStep<SbufStats>(best);
    // No SBUF pass, or the packing won, or a split program's run (alloc/sbuf/sbuf_split.h): no one heuristic's fixpoint.
    if (!sbuf || sbuf->outcome.best.heuristic == "exact packing" || sbuf->split_copies > 0) continue;
    const std::string winner = sbuf->outcome.best.heuristic;
    const std::optional<uint32_t> k = sbufHeuristicIndex(winner);
    ASSERT_TRUE(k.has_value()) << "seed " << seed << ": " << winner;
    DriverOptions one;
    one.optlevel = 3;
    one.sbuf_heuristic = *k;
    EXPECT_EQ(printProgram(allocate(p, one).program), printProgram(best.program)) << "seed " << seed << ": " << winner;
    ++compared;
    not_first += *k != 0;
  }
  EXPECT_GE(compared, 20u);
  EXPECT_GE(not_first, 5u);  // winners other than the sweep's first
}

TEST(SingleHeuristic, TheOptionsAreRefusedWhereTheirColorerDoesNotRun) {
  const Program p = parseProgram(readFile("corpus/kernels/looped_add_tiny.nki.txt"));
  auto error = [&](DriverOptions o) -> std::string {
    try {
      allocate(p, o);
    } catch (const OptionError& e) {
      return e.what();
    } catch (const AllocError& e) {
      return std::string("AllocError: ") + e.what();
    }
    return "allocated";
  };
  DriverOptions o = alone(2, 0, 0);
  EXPECT_EQ(error(o), "allocated");
  o.sbuf_heuristic = kSbufHeuristicCount;
  EXPECT_EQ(error(o), "--sbuf-heuristic 16 is not a heuristic (0-15)");
  o = alone(2, 0, kPsumHeuristicCount);
  EXPECT_EQ(error(o), "--psum-heuristic 4 is not a heuristic (0-3)");
  for (int level : {0, 8}) {
    o = alone(level, 1, 0);
    o.psum_heuristic.reset();
    EXPECT_EQ(error(o), "--sbuf-heuristic: the SBUF colorer runs at optlevels 1-3, 6 and 7 with the coloring "
                        "allocator only")
        << level;
  }
  o = alone(6, 1, 1);
  o.allocator = "lsa";
  EXPECT_NE(error(o).find("with the coloring allocator only"), std::string::npos);
  o = alone(7, 1, 1);
  EXPECT_EQ(error(o), "--psum-heuristic: the PSUM colorer runs at optlevels 1-3 and 6 with the coloring allocator "
                      "only (optlevel 7 has no PSUM pass)");
  o.allocator = "exact";
  EXPECT_NE(error(o).find("--allocator exact runs no colorer"), std::string::npos);
}

TEST(SingleHeuristic, TheCommandLineTakesAnIndexOrAName) {
  const std::string k = "alloc corpus/kernels/matmul_tiled_tiny.nki.txt -O2";
  const CliRun by_index = allocsim(k + " --sbuf-heuristic 5 --psum-heuristic 2", "2>/dev/null");
  ASSERT_EQ(by_index.exit_code, 0) << by_index.out;
  const CliRun by_name =
      allocsim(k + " --sbuf-heuristic largest-first/best-fit --psum-heuristic fewest-banks", "2>/dev/null");
  EXPECT_EQ(by_name.exit_code, 0);
  EXPECT_EQ(by_name.out, by_index.out);
  // Refusals, exit code 2 with one line each.
  const std::pair<const char*, const char*> refused[] = {
      {" --sbuf-heuristic 16", "--sbuf-heuristic expects a heuristic's index (0-15) or name, got '16'"},
      {" --psum-heuristic widest", "--psum-heuristic expects a heuristic's index (0-3) or name, got 'widest'"},
      {" -O8 --sbuf-heuristic 1",
       "--sbuf-heuristic: the SBUF colorer runs at optlevels 1-3, 6 and 7 with the coloring allocator only"}};
  for (const auto& [args, message] : refused) {
    const CliRun r = allocsim(k + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.out, std::string("allocsim alloc: ") + message + "\n");
  }
}

}  // namespace
}  // namespace allocsim
