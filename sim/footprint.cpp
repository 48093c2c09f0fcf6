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

namespace {
struct ViewStart {
  uint64_t residue;  // its first byte in a partition, modulo the bucket size
  uint64_t span;     // bytes per partition
  double runs;
};
// The SBUF views of `body`'s instructions (destination and first two sources) whose first byte modulo `bucket`
// is the same at every execution (each register term's step a multiple of the bucket), runs counted as sbufSpans.
void sbufStarts(const Program& p, const MachineLayout& layout, const std::vector<Instruction>& body, double runs,
                uint64_t bucket, std::vector<ViewStart>& starts) {
  for (const Instruction& inst : body) {
    for (const AccessPattern* ap : {&inst.dst, &inst.a, &inst.b}) {
      if (ap->tensor >= p.tensors.size() || p.tensors[ap->tensor].space != Space::Sbuf || ap->count == 0) continue;
      const uint64_t elem = dtypeSize(p.tensors[ap->tensor].dtype);
      bool fixed = ap->offset.constant >= 0;
      for (const IndexTerm& t : ap->offset.terms) fixed &= t.isAffine() && (uint64_t(t.scale) * elem) % bucket == 0;
      if (!fixed) continue;
      const uint64_t start = layout.locate(ap->tensor, 0, 0).byte + uint64_t(ap->offset.constant) * elem;
      starts.push_back({start % bucket, (uint64_t(ap->count2 - 1) * ap->step2 + ap->count) * elem, runs});
    }
    double trips = 1;
    if (inst.op == Op::Loop && inst.step > 0 && inst.hi > inst.lo)
      trips = std::ceil((double(inst.hi) - double(inst.lo)) / double(inst.step));
    sbufStarts(p, layout, inst.body, runs * trips, bucket, starts);
  }
}
}  // namespace

uint64_t sbufBucketOrigin(const Program& p, const MachineLayout& layout, uint32_t shift) {
  const uint64_t bucket = uint64_t(1) << shift;
  std::vector<ViewStart> starts;
  sbufStarts(p, layout, p.body, 1, bucket, starts);
  // Candidates: the offsets the most accessed views start at (a few: each is scored over every view).
  std::vector<std::pair<double, uint64_t>> weight;  // (weight, residue)
  for (const ViewStart& v : starts) weight.emplace_back(double(v.span) * v.runs, v.residue);
  std::sort(weight.begin(), weight.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  std::vector<std::pair<double, uint64_t>> merged;
  for (const auto& [w, r] : weight)
    if (!merged.empty() && merged.back().second == r) merged.back().first += w;
    else merged.emplace_back(w, r);
  std::sort(merged.begin(), merged.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (merged.size() > 8) merged.resize(8);
  // The extra buckets the views fall in with buckets starting at `origin` (0 when each lies in one).
  auto extra = [&](uint64_t origin) {
    double sum = 0;
    for (const ViewStart& v : starts)
      sum += double((((v.residue + bucket - origin) % bucket) + v.span - 1) / bucket) * v.runs;
    return sum;
  };
  uint64_t best = 0;
  double best_extra = extra(0);
  for (const auto& [w, origin] : merged) {
    const double e = extra(origin);
    if (e < best_extra) best = origin, best_extra = e;
  }
  return best;
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
