// Verbosity (DriverOptions::verbosity) only decides what the allocators record of their rounds: at every optlevel
// the programs are the same with and without the records; the fuzz targets record on some inputs only
// (fuzz/fuzz_program.h), so an allocation that depended on recording would go unfuzzed. And the exact search's
// ladder (ExactSolver, which the SBUF colorer's packing uses) gives at each capacity what solveExact gives.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/dma_opt/dma_optimization.h"
#include "alloc/driver.h"
#include "alloc/exact/exact_search.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"

namespace allocsim {
namespace {

// What allocate gives: the program, or the error's text.
struct Outcome {
  bool ok = false;
  Program program;
  std::string error;
};

Outcome run(const Program& p, const DriverOptions& o) {
  Outcome out;
  try {
    out.program = allocate(p, o).program;
    out.ok = true;
  } catch (const AllocError& e) {
    out.error = e.what();
  }
  return out;
}

TEST(Verbosity, EveryOptlevelAllocatesTheSameProgramsWhateverItRecords) {
  uint32_t allocated = 0, refused = 0;
  for (uint64_t seed = 0; seed < 24; ++seed) {
    SeededChoices c(seed);
    GenOptions g{*archPreset("tiny"), 6, uint32_t(60 + 15 * (seed % 12))};
    g.dma_patterns = seed % 3 == 0 ? 40 : 0;
    const Program p = generateProgram(c, g);
    for (int level : {0, 1, 2, 3, 6, 8}) {
      for (int dma : {1, 2}) {
        const std::string what = "seed " + std::to_string(seed) + " -O" + std::to_string(level) + " dma " +
                                 std::to_string(dma);
        DriverOptions o;
        o.optlevel = level;
        o.gca_dma_optlevel = dma;
        const Outcome quiet = run(p, o);
        o.verbosity = 2;
        const Outcome traced = run(p, o);
        ASSERT_EQ(quiet.ok, traced.ok) << what;
        if (!quiet.ok) {
          EXPECT_EQ(quiet.error, traced.error) << what;
          ++refused;
          continue;
        }
        ++allocated;
        EXPECT_TRUE(quiet.program == traced.program) << what;
        if (level != 2) continue;
        // O7 on the O2 result, and the DMA pass on its own.
        DriverOptions fixed;
        fixed.optlevel = 7;
        const Outcome quiet7 = run(quiet.program, fixed);
        fixed.verbosity = 2;
        const Outcome traced7 = run(quiet.program, fixed);
        ASSERT_EQ(quiet7.ok, traced7.ok) << what << " then -O7";
        EXPECT_TRUE(quiet7.program == traced7.program) << what << " then -O7";
        DmaOptOptions dmo;
        dmo.level = dma;
        const DmaOptResult a = optimizeDmas(quiet.program, dmo);
        dmo.verbosity = 2;
        const DmaOptResult b = optimizeDmas(quiet.program, dmo);
        EXPECT_TRUE(a.program == b.program) << what << " DMA pass";
        EXPECT_TRUE(a.stats.log.empty()) << what;  // nothing recorded unless asked
      }
    }
  }
  EXPECT_GT(allocated, 100u);
  std::cout << "[ verbosity ] " << allocated << " allocations identical at verbosity 0 and 2, " << refused
            << " refused alike\n";
}

// Random one-row and banded problems: the solver's ladder equals solveExact at every rung.
TEST(ExactSolver, EachCapacityGivesWhatSolveExactGives) {
  uint32_t fits = 0, others = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededChoices c(seed);
    ExactProblem p;
    p.rows = seed % 2 ? 1 : 4;
    const uint32_t n = uint32_t(c.range(1, 14));
    for (uint32_t i = 0; i < n; ++i) {
      ExactItem it;
      it.first = uint32_t(c.below(20));
      it.last = it.first + uint32_t(c.below(8));
      it.size = 1 + c.below(64);
      it.align = c.chance(30) ? 4 : 1;
      it.rows = p.rows == 1 ? 1 : uint32_t(c.range(1, 2));
      for (uint32_t s = 0; s + it.rows <= p.rows; ++s) it.starts.push_back(s);
      p.items.push_back(it);
    }
    ExactSearchOptions o;
    o.time_limit_s = 1e9;
    o.node_budget = 12 * n;
    ExactSolver solver(p);
    const uint64_t lower = exactLowerBound(p);
    for (uint64_t cap : {lower ? lower - 1 : 0, lower, lower + lower / 40, lower + lower / 10, lower + lower / 4, 2 * lower}) {
      ExactProblem q = p;
      q.capacity = cap;
      const ExactResult want = solveExact(q, o), got = solver.solve(cap, o);
      const std::string what = "seed " + std::to_string(seed) + " capacity " + std::to_string(cap);
      EXPECT_EQ(got.status, want.status) << what;
      EXPECT_EQ(got.method, want.method) << what;
      EXPECT_EQ(got.height, want.height) << what;
      EXPECT_EQ(got.nodes, want.nodes) << what;
      EXPECT_EQ(got.lower_bound, want.lower_bound) << what;
      ASSERT_EQ(got.placements.size(), want.placements.size()) << what;
      for (size_t i = 0; i < got.placements.size(); ++i) {
        EXPECT_EQ(got.placements[i].row, want.placements[i].row) << what << " item " << i;
        EXPECT_EQ(got.placements[i].offset, want.placements[i].offset) << what << " item " << i;
      }
      (want.status == ExactStatus::Fit ? fits : others) += 1;
    }
  }
  EXPECT_GT(fits, 40u);
  EXPECT_GT(others, 20u);
}

}  // namespace
}  // namespace allocsim
