// ReportsOff (alloc/report.h): with reports off the allocators produce the same programs, and the reports are
// empty; the fuzz targets allocate with reports off on most inputs (fuzz/fuzz_program.h), so an allocation that
// depended on building its report would go unfuzzed. And the exact search's ladder (ExactSolver, which the SBUF
// colorer's packing uses) gives at each capacity what solveExact gives.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/dma_opt/dma_optimization.h"
#include "alloc/driver.h"
#include "alloc/exact/exact_search.h"
#include "alloc/report.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"

namespace allocsim {
namespace {

bool emptyReports(const DriverResult& r) {
  for (const AllocReport& rep : r.reports)
    if (!rep.lines.empty() || !rep.fields.empty()) return false;
  return r.liveness.lines.empty() && r.liveness.fields.empty();
}

// What allocate gives: the program, or the error's text.
struct Outcome {
  bool ok = false;
  Program program;
  std::string error;
  bool reports_empty = false;
};

Outcome run(const Program& p, const DriverOptions& o) {
  Outcome out;
  try {
    DriverResult r = allocate(p, o);
    out.ok = true;
    out.program = std::move(r.program);
    out.reports_empty = emptyReports(r);
  } catch (const AllocError& e) {
    out.error = e.what();
  }
  return out;
}

TEST(ReportsOff, EveryOptlevelAllocatesTheSameProgramsWithoutReports) {
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
        const Outcome on = run(p, o);
        Outcome off;
        {
          const ReportsOff quiet;
          EXPECT_FALSE(reportsOn());
          off = run(p, o);
        }
        EXPECT_TRUE(reportsOn());
        ASSERT_EQ(on.ok, off.ok) << what;
        if (!on.ok) {
          EXPECT_EQ(on.error, off.error) << what;
          ++refused;
          continue;
        }
        ++allocated;
        EXPECT_TRUE(on.program == off.program) << what;
        EXPECT_FALSE(on.reports_empty) << what;
        EXPECT_TRUE(off.reports_empty) << what;
        if (level != 2) continue;
        // O7 on the O2 result, and the DMA pass on its own.
        DriverOptions fixed;
        fixed.optlevel = 7;
        const Outcome on7 = run(on.program, fixed);
        Outcome off7;
        {
          const ReportsOff quiet;
          off7 = run(on.program, fixed);
        }
        ASSERT_EQ(on7.ok, off7.ok) << what << " then -O7";
        EXPECT_TRUE(on7.program == off7.program) << what << " then -O7";
        DmaOptOptions dmo;
        dmo.level = dma;
        const DmaOptResult a = optimizeDmas(on.program, dmo);
        const ReportsOff quiet;
        const DmaOptResult b = optimizeDmas(on.program, dmo);
        EXPECT_TRUE(a.program == b.program) << what << " DMA pass";
        EXPECT_FALSE(a.report.fields.empty()) << what;
        EXPECT_TRUE(b.report.fields.empty() && b.report.lines.empty()) << what;
      }
    }
  }
  EXPECT_GT(allocated, 100u);
  std::cout << "[ reports ] " << allocated << " allocations identical with reports off, " << refused
            << " refused alike\n";
}

TEST(ReportsOff, NestsAndRestores) {
  EXPECT_TRUE(reportsOn());
  {
    const ReportsOff outer;
    {
      const ReportsOff inner(false);  // does not turn them back on
      EXPECT_FALSE(reportsOn());
    }
    EXPECT_FALSE(reportsOn());
    AllocReport r;
    r.line("x");
    r.set("key", int64_t(1));
    r.set(std::string("other"), 2.5);
    AllocReport s;
    s.append(r);
    EXPECT_TRUE(r.lines.empty() && r.fields.empty() && s.lines.empty() && s.fields.empty());
  }
  EXPECT_TRUE(reportsOn());
  const ReportsOff none(false);
  EXPECT_TRUE(reportsOn());
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
