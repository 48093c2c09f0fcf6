#include "sim/footprint.h"

#include <algorithm>
#include <cmath>

namespace allocsim::sim {

Footprint viewFootprint(const MachineLayout& layout, const ResolvedView& v) {
  return ShapeFootprint(layout, v).at(v.partition, v.offset);
}

// The layout places a tensor's byte b of partition p at its first byte plus p rows plus b (MachineLayout::locate):
// the first byte and a DRAM tensor's row stride are all the footprint needs besides the shape.
ShapeFootprint::ShapeFootprint(const MachineLayout& layout, const ResolvedView& shape) {
  if (shape.elements() == 0) return;
  empty_ = false;
  const PhysicalByte first = layout.locate(shape.tensor, 0, 0);
  partitions_ = shape.partitions;
  elem_size_ = shape.elem_size;
  start_ = first.byte;
  first_row_ = first.row;
  span_ = (uint64_t(shape.count2 - 1) * shape.step2 + shape.count) * shape.elem_size;
  switch (first.region) {
    case PhysRegion::Sbuf: resource_ = Footprint::kSbuf; return;
    case PhysRegion::Psum:
      resource_ = Footprint::kPsum;
      bank_ = layout.arch().psum_bank_bytes;
      return;
    case PhysRegion::Dram:
    case PhysRegion::OwnDram:
      resource_ = first.region == PhysRegion::Dram ? uint32_t(Footprint::kDram) : Footprint::kOwnDram + shape.tensor;
      row_bytes_ = layout.locate(shape.tensor, 1, 0).byte - first.byte;
      return;
  }
}

uint32_t tensorResource(const MachineLayout& layout, TensorId t) {
  switch (layout.locate(t, 0, 0).region) {
    case PhysRegion::Sbuf: return Footprint::kSbuf;
    case PhysRegion::Psum: return Footprint::kPsum;
    case PhysRegion::Dram: return Footprint::kDram;
    case PhysRegion::OwnDram: break;
  }
  return Footprint::kOwnDram + t;
}

namespace {
// (A view of an undeclared tensor marks nothing: resolving it fails.)
void markWritten(const std::vector<Instruction>& body, const MachineLayout& layout, std::vector<bool>& written) {
  for (const Instruction& inst : body) {
    for (const AccessPattern* ap : {&inst.dst, &inst.rare->reduce_dst})
      if (Footprint::kOwnDram + uint64_t(ap->tensor) < written.size())
        written[tensorResource(layout, ap->tensor)] = true;
    markWritten(inst.body, layout, written);
  }
}
}  // namespace

std::vector<bool> writtenResources(const Program& p, const MachineLayout& layout) {
  std::vector<bool> written(Footprint::kOwnDram + p.tensors.size(), false);
  markWritten(p.body, layout, written);
  return written;
}

namespace {
// The span in bytes per partition of each SBUF view of `body`'s instructions (destination and first two sources),
// with the times it runs: `runs` of the enclosing block times its loops' trip counts (an `if`'s block as if taken).
void sbufSpans(const Program& p, const std::vector<Instruction>& body, double runs,
               std::vector<std::pair<uint64_t, double>>& spans) {
  for (const Instruction& inst : body) {
    for (const AccessPattern* ap : {&inst.dst, &inst.a, &inst.b}) {
      if (ap->tensor >= p.tensors.size() || p.tensors[ap->tensor].space != Space::Sbuf || ap->count == 0) continue;
      spans.emplace_back((uint64_t(ap->count2 - 1) * ap->step2 + ap->count) * dtypeSize(p.tensors[ap->tensor].dtype),
                         runs);
    }
    double trips = 1;
    if (inst.op == Op::Loop && inst.step > 0 && inst.hi > inst.lo)
      trips = std::ceil((double(inst.hi) - double(inst.lo)) / double(inst.step));
    sbufSpans(p, inst.body, runs * trips, spans);
  }
}
}  // namespace

uint32_t sbufBucketShift(const Program& p) {
  std::vector<std::pair<uint64_t, double>> spans;  // (span, runs)
  sbufSpans(p, p.body, 1, spans);
  if (spans.empty()) return 10;
  // The span below which half of the bytes the program's SBUF accesses span lie (a median weighted by span and by
  // how often the view is accessed): a kernel's many one-column statistics do not set the bucket of the tiles
  // that make its traffic, nor do a few whole-row loads outside its inner loops.
  std::sort(spans.begin(), spans.end());
  double total = 0;
  for (const auto& [span, runs] : spans) total += double(span) * runs;
  double below = 0;
  uint64_t median = spans.back().first;
  for (const auto& [span, runs] : spans)
    if ((below += double(span) * runs) * 2 >= total) {
      median = span;
      break;
    }
  uint32_t shift = 6;
  while (shift < 16 && (uint64_t(2) << shift) <= median) ++shift;
  return shift;
}

Footprint registerFootprint(const MachineLayout& layout, RegId r) {
  Footprint f;
  f.resource = Footprint::kRegisters;
  f.row_lo = 0;
  f.row_hi = 1;
  f.byte_lo = uint64_t(layout.firstLane(r)) * 4;
  f.byte_hi = f.byte_lo + uint64_t(layout.lanes(r)) * 4;
  return f;
}

}  // namespace allocsim::sim
