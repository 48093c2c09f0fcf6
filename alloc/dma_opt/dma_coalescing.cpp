#include "alloc/dma_opt/dma_coalescing.h"

#include <vector>

#include "alloc/dma_opt/merge_tracker.h"
#include "ir/plant.h"

namespace allocsim {
namespace {

bool runOk(const AccessPattern& ap) { return isPlainRun(ap) && ap.count2 == 1; }

// B continues A: same tensors and rows, B's elements start where A's end on both sides.
bool abuts(const Instruction& a, const Instruction& b) {
  const int64_t gap = ALLOCSIM_PLANT("dma_coalesce_across_gap") ? 1 : 0;
  return a.dst.tensor == b.dst.tensor && a.a.tensor == b.a.tensor && a.dst.tensor != a.a.tensor &&
         a.dst.partition == b.dst.partition && a.dst.partitions == b.dst.partitions &&
         a.a.partition == b.a.partition && a.a.partitions == b.a.partitions && a.dst.count == a.a.count &&
         b.dst.count == b.a.count && b.dst.offset.constant == a.dst.offset.constant + a.dst.count + gap &&
         b.a.offset.constant == a.a.offset.constant + a.a.count + gap;
}

class Coalescer {
 public:
  Coalescer(Program& p, DmaOptInstance instance, const DmaOptLimits& limits)
      : p_(p), instance_(instance), limits_(limits) {}

  uint32_t run() {
    forEachBody(p_.body, [&](std::vector<Instruction>& body) { coalesce(body); });
    p_.renumber();
    return merged_;
  }

 private:
  bool candidate(const Instruction& i) const {
    return isOptimizable(p_, i, instance_) && runOk(i.dst) && runOk(i.a) && !p_.tensors[i.dst.tensor].pinned;
  }

  // tooLargeForCoalescing and the limits: may a DMA of `elements` per partition of t's dtype exist?
  bool fits(TensorId t, uint64_t elements) const {
    const uint64_t size = dtypeSize(p_.tensors[t].dtype);
    return elements < limits_.coalesce_sanity_limit && elements <= limits_.coalesce_element_ceiling &&
           size <= limits_.coalesce_max_element_bytes && elements * size <= p_.arch.dma_coalesce_bytes;
  }

  void coalesce(std::vector<Instruction>& body) {
    MergeTracker tracker(body.size());
    std::vector<uint64_t> width(body.size(), 0);  // elements per partition of each set, at its representative
    for (size_t i = 0; i < body.size(); ++i) width[i] = body[i].op == Op::Dma ? body[i].dst.count : 0;
    bool any = false;
    for (size_t j = 1; j < body.size(); ++j) {
      const size_t i = j - 1;
      if (!candidate(body[i]) || !candidate(body[j])) continue;
      // A chain extends through its last member: B must continue the set's last DMA, which is body[i].
      if (!abuts(body[i], body[j])) continue;
      const size_t root = tracker.find(i);
      if (!fits(body[j].dst.tensor, width[root] + body[j].dst.count)) continue;
      width[root] += body[j].dst.count;
      tracker.join(i, j);
      any = true;
    }
    if (!any) return;
    std::vector<Instruction> out;
    out.reserve(body.size());
    for (size_t i = 0; i < body.size(); ++i) {
      const size_t root = tracker.find(i);
      if (root != i) continue;  // merged into its set's first DMA
      Instruction inst = std::move(body[i]);
      if (width[i] != inst.dst.count && inst.op == Op::Dma) {
        merged_ += uint32_t(tracker.members(i).size() - 1);
        inst.dst.count = uint32_t(width[i]);
        inst.a.count = uint32_t(width[i]);
        // The merged run may cross tiles of a tile array: view the whole row (same elements, docs/format.md
        // "Tile arrays").
        inst.dst.tile.reset();
        inst.a.tile.reset();
        inst.origin = Origin::Coalesced;
      }
      out.push_back(std::move(inst));
    }
    body = std::move(out);
  }

  Program& p_;
  DmaOptInstance instance_;
  const DmaOptLimits& limits_;
  uint32_t merged_ = 0;
};

}  // namespace

uint32_t coalesceDmas(Program& p, DmaOptInstance instance, const DmaOptLimits& limits) {
  return Coalescer(p, instance, limits).run();
}

}  // namespace allocsim
