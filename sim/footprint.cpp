#include "sim/footprint.h"

#include <algorithm>

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
void sbufSpans(const Program& p, const std::vector<Instruction>& body, std::vector<uint64_t>& spans) {
  for (const Instruction& inst : body) {
    for (const AccessPattern* ap : {&inst.dst, &inst.a, &inst.b}) {
      if (ap->tensor >= p.tensors.size() || p.tensors[ap->tensor].space != Space::Sbuf || ap->count == 0) continue;
      spans.push_back((uint64_t(ap->count2 - 1) * ap->step2 + ap->count) * dtypeSize(p.tensors[ap->tensor].dtype));
    }
    sbufSpans(p, inst.body, spans);
  }
}
}  // namespace

uint32_t sbufBucketShift(const Program& p) {
  std::vector<uint64_t> spans;
  sbufSpans(p, p.body, spans);
  if (spans.empty()) return 10;
  // The span below which half of the bytes lie (a median weighted by size: a kernel's many one-column statistics
  // do not set the bucket of the tiles that make its traffic).
  std::sort(spans.begin(), spans.end());
  uint64_t total = 0;
  for (uint64_t s : spans) total += s;
  uint64_t below = 0, median = spans.back();
  for (uint64_t s : spans)
    if ((below += s) * 2 >= total) {
      median = s;
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
