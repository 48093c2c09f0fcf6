// DMAOptimization, the production allocator's post-allocation DMA peepholes: one pass, two
// instances, dma_optimization_psum after the PSUM allocator and dma_optimization_sb after the SBUF allocator (at
// optlevel 7, both before SB coloring; alloc/driver.h). The instance picks the DMAs it owns by memory type
// (dma_scope.h). "GCA" in its figures' names is the production compiler's name for the colorers (graph-coloring
// allocation), kept in the report's wording.
//
// run(), in the production allocator's worker order; a worker that has nothing to act on in allocsim's program
// model says why:
//   skip_pass               no dma instruction at all: nothing runs, not even the analysis (the cheap early-out)
//   DMA_analysis "Pre GCA"  DMA instructions, descriptors and bytes (dma_traffic.h)
//   input_dma_coalescing    -- original input loads are the program's own: the verifier maps every original
//                              instruction one for one (dma_scope.h), so only inserted DMAs are rewritten
//   reload_for_save_optimization   saves whose slot already holds the value (load_merging.h, saves)
//   load_merging            reloads whose data is resident; at level 2 also transform_load (load_merging.h)
//   remat_load_shrink       -- no rematerialized loads: the allocators insert spill and reload DMAs only
//   DMA_analysis
//   spill_optimization + extra_save_removal   dead saves and dead loads (dead_store.h)
//   remove_memset_spill     -- the spill writers never spill a memset: it is a reload like any other
//   dce                     inserted tensors nothing names any more (program_edit.h)
//   internal_dma_coalescing (dma_coalescing.h)
//   partial_DMA_access      (partial_dma.h)
//   reload_for_save_optimization   again, on the merged and narrowed DMAs
//   re_enable_opt           -- no disabled optimization flags to restore
//   PSUM_spill_optimization (PSUM instance only) redundant and dead PSUM spill DMAs to a fixpoint, and the line
//                           "[psum spill optimization]: removed N" counting every PSUM spill DMA the instance removed
//   DMA_analysis "Post GCA" taken last (the production allocator takes it before PSUM_spill_optimization), so that
//                           Pre -> Post is the whole pass's effect
//
// --gca-dma-optlevel (the production knob: default 1, levels -1, 0, 1, 2). The production SB allocator reads it to
// decide how many spill/reload DMAs the colorer emits; allocsim's spill writers always emit a reload per use and a
// save per def, and the level decides how much of that this pass takes back, which is the same observable:
//   -1  the pass does not run;   0  the analysis only (Pre/Post GCA figures, no rewrite);
//    1  every worker above but transform_load (default);   2  also transform_load, cost-modelled.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/dma_opt/dma_opt_events.h"
#include "alloc/dma_opt/dma_opt_limits.h"
#include "alloc/dma_opt/dma_scope.h"
#include "alloc/dma_opt/dma_traffic.h"
#include "ir/program.h"

namespace allocsim {

struct DmaOptOptions {
  DmaOptInstance instance = DmaOptInstance::Sb;
  int level = 1;  // --gca-dma-optlevel
  int verbosity = 0;  // > 0: record the load-merging decisions (DmaOptStats::log)
  DmaOptLimits limits = kDmaOptLimits;
};

// What the pass counted (tools/report_format.h prints it as the production allocator's report).
struct DmaOptStats {
  DmaOptInstance instance = DmaOptInstance::Sb;
  int level = 1;
  bool ran = false;  // false: level -1 (off) or the cheap skip (no DMA)
  DmaTraffic pre, post;
  uint32_t loads_removed = 0, saves_removed = 0, copies = 0, dead_removed = 0, coalesced = 0, partial = 0,
           tensors_removed = 0, psum_spill_removed = 0;
  std::vector<DmaOptEvent> log;  // the load-merging decisions, in order (DmaOptOptions::verbosity > 0)
  bool operator==(const DmaOptStats&) const = default;
};

struct DmaOptResult {
  Program program;
  DmaOptStats stats;
};

// Throws OptionError (alloc/optlevel.h) for a level outside -1..2 (before taking the program). The rvalue form
// works on the program it is given instead of a copy (the driver runs two instances per allocation).
DmaOptResult optimizeDmas(const Program& p, const DmaOptOptions& o);
DmaOptResult optimizeDmas(Program&& p, const DmaOptOptions& o);

// True when the program has a dma instruction (skip_pass is its negation).
bool hasDma(const Program& p);

}  // namespace allocsim
