// The DMA optimization (alloc/dma_opt/) checked by the three oracles against the original program:
//  - on every corpus kernel (and register kernel) at O2, the spilling _tiny ones also at O7 (PSUM placed
//    upstream), with --gca-dma-optlevel 2 (the driver tests cover the default level 1 at every coloring
//    optlevel), never moving more DMA traffic than level 0 (the allocators' DMAs as inserted);
//  - on generated programs made to contain its patterns (gen --dma-patterns: abutting reads, repeated reads,
//    sub-range reads, dead stores; gen/gen_dma_patterns.cpp) on the tiny machine under pressure, so the SBUF
//    colorer spills and reloads them: over a fixed set of seeds every worker the patterns reach must fire at least
//    once (a pattern that never reaches its worker would make the other checks vacuous), partial-DMA included:
//    an over-broad tensor (written whole, read later over a sub-range only) is saved whole when spilled and
//    reloaded over the sub-range, and the save shrinks (alloc/dma_opt/partial_dma.h).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/dma_opt/dma_optimization.h"
#include "alloc/driver.h"
#include "alloc/psum/psum_allocator.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/placed_program_checks.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

struct Totals {
  uint64_t programs = 0, allocated = 0, loads_removed = 0, copies = 0, dead_removed = 0, coalesced = 0, partial = 0;
};

void optimizeAndCheck(const Program& original, const Program& allocated, int level, uint64_t seed, Totals& t) {
  Program p = allocated;
  for (DmaOptInstance instance : {DmaOptInstance::Psum, DmaOptInstance::Sb}) {
    DmaOptOptions o;
    o.instance = instance;
    o.level = level;
    DmaOptResult r = optimizeDmas(p, o);
    t.loads_removed += r.stats.loads_removed + r.stats.saves_removed;
    t.copies += r.stats.copies;
    t.dead_removed += r.stats.dead_removed;
    t.coalesced += r.stats.coalesced;
    t.partial += r.stats.partial;
    p = std::move(r.program);
  }
  const std::string where = "seed " + std::to_string(seed) + " level " + std::to_string(level);
  ASSERT_TRUE(checkProgram(p).empty()) << where << "\n" << printProgram(p);
  VerifyOptions vo;
  vo.original = &original;
  vo.poison_seed = seed + 1;
  VerifyReport v = verifyAllocated(p, vo);
  ASSERT_TRUE(v.ok()) << where << ": " << v.findings.front().format("allocated") << "\n" << printProgram(p);
  const DmaTraffic before = measureDmaTraffic(allocated), after = measureDmaTraffic(p);
  EXPECT_LE(after.instructions, before.instructions) << where;
  EXPECT_LE(after.descriptors, before.descriptors) << where;
  EXPECT_LE(after.bytes, before.bytes) << where;
}

DriverResult allocateAt(const Program& p, int optlevel, int dma_level) {
  DriverOptions o;
  o.optlevel = optlevel;
  o.gca_dma_optlevel = dma_level;
  // O7 runs no PSUM coloring pass (alloc/driver.h): its PSUM placements come with the input.
  return allocate(optlevel == 7 ? allocatePsum(p, PsumOptions{}).program : p, o);
}

TEST(DmaOptCorpus, EveryKernelAtLevelTwoPassesAllThreeOraclesAndMovesNoMoreThanLevelZero) {
  size_t checked = 0;
  std::vector<std::pair<std::string, std::string>> kernels = testing_placed::corpusKernels();
  for (const char* name : {"register_pressure", "register_pressure_tiny"})
    kernels.push_back({name, testing_placed::readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/register_kernels/" +
                                                      name + ".nki.txt")});
  for (const auto& [file, text] : kernels) {
    const Program p = parseProgram(text);
    for (int optlevel : {2, 7}) {
      // O7 only where it spills (test time)
      if (optlevel == 7 && !file.ends_with("_tiny.nki.txt") && !file.ends_with("_tiny")) continue;
      const std::string what = file + " -O" + std::to_string(optlevel);
      const DriverResult none = allocateAt(p, optlevel, 0), opt = allocateAt(p, optlevel, 2);
      VerifyOptions vo;
      vo.original = &p;
      vo.poison_seed = 11;
      const VerifyReport v = verifyAllocated(opt.program, vo);
      for (const Finding& f : v.findings) ADD_FAILURE() << what << ": " << f.format(what);
      const DmaTraffic before = measureDmaTraffic(none.program), after = measureDmaTraffic(opt.program);
      EXPECT_LE(after.instructions, before.instructions) << what;
      EXPECT_LE(after.descriptors, before.descriptors) << what;
      EXPECT_LE(after.bytes, before.bytes) << what;
      ++checked;
    }
  }
  EXPECT_EQ(checked, kernels.size() + kernels.size() / 2);  // every kernel has a _tiny twin
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
