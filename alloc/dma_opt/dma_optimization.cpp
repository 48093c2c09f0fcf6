#include "alloc/dma_opt/dma_optimization.h"

#include <string>
#include <utility>

#include "alloc/dma_opt/dead_store.h"
#include "alloc/dma_opt/dma_coalescing.h"
#include "alloc/dma_opt/load_merging.h"
#include "alloc/dma_opt/partial_dma.h"
#include "alloc/dma_opt/program_edit.h"
#include "alloc/optlevel.h"

namespace allocsim {
namespace {

bool anyDma(const std::vector<Instruction>& body) {
  for (const Instruction& i : body)
    if (i.op == Op::Dma || (hasBody(i.op) && anyDma(i.body))) return true;
  return false;
}

class Pass {
 public:
  Pass(Program&& p, const DmaOptOptions& o) : o_(o) { result_.program = std::move(p); }

  DmaOptResult run() {
    Program& p = result_.program;
    DmaOptStats& s = result_.stats;
    s.instance = o_.instance;
    s.level = o_.level;
    if (o_.level < 0) return std::move(result_);
    if (!hasDma(p)) return std::move(result_);  // skip_pass
    s.ran = true;
    s.pre = measureDmaTraffic(p);
    // The sub-passes in the production allocator's order, repeated while one removes something: a removed dead store
    // can leave a reload redundant, which a second allocation of the output (O7) would otherwise remove, so that O7
    // did not reproduce its input.
    for (int round = 0; o_.level >= 1 && round < 8; ++round) {
      const uint32_t before = removedSoFar(s) + s.partial;
      rewrite(p, s);
      if (removedSoFar(s) + s.partial == before) break;
    }
    if (o_.instance == DmaOptInstance::Psum && o_.level >= 1) {
      fixpoint(p, s);
      s.psum_spill_removed = removedSoFar(s);
    }
    s.post = measureDmaTraffic(p);
    return std::move(result_);
  }

 private:
  static uint32_t removedSoFar(const DmaOptStats& s) {
    return s.loads_removed + s.saves_removed + s.copies + s.dead_removed + s.coalesced;
  }

  void redundancy(Program& p, DmaOptStats& s, RedundancyKind kind, bool transform) {
    RedundancyStats rs = removeRedundantDmas(p, o_.instance, kind, transform, o_.limits,
                                             o_.verbosity > 0 ? &result_.stats.log : nullptr);
    s.loads_removed += rs.loads_removed;
    s.saves_removed += rs.saves_removed;
    s.copies += rs.copies;
  }

  void rewrite(Program& p, DmaOptStats& s) {
    redundancy(p, s, RedundancyKind::Saves, false);           // reload_for_save_optimization
    redundancy(p, s, RedundancyKind::Loads, o_.level >= 2);  // load_merging (+ transform_load at level 2)
    s.dead_removed += removeDeadStores(p, o_.instance);       // spill_optimization, extra_save_removal
    s.tensors_removed += removeUnusedInsertedTensors(p);      // dce
    s.coalesced += coalesceDmas(p, o_.instance, o_.limits);   // internal_dma_coalescing
    s.partial += shrinkPartialDmas(p, o_.instance);           // partial_DMA_access
    redundancy(p, s, RedundancyKind::Saves, false);           // reload_for_save_optimization
    s.tensors_removed += removeUnusedInsertedTensors(p);
  }

  // PSUM_spill_optimization: the removals again until nothing changes (a removed reload can make a save dead).
  void fixpoint(Program& p, DmaOptStats& s) {
    for (int round = 0; round < 16; ++round) {
      const uint32_t before = removedSoFar(s);
      redundancy(p, s, RedundancyKind::Saves, false);
      redundancy(p, s, RedundancyKind::Loads, false);
      s.dead_removed += removeDeadStores(p, o_.instance);
      if (removedSoFar(s) == before) break;
    }
    s.tensors_removed += removeUnusedInsertedTensors(p);
  }

  DmaOptOptions o_;
  DmaOptResult result_;
};

}  // namespace

bool hasDma(const Program& p) { return anyDma(p.body); }

DmaOptResult optimizeDmas(const Program& p, const DmaOptOptions& o) { return optimizeDmas(Program(p), o); }

DmaOptResult optimizeDmas(Program&& p, const DmaOptOptions& o) {
  if (o.level < -1 || o.level > 2)
    throw OptionError("--gca-dma-optlevel " + std::to_string(o.level) + " is not a level (expected -1, 0, 1 or 2)");
  return Pass(std::move(p), o).run();
}

}  // namespace allocsim
