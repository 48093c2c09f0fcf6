// The DMA optimization (alloc/dma_opt/) checked by the three oracles against the original program (the corpus:
// tests/alloc/dma_opt_corpus_test.cpp):
//  - on generated programs made to contain its patterns (gen --dma-patterns: abutting reads, repeated reads,
//    tensors read later over a sub-range only, dead stores; gen/gen_dma_patterns.cpp) on the tiny machine under pressure, so the SBUF
//    colorer spills and reloads them: over a fixed set of seeds every worker the patterns reach must fire at least
//    once (a pattern that never reaches its worker would make the other checks vacuous), partial-DMA included:
//    an over-broad tensor (written whole, read later over a sub-range only) is saved whole when spilled and
//    reloaded over the sub-range, and the save shrinks (alloc/dma_opt/partial_dma.h).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/dma_opt/both_instances.h"
#include "alloc/driver.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/check.h"
#include "ir/print.h"
#include "tests/common/verify_checks.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

struct Totals {
  uint64_t programs = 0, allocated = 0, loads_removed = 0, copies = 0, dead_removed = 0, coalesced = 0, partial = 0;
};

void optimizeAndCheck(const Program& original, const Program& allocated, int level, uint64_t seed, Totals& t) {
  const DmaOptBothResult both = optimizeDmasBothInstances(allocated, level);
  const Program& p = both.program;
  t.loads_removed += both.stats.loads_removed + both.stats.saves_removed;
  t.copies += both.stats.copies;
  t.dead_removed += both.stats.dead_removed;
  t.coalesced += both.stats.coalesced;
  t.partial += both.stats.partial;
  const std::string where = "seed " + std::to_string(seed) + " level " + std::to_string(level);
  const Verdict v = verdictAgainst(original, p, seed + 1);
  ASSERT_TRUE(v.ok()) << where << ": " << describeDefect(v, "allocated") << "\n" << printProgram(p);
  const DmaTraffic before = measureDmaTraffic(allocated), after = measureDmaTraffic(p);
  EXPECT_LE(after.instructions, before.instructions) << where;
  EXPECT_LE(after.descriptors, before.descriptors) << where;
  EXPECT_LE(after.bytes, before.bytes) << where;
}

TEST(DmaOptGenerated, EveryWorkerFiresOnThePatternsAndEveryResultPassesTheOracles) {
  Totals t;
  // At least 40 programs, and on until every worker has fired (coalescing needs a spill of both abutting halves
  // reloaded side by side: about one program in 50), at most 400.
  auto allFired = [&] {
    return t.loads_removed > 0 && t.copies > 0 && t.dead_removed > 0 && t.coalesced > 0 && t.partial > 0;
  };
  for (uint64_t seed = 1; seed <= 400 && (seed <= 40 || !allFired()); ++seed) {
    GenOptions g;
    g.arch = *archPreset("tiny");
    g.size = 12;
    g.pressure = 130;
    g.dma_patterns = 60;
    SeededChoices c(seed);
    const Program original = generateProgram(c, g);
    ++t.programs;
    DriverOptions o;
    o.optlevel = 2;
    o.gca_dma_optlevel = 0;  // the DMAs as the allocators inserted them
    DriverResult base;
    try {
      base = allocate(original, o);
    } catch (const AllocError&) {
      continue;
    }
    ++t.allocated;
    for (int level : {1, 2}) {
      optimizeAndCheck(original, base.program, level, seed, t);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
  // Most of them allocate (130 % pressure spills, it does not overflow PSUM or DRAM).
  EXPECT_GE(t.allocated, t.programs / 2);
  EXPECT_GT(t.loads_removed, 0u) << "repeated reads -> load_merging";
  EXPECT_GT(t.copies, 0u) << "level 2 -> transform_load";
  EXPECT_GT(t.dead_removed, 0u) << "dead stores -> extra_save_removal";
  EXPECT_GT(t.coalesced, 0u) << "abutting reads -> internal_dma_coalescing";
  EXPECT_GT(t.partial, 0u) << "over-broad tensors -> partial_DMA_access (their saves)";
}

}  // namespace
}  // namespace allocsim
