#include "sim/stream.h"

#include <algorithm>
#include <cstring>

#include "sim/footprint.h"

namespace allocsim::sim {

namespace {

// Writes elements [lo, hi) of every partition of a pending view (its bytes hold the elements partition by
// partition, each in the view's order: the second dimension outer).
void commitElements(Storage& s, const PendingWrites::View& w, uint64_t lo, uint64_t hi) {
  const ResolvedView& v = w.view;
  const uint64_t per = v.perPartition(), size = v.elem_size;
  for (uint32_t p = 0; p < v.partitions; ++p) {
    uint8_t* row = s.row(v.tensor, v.partition + p);
    const uint8_t* in = w.bytes.data() + p * per * size;
    for (uint64_t i = lo; i < hi;) {
      const uint64_t outer = i / v.count, inner = i % v.count;
      const uint64_t run = std::min<uint64_t>(hi - i, v.count - inner);
      std::memmove(row + (v.offset + outer * v.step2 + inner) * size, in + i * size, run * size);
      i += run;
    }
  }
}

}  // namespace

bool overlapsAtAnOffset(const MachineLayout& layout, const ResolvedView& dst, const ResolvedView& src) {
  if (dst.elements() == 0 || src.elements() == 0) return false;
  // In place, element for element: every element of the destination is the same element of the source. Asked first
  // (the shapes, then the addresses): it needs neither footprint.
  const bool in_place = dst.elem_size == src.elem_size && dst.partitions == src.partitions &&
                        dst.count == src.count && dst.count2 == src.count2 &&
                        (dst.count2 == 1 || dst.step2 == src.step2) &&
                        layout.locate(dst.tensor, dst.partition, dst.offset * dst.elem_size) ==
                            layout.locate(src.tensor, src.partition, src.offset * src.elem_size);
  return !in_place && viewFootprint(layout, dst).overlaps(viewFootprint(layout, src));
}

uint64_t streamInstruction(InstructionStepper& stepper, Storage& s, const Instruction& inst, bool first, bool last,
                           uint32_t chunk_elements, PendingWrites& out, bool& differs) {
  differs = false;
  PendingWrites atomic;
  const uint64_t hash = stepper.begin(inst, first, last, atomic);  // the operands as the instruction starts
  if (atomic.used != 1 || !atomic.regs.empty()) {  // not a one-destination instruction: applied at once
    out = std::move(atomic);
    return hash;
  }
  const PendingWrites::View& whole = atomic.views[0];
  const uint64_t n = whole.view.perPartition(), chunk = std::max<uint32_t>(1, chunk_elements);
  PendingWrites later;
  for (uint64_t lo = 0; lo < n; lo += chunk) {
    // Chunk k is computed from memory as chunks 0..k-1 left it (for chunk 0, the operands read above).
    if (lo > 0) later.clear(), stepper.begin(inst, first, last, later);
    commitElements(s, lo == 0 ? whole : later.views[0], lo, std::min(n, lo + chunk));
  }
  out.clear();
  PendingWrites::View& result = out.add();
  result.view = whole.view;
  result.bytes.resize(whole.bytes.size());
  gatherView(s, whole.view, result.bytes.data());
  differs = result.bytes != whole.bytes;
  return hash;
}

}  // namespace allocsim::sim
