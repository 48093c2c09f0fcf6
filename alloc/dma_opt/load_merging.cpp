#include "alloc/dma_opt/load_merging.h"

#include <optional>

#include "alloc/dma_opt/program_edit.h"
#include "ir/plant.h"
#include "ir/print.h"

namespace allocsim {
namespace {

bool simpleRun(const AccessPattern& ap) { return isPlainRun(ap) && ap.count2 == 1; }

// `view` as a sub-range of `side` (same tensor, rows and elements inside): the matching sub-range of `other`.
std::optional<AccessPattern> matching(const AccessPattern& view, const AccessPattern& side, const AccessPattern& other) {
  if (view.tensor != side.tensor) return std::nullopt;
  const int64_t row = view.partition.constant - side.partition.constant;
  const int64_t elem = view.offset.constant - side.offset.constant;
  if (row < 0 || elem < 0 || uint64_t(row) + view.partitions > side.partitions ||
      uint64_t(elem) + view.count > side.count)
    return std::nullopt;
  return subView(other, uint32_t(row), view.partitions, uint32_t(elem), view.count);
}

bool isSpillSlot(const Program& p, TensorId t) { return p.tensors[t].origin == Origin::Spill; }

// Two tensors that can stand for each other everywhere: the same value, bytes and shape.
bool interchangeable(const Program& p, TensorId a, TensorId b) {
  const Tensor &x = p.tensors[a], &y = p.tensors[b];
  return y.origin != Origin::Source && !y.pinned && x.space == y.space && x.placement && y.placement &&
         *x.placement == *y.placement && x.partitions == y.partitions && x.elements == y.elements &&
         x.dtype == y.dtype && referenceTensor(p, a) != kNone && referenceTensor(p, a) == referenceTensor(p, b);
}

class Sweep {
 public:
  Sweep(Program& p, DmaOptInstance instance, RedundancyKind kind, bool transform, const DmaOptLimits& limits,
        std::vector<DmaOptEvent>* log)
      : p_(p), instance_(instance), kind_(kind), transform_(transform), limits_(limits), log_(log) {}

  RedundancyStats run() {
    // A rename edits the whole program, so the sweep restarts after one (each removes a DMA: it terminates).
    while (sweep(p_.body)) {
    }
    p_.renumber();
    return stats_;
  }

 private:
  // True when it renamed a tensor (the caller restarts).
  bool sweep(std::vector<Instruction>& body) {
    for (size_t j = 0; j < body.size(); ++j) {
      if (hasBody(body[j].op)) {
        if (sweep(body[j].body)) return true;
        continue;
      }
      if (!wanted(body[j])) continue;
      switch (tryRemove(body, j)) {
        case Outcome::None: break;
        case Outcome::Removed: body.erase(body.begin() + long(j)); --j; break;
        case Outcome::Renamed: body.erase(body.begin() + long(j)); return true;
        case Outcome::Transformed: break;
      }
    }
    return false;
  }

  bool wanted(const Instruction& y) const {
    if (!isOptimizable(p_, y, instance_) || !simpleRun(y.dst) || !simpleRun(y.a)) return false;
    if (p_.tensors[y.dst.tensor].pinned || p_.tensors[y.dst.tensor].output) return false;  // !out_pinned
    return (kind_ == RedundancyKind::Saves) == isSpillSlot(p_, y.dst.tensor);
  }

  enum class Outcome : uint8_t { None, Removed, Renamed, Transformed };

  // Removal first (any earlier DMA that makes Y's data resident at Y's own bytes), then transform_load.
  Outcome tryRemove(std::vector<Instruction>& body, size_t j) {
    const std::optional<Area> dst = exactArea(p_, body[j].dst);
    if (!dst) return Outcome::None;
    for (int phase = 0; phase < (transform_ ? 2 : 1); ++phase) {
      const size_t first = j > limits_.redundancy_window ? j - limits_.redundancy_window : 0;
      for (size_t i = j; i-- > first;) {
        const Outcome o = tryPair(body, i, j, *dst, phase == 1);
        if (o != Outcome::None) return o;
      }
    }
    return Outcome::None;
  }

  Outcome tryPair(std::vector<Instruction>& body, size_t i, size_t j, const Area& dst, bool transform) {
    const Instruction& x = body[i];
    const Instruction& y = body[j];
    if (x.op != Op::Dma || x.origin == Origin::Source || !simpleRun(x.dst) || !simpleRun(x.a)) return Outcome::None;
    if (x.dst.tensor >= p_.tensors.size() || x.a.tensor >= p_.tensors.size()) return Outcome::None;
    if (x.dst.partitions != x.a.partitions || x.dst.count != x.a.count) return Outcome::None;
    // Y's source as a sub-range of one side of X; `resident` is the other side's matching sub-range.
    for (int dir = 0; dir < 2; ++dir) {
      const AccessPattern& side = dir == 0 ? x.a : x.dst;
      const AccessPattern& other = dir == 0 ? x.dst : x.a;
      std::optional<AccessPattern> resident = matching(y.a, side, other);
      if (!resident) continue;
      const std::optional<Area> src_area = exactArea(p_, y.a), res_area = exactArea(p_, *resident);
      if (!src_area || !res_area) continue;
      if (!ALLOCSIM_PLANT("dma_reload_source_rewrite_ignored") && !untouchedBetween(p_, body, i, j, *src_area))
        continue;
      if (!untouchedBetween(p_, body, i, j, *res_area)) continue;
      if (!transform && *res_area == dst) {
        const Outcome o = removeOnto(body, i, j, *resident);
        if (o != Outcome::None) return o;
      }
      if (transform && transformToCopy(body, i, j, *resident, *res_area, dst)) return Outcome::Transformed;
    }
    return Outcome::None;
  }

  Outcome removeOnto(const std::vector<Instruction>& body, size_t i, size_t j, const AccessPattern& resident) {
    const Instruction& y = body[j];
    const TensorId from = y.dst.tensor, onto = resident.tensor;
    if (from != onto && !interchangeable(p_, onto, from)) return Outcome::None;
    if (!gapClear(body, i, j, onto, from)) return Outcome::None;
    if (from == onto && !(y.dst == resident)) return Outcome::None;
    (kind_ == RedundancyKind::Saves ? stats_.saves_removed : stats_.loads_removed)++;
    if (log_) log_->push_back(dma_event::Removed{printInstruction(p_, y), y.loc.line, y.loc.col, p_.tensors[onto].name});
    if (from == onto) return Outcome::Removed;
    renameTensor(p_, from, onto);
    ++stats_.renamed;
    return Outcome::Renamed;
  }

  // Removing Y (with or without a rename) makes `onto` live from X to Y's last reader; so does a copy from it. The placement check counts liveness per tensor, over
  // its whole rectangle, so no other tensor whose rectangle meets onto's may be touched between X and Y (one live
  // across the whole gap would already meet onto at X, which names it).
  bool gapClear(const std::vector<Instruction>& body, size_t i, size_t j, TensorId onto, TensorId from) const {
    const Area rect = areaOf(p_, wholeTensor(p_, onto));
    bool clear = true;
    auto check = [&](const AccessPattern& ap) {
      if (ap.tensor < p_.tensors.size() && ap.tensor != onto && ap.tensor != from &&
          overlaps(areaOf(p_, wholeTensor(p_, ap.tensor)), rect))
        clear = false;
    };
    auto visit = [&](const Instruction& inst) { forEachOperandView(inst, check); };
    for (size_t k = i + 1; k < j && clear; ++k) {
      visit(body[k]);
      if (hasBody(body[k].op)) forEachInstruction(body[k].body, visit);
    }
    return clear;
  }

  // transform_load: Y becomes `copy Y.dst, resident` when the cost model accepts it.
  bool transformToCopy(std::vector<Instruction>& body, size_t i, size_t j, const AccessPattern& resident,
                       const Area& res_area, const Area& dst) {
    Instruction& y = body[j];
    const Space from = p_.tensors[resident.tensor].space, to = p_.tensors[y.dst.tensor].space;
    if (kind_ != RedundancyKind::Loads || to != Space::Sbuf || from == Space::Dram || overlaps(res_area, dst))
      return false;
    // The copy reads `resident` where Y wrote its destination, so both tensors are live there; the placement
    // check counts liveness per tensor over its whole rectangle, so their rectangles must not meet (the views
    // apart is not enough: dma_opt_fuzz, corpus/regressions/dma_opt_copy_onto_resident.nki.txt).
    if (resident.tensor != y.dst.tensor &&
        overlaps(areaOf(p_, wholeTensor(p_, resident.tensor)), areaOf(p_, wholeTensor(p_, y.dst.tensor))))
      return false;
    if (!gapClear(body, i, j, resident.tensor, y.dst.tensor)) return false;
    const uint64_t ring_decrease = y.dst.partitions;  // one descriptor per partition row
    const uint64_t bytes = uint64_t(y.dst.count) * dtypeSize(p_.tensors[y.dst.tensor].dtype);
    const uint64_t distance = j - i;
    const bool take = ring_decrease >= limits_.copy_min_ring_decrease &&
                      bytes <= limits_.copy_max_bytes_per_partition && distance <= limits_.copy_max_distance;
    if (log_)
      log_->push_back(dma_event::CopyConsidered{ring_decrease, p_.tensors[resident.tensor].name, distance, bytes, take});
    if (!take) return false;
    Instruction c;
    c.op = Op::Copy;
    c.origin = Origin::Copy;
    c.loc = y.loc;
    c.dst = y.dst;
    c.a = resident;
    c.a.loc = y.a.loc;
    y = std::move(c);
    ++stats_.copies;
    return true;
  }

  Program& p_;
  DmaOptInstance instance_;
  RedundancyKind kind_;
  bool transform_;
  const DmaOptLimits& limits_;
  std::vector<DmaOptEvent>* log_;  // null: nothing recorded
  RedundancyStats stats_;
};

}  // namespace

RedundancyStats removeRedundantDmas(Program& p, DmaOptInstance instance, RedundancyKind kind, bool transform,
                                    const DmaOptLimits& limits, std::vector<DmaOptEvent>* log) {
  return Sweep(p, instance, kind, transform, limits, log).run();
}

}  // namespace allocsim
