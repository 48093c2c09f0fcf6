#include "alloc/dma_opt/both_instances.h"

#include <utility>

namespace allocsim {

DmaOptBothResult optimizeDmasBothInstances(Program p, int level) {
  DmaOptBothResult out;
  DmaOptStats& s = out.stats;
  for (DmaOptInstance instance : {DmaOptInstance::Psum, DmaOptInstance::Sb}) {
    DmaOptOptions o;
    o.instance = instance;
    o.level = level;
    DmaOptResult r = optimizeDmas(std::move(p), o);
    const DmaOptStats& one = r.stats;
    if (instance == DmaOptInstance::Psum) s.pre = one.pre;
    s.post = one.post;
    s.ran = s.ran || one.ran;
    s.loads_removed += one.loads_removed;
    s.saves_removed += one.saves_removed;
    s.copies += one.copies;
    s.dead_removed += one.dead_removed;
    s.coalesced += one.coalesced;
    s.partial += one.partial;
    s.tensors_removed += one.tensors_removed;
    s.psum_spill_removed += one.psum_spill_removed;
    p = std::move(r.program);
  }
  out.program = std::move(p);
  return out;
}

}  // namespace allocsim
