#include "alloc/dma_opt/dma_traffic.h"

#include <algorithm>

namespace allocsim {
namespace {

uint64_t runs(const AccessPattern& ap) { return uint64_t(ap.partitions) * (isContiguous(ap) ? 1 : ap.count2); }

uint64_t tripCount(const Instruction& loop) {
  if (loop.step <= 0 || loop.hi <= loop.lo) return 0;
  // (hi - lo) may not fit int64 for extreme bounds; unsigned arithmetic on the difference does.
  const uint64_t span = uint64_t(loop.hi) - uint64_t(loop.lo);
  return (span + uint64_t(loop.step) - 1) / uint64_t(loop.step);
}

// Saturating, so a program with absurd trip counts reports a huge figure instead of a wrapped one.
uint64_t mulSat(uint64_t a, uint64_t b) { return (b != 0 && a > UINT64_MAX / b) ? UINT64_MAX : a * b; }
uint64_t addSat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

void walk(const Program& p, const std::vector<Instruction>& body, uint64_t times, DmaTraffic& t) {
  for (const Instruction& i : body) {
    if (i.op == Op::Loop) {
      walk(p, i.body, mulSat(times, tripCount(i)), t);
    } else if (i.op == Op::If) {
      walk(p, i.body, times, t);  // as if the condition always held: an upper bound
    } else if (i.op == Op::Dma) {
      ++t.instructions;
      t.executed = addSat(t.executed, times);
      t.descriptors = addSat(t.descriptors, mulSat(times, dmaDescriptors(p, i)));
      t.bytes = addSat(t.bytes, mulSat(times, dmaBytes(p, i)));
    }
  }
}

}  // namespace

uint64_t dmaDescriptors(const Program&, const Instruction& dma) { return std::max(runs(dma.dst), runs(dma.a)); }

uint64_t dmaBytes(const Program& p, const Instruction& dma) {
  if (dma.dst.tensor >= p.tensors.size()) return 0;
  return uint64_t(dma.dst.partitions) * dma.dst.elementsPerPartition() * dtypeSize(p.tensors[dma.dst.tensor].dtype);
}

DmaTraffic measureDmaTraffic(const Program& p) {
  DmaTraffic t;
  walk(p, p.body, 1, t);
  return t;
}

}  // namespace allocsim
