#include "alloc/dma_opt/dma_scope.h"

namespace allocsim {

const char* dmaOptInstanceName(DmaOptInstance i) {
  return i == DmaOptInstance::Psum ? "dma_optimization_psum" : "dma_optimization_sb";
}

bool isOptimizable(const Program& p, const Instruction& inst, DmaOptInstance instance) {
  if (inst.op != Op::Dma || inst.origin == Origin::Source) return false;
  if (inst.dst.tensor >= p.tensors.size() || inst.a.tensor >= p.tensors.size()) return false;
  // A converting DMA computes new values: no forwarding, merging or narrowing may treat it as a byte copy.
  if (isConvertingDma(p, inst)) return false;
  const Space d = p.tensors[inst.dst.tensor].space, s = p.tensors[inst.a.tensor].space;
  const bool psum = d == Space::Psum || s == Space::Psum;
  const bool sbuf = d == Space::Sbuf || s == Space::Sbuf;
  return instance == DmaOptInstance::Psum ? psum : (sbuf && !psum);
}

TensorId referenceTensor(const Program& p, TensorId t) {
  for (size_t hops = 0; t < p.tensors.size() && hops <= p.tensors.size(); ++hops) {
    if (p.tensors[t].origin == Origin::Source) return t;
    t = p.tensors[t].copy_of;
  }
  return kNone;
}

std::optional<Area> exactArea(const Program& p, const AccessPattern& ap) {
  if (ap.tensor >= p.tensors.size() || !isPlainRun(ap)) return std::nullopt;
  const Tensor& t = p.tensors[ap.tensor];
  if (t.space == Space::Dram && t.placement) return std::nullopt;
  return areaOf(p, ap);
}

AccessPattern subView(const AccessPattern& ap, uint32_t row, uint32_t rows, uint32_t elem, uint32_t count) {
  AccessPattern v = ap;
  v.partition.constant += row;
  v.partitions = rows;
  v.offset.constant += elem;
  v.count = count;
  v.count2 = 1;
  v.step2 = 0;
  return v;
}

}  // namespace allocsim
