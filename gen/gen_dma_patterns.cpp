// The DMA-pattern statements (GenOptions::dma_patterns): source shapes that, once the allocators spill, give the
// DMA optimization (alloc/dma_opt/) something to clean up, each a pattern seed 000's peepholes target:
//   abutting reads   one instruction reads two abutting halves of a tensor (a spill writer reloads each view
//                    separately: abutting reloads, internal_dma_coalescing)
//   repeated reads   two consecutive instructions read the same tensor (a reload per use: load_merging)
//   sub-range read   an instruction reads part of a tensor (an over-broad reload: partial_DMA_access)
//   dead store       a tensor is written and overwritten before any read (a save nobody reloads:
//                    extra_save_removal)
#include "gen/generator.h"

namespace allocsim::gen {

namespace {

Instruction binary(Op op, AccessPattern dst, AccessPattern a, AccessPattern b, AluOp alu) {
  Instruction i;
  i.op = op;
  i.dst = std::move(dst);
  i.a = std::move(a);
  i.b = std::move(b);
  i.alu = alu;
  return i;
}

}  // namespace

void Generator::dmaPatternStatement() {
  std::vector<TensorId> srcs = readable(false);
  if (srcs.empty()) return loadStatement();
  const TensorId t = srcs[c_.below(srcs.size())];
  const uint32_t parts = prog_.tensors[t].partitions, elems = prog_.tensors[t].elements;
  const DType dt = prog_.tensors[t].dtype;
  const uint32_t half = elems / 2;
  const size_t pattern = weighted({half > 0 ? 1u : 0u, 1, half > 0 ? 1u : 0u, 1});
  const uint32_t width = (pattern == 0 || pattern == 2) ? half : elems;
  const TensorId d = newPoolTensor(parts, width, dt, {t});
  const AccessPattern whole_d = whole(d);
  Rect rt = wholeRect(t);
  Geo g;
  g.parts = parts;
  g.count = width;
  switch (pattern) {
    case 0: {  // abutting reads: max(t[:, 0:h], t[:, h:h])
      AccessPattern lo = view(rt, g);
      rt.e0 = half;
      AccessPattern hi = view(rt, g);
      emit(binary(Op::TT, whole_d, lo, hi, AluOp::Max));
      break;
    }
    case 1: {  // repeated reads: copy t, then max with t again
      emit(binary(Op::Copy, whole_d, whole(t), {}, AluOp::Add));
      emit(binary(Op::TT, whole_d, whole_d, whole(t), AluOp::Max));
      break;
    }
    case 2: {  // a sub-range read: copy the upper half
      rt.e0 = elems - half;
      emit(binary(Op::Copy, whole_d, view(rt, g), {}, AluOp::Add));
      break;
    }
    default: {  // a dead store: memset, then overwrite with a copy before any read
      Instruction m;
      m.op = Op::Memset;
      m.dst = whole_d;
      m.imm = isFloat(dt) ? floatImm(0) : intImm(0);
      emit(m);
      emit(binary(Op::Copy, whole_d, whole(t), {}, AluOp::Add));
      break;
    }
  }
  charge(uint64_t(parts) * width * dtypeSize(dt) * 2);
  noteWrite(d, magOf(t), false);
  addToPool(d);
}

}  // namespace allocsim::gen
