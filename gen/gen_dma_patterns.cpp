// The DMA-pattern statements (GenOptions::dma_patterns): source shapes that, once the allocators spill, give the
// DMA optimization (alloc/dma_opt/) something to clean up, each a pattern the production allocator's peepholes
//   target: abutting reads   one instruction reads two abutting halves of a tensor (a spill writer reloads each view
//                    separately: abutting reloads, internal_dma_coalescing)
//   repeated reads   two consecutive instructions read the same tensor (a reload per use: load_merging)
//   over-broad       a tensor is written whole and read once, statements later, over a sub-range only (a spill
//                    saves it whole but reloads only that sub-range: an over-broad save, partial_DMA_access)
//   dead store       a tensor is written and overwritten before any read (a save nobody reloads:
//                    extra_save_removal)
//   reads apart      one instruction reads two halves of a tensor one element apart (a spill writer reloads each view
//                    separately: two reloads that do not abut, which internal_dma_coalescing must leave apart)
#include "gen/generator.h"

namespace allocsim::gen {

void Generator::dmaPatternStatement() {
  std::vector<TensorId> srcs = readable(false);
  if (srcs.empty()) return loadStatement();
  const TensorId t = srcs[c_.below(srcs.size())];
  const uint32_t parts = prog_.tensors[t].partitions, elems = prog_.tensors[t].elements;
  const DType dt = prog_.tensors[t].dtype;
  const uint32_t half = elems / 2;
  const bool sub = elems >= 2 || parts >= 2;  // t has a strict sub-rectangle
  const uint32_t apart = elems >= 3 ? (elems - 1) / 2 : 0;  // each half's width when one element separates them
  const size_t pattern =
      weighted({half > 0 ? 1u : 0u, 1, sub || !overBroad_.empty() ? 1u : 0u, 1, apart > 0 ? 1u : 0u});
  // over-broad: read a waiting tensor (always when two wait, so the live set stays near the pressure target)
  if (pattern == 2 && (!sub || overBroad_.size() >= 2 || (!overBroad_.empty() && yes(50))))
    return readOverBroad(c_.below(overBroad_.size()));
  const uint32_t width = pattern == 0 ? half : pattern == 4 ? apart : elems;
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
    case 2: {  // over-broad: d = copy t now, one sub-range of d read later (readOverBroad)
      emit(binary(Op::Copy, whole_d, whole(t), {}, AluOp::Add));
      charge(uint64_t(parts) * width * dtypeSize(dt) * 2);
      noteWrite(d, magOf(t), false);
      ts_[d].full = true;
      overBroad_.push_back(d);
      poolBytes_ += prog_.tensors[d].totalBytes();
      return;
    }
    case 4: {  // reads apart: max(t[:, 0:a], t[:, a+1:a]), element a read by neither
      AccessPattern lo = view(rt, g);
      rt.e0 = apart + 1;
      AccessPattern hi = view(rt, g);
      emit(binary(Op::TT, whole_d, lo, hi, AluOp::Max));
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

void Generator::readOverBroad(size_t index) {
  const TensorId w = overBroad_[index];
  overBroad_.erase(overBroad_.begin() + std::ptrdiff_t(index));
  poolBytes_ -= prog_.tensors[w].totalBytes();
  const uint32_t parts = prog_.tensors[w].partitions, elems = prog_.tensors[w].elements;
  const DType dt = prog_.tensors[w].dtype;
  // A strict sub-rectangle: half the elements (when there are two) and, on a coin, part of the partitions.
  Rect r = wholeRect(w);
  Geo g;
  g.parts = parts;
  g.count = elems;
  if (elems >= 2) {
    g.count = elems / 2;
    r.e0 = uint32_t(upTo(elems - g.count));
  }
  if (parts >= 2 && (elems < 2 || yes(50))) {
    g.parts = uint32_t(between(1, parts - 1));
    r.p0 = uint32_t(upTo(parts - g.parts));
  }
  const TensorId d = newPoolTensor(g.parts, g.count, dt, {w});
  emit(binary(Op::Copy, whole(d), view(r, g), {}, AluOp::Add));
  charge(uint64_t(g.parts) * g.count * dtypeSize(dt) * 2);
  noteWrite(d, magOf(w), false);
  addToPool(d);
}

}  // namespace allocsim::gen
