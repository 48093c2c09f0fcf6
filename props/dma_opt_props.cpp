// Properties of the DMA optimization (alloc/dma_opt/, the production allocator's DMAOptimization) on generated programs
// under pressure and with the generator's DMA patterns (so the allocators insert spill and reload DMAs for it to clean
// up): at every --gca-dma-optlevel the
// pass never increases the DMA instructions, executions, descriptors or bytes; the optimized program passes all
// three oracles against the original and stands for the same program; and through the driver every coloring
// optlevel with the pass on passes the oracles. A failing case is saved to corpus/regressions/.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "alloc/alloc_error.h"
#include "alloc/dma_opt/both_instances.h"
#include "alloc/driver.h"
#include "alloc/psum/psum_allocator.h"
#include "ir/check.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "props/require_correct.h"
#include "verify/reference.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

// Under pressure, and (two draws in three) with the generator's DMA patterns (gen --dma-patterns: abutting and
// repeated reads, tensors read later over a sub-range only, dead stores), so the spilled programs give every
// worker something to do.
rc::Gen<Program> genPressuredProgram() {
  return rc::gen::exec([] {
    GenOptions opts;
    opts.arch = *archPreset("tiny");  // the real register file: the REG colorer spills
    opts.size = *rc::gen::inRange<uint32_t>(1, 31);
    opts.pressure = *rc::gen::element<uint32_t>(50, 100, 150, 200, 300);
    opts.dma_patterns = *rc::gen::element<uint32_t>(0, 30, 60);
    return *genProgramFromList(opts);
  });
}

DriverResult allocateOrDiscard(const Program& p, int optlevel, int dma_level) {
  DriverOptions o;
  o.optlevel = optlevel;
  o.gca_dma_optlevel = dma_level;
  try {
    // O7 runs no PSUM coloring pass (alloc/driver.h): its PSUM placements come with the input.
    return allocate(optlevel == 7 ? allocatePsum(p, PsumOptions{}).program : p, o);
  } catch (const AllocError&) {
    RC_DISCARD("allocation impossible");
  }
}

void requireOracles(const Program& p, const Program& allocated, const std::string& name) {
  requireCorrectAllocation(name + "_finding", p, allocated, *rc::gen::inRange<uint64_t>(1, UINT64_MAX));
}

RC_GTEST_PROP(DmaOpt, NeverIncreasesDmaTrafficAndKeepsTheMeaning, ()) {
  const Program p = *genPressuredProgram();
  const int optlevel = *rc::gen::element(1, 2, 3, 6, 7);
  const int level = *rc::gen::element(0, 1, 2);
  DriverResult base = allocateOrDiscard(p, optlevel, 0);
  // Both instances, on a program the driver allocated with the pass off (level 0 still measures).
  const DmaOptBothResult both = optimizeDmasBothInstances(base.program, level);
  const Program& opt = both.program;
  const DmaTraffic before = measureDmaTraffic(base.program), after = measureDmaTraffic(opt);
  RC_ASSERT(after.instructions <= before.instructions);
  RC_ASSERT(after.executed <= before.executed);
  RC_ASSERT(after.descriptors <= before.descriptors);
  RC_ASSERT(after.bytes <= before.bytes);
  if (level == 0) RC_ASSERT(after == before);  // the analysis alone rewrites nothing
  RC_ASSERT(referenceProgram(opt).program == referenceProgram(base.program).program);
  requireOracles(p, opt, "dma_opt_level" + std::to_string(level));
  const DmaOptStats& s = both.stats;
  const uint32_t rewrites =
      s.loads_removed + s.saves_removed + s.dead_removed + s.copies + s.coalesced + s.partial;
  RC_TAG(rewrites > 0 ? "rewrote" : "nothing to rewrite");
}

RC_GTEST_PROP(DmaOpt, TheDriverWithThePassPassesAllOracles, ()) {
  const Program p = *genPressuredProgram();
  const int optlevel = *rc::gen::element(1, 2, 3, 6, 7);
  const int level = *rc::gen::element(1, 2);
  DriverResult r = allocateOrDiscard(p, optlevel, level);
  requireOracles(p, r.program, "dma_opt_driver_O" + std::to_string(optlevel));
}

// The Pre GCA figure of the SB instance is the PSUM instance's Post GCA figure plus what the SBUF colorer
// inserted: the DMA counts a driver run reports are consistent with the program it returns.
RC_GTEST_PROP(DmaOpt, ReportedPostGcaFiguresMatchTheProgram, ()) {
  const Program p = *genPressuredProgram();
  DriverResult r = allocateOrDiscard(p, *rc::gen::element(1, 2, 3, 6), *rc::gen::element(1, 2));
  const AllocReport* sb = nullptr;
  for (const AllocReport& rep : r.reports)
    if (const ReportField* f = rep.find("allocator"); f && f->value == "dma_optimization_sb") sb = &rep;
  RC_ASSERT(sb != nullptr);
  const ReportField* ran = sb->find("dma.ran");
  RC_ASSERT(ran != nullptr);
  if (ran->value != "yes") return;
  const DmaTraffic t = measureDmaTraffic(r.program);
  RC_ASSERT(sb->find("dma.post_gca.instructions")->value == std::to_string(t.instructions));
  RC_ASSERT(sb->find("dma.post_gca.bytes")->value == std::to_string(t.bytes));
}

}  // namespace
}  // namespace allocsim
