#include "verify/byte_liveness.h"

#include <algorithm>
#include <limits>
#include <string>

#include "ir/interp.h"
#include "verify/loop_nest.h"

namespace allocsim {
namespace {

// Where element (p, e) of a placed tensor lies: a physical row (partition, or 0 in DRAM) and its first byte.
struct Layout {
  Space space = Space::Sbuf;
  uint64_t row0 = 0;   // SBUF/PSUM: the partition of the tensor's partition 0
  uint64_t base = 0;   // first byte of element 0 (of partition 0 in DRAM)
  uint64_t size = 1;   // bytes per element
  uint64_t elements = 0;
  uint32_t partitions = 0;

  uint64_t row(uint32_t p) const { return space == Space::Dram ? 0 : row0 + p; }
  uint64_t byte(uint32_t p, uint64_t e) const {
    return space == Space::Dram ? base + (uint64_t(p) * elements + e) * size : base + e * size;
  }
  // The element covering physical (row, byte), if any.
  bool at(uint64_t r, uint64_t b, uint32_t& p, uint64_t& e) const {
    if (space == Space::Dram) {
      if (b < base) return false;
      uint64_t flat = (b - base) / size;
      if (flat >= uint64_t(partitions) * elements) return false;
      p = uint32_t(flat / elements);
      e = flat % elements;
      return true;
    }
    if (r < row0 || r >= row0 + partitions || b < base) return false;
    uint64_t k = (b - base) / size;
    if (k >= elements) return false;
    p = uint32_t(r - row0);
    e = k;
    return true;
  }
};

Layout layoutOf(const Arch& arch, const Tensor& t) {
  Layout l;
  l.space = t.space;
  l.size = dtypeSize(t.dtype);
  l.elements = t.elements;
  l.partitions = t.partitions;
  const Placement& pl = *t.placement;
  switch (t.space) {
    case Space::Sbuf:
      l.row0 = pl.partition;
      l.base = pl.offset;
      break;
    case Space::Psum:  // a PSUM tensor starts at the start of its base bank
      l.base = uint64_t(pl.bank) * arch.psum_bank_bytes;
      break;
    case Space::Dram: l.base = pl.offset; break;
  }
  return l;
}

// The pair's intersection as physical rows [row_lo, row_hi) x bytes [lo, hi).
struct ByteRegion {
  uint64_t row_lo = 0, row_hi = 1, lo = 0, hi = 0;
};

ByteRegion byteRegion(const Arch& arch, Space space, const Footprint& f) {
  ByteRegion r;
  r.lo = f.lo;
  r.hi = f.hi;
  if (space == Space::Sbuf) {
    r.row_lo = f.part_lo;
    r.row_hi = f.part_hi;
  } else if (space == Space::Psum) {  // banks, every partition
    r.row_hi = arch.sbuf_partitions;
    r.lo = f.lo * arch.psum_bank_bytes;
    r.hi = f.hi * arch.psum_bank_bytes;
  }
  return r;
}

class ByteWalk : public ExecObserver {
 public:
  ByteWalk(const Program& p, const LivenessOptions& opts) : p_(p), opts_(opts), slot_(p.tensors.size()) {}

  // Tracks the elements of tensor t that cover a byte of `r`.
  void track(TensorId t, const Layout& l, const ByteRegion& r) {
    const Tensor& tensor = p_.tensors[t];
    std::vector<uint32_t>& s = slot_[t];
    if (s.empty()) {
      charge(uint64_t(tensor.partitions) * tensor.elements * sizeof(uint32_t), tensor);
      s.assign(uint64_t(tensor.partitions) * tensor.elements, 0);
    }
    for (uint32_t q = 0; q < tensor.partitions; ++q) {
      if (l.row(q) < r.row_lo || l.row(q) >= r.row_hi) continue;
      uint64_t first = l.byte(q, 0), last = l.byte(q, tensor.elements);  // [first, last)
      uint64_t lo = std::max(first, r.lo), hi = std::min(last, r.hi);
      if (lo >= hi) continue;
      for (uint64_t e = (lo - first) / l.size; e < (hi - first + l.size - 1) / l.size; ++e) {
        uint32_t& k = s[uint64_t(q) * tensor.elements + e];
        if (k != 0) continue;
        charge(sizeof(uint32_t) + sizeof(LiveIntervals), tensor);
        stamp_.push_back(tensor.input ? 1 : 0);  // inputs are written at step 0
        live_.emplace_back();
        if (tensor.input) live_.back().add(0, 0);
        k = uint32_t(live_.size());
      }
    }
  }

  const LiveIntervals* element(TensorId t, uint32_t p, uint64_t e) const {
    const std::vector<uint32_t>& s = slot_[t];
    if (s.empty()) return nullptr;
    uint32_t k = s[uint64_t(p) * p_.tensors[t].elements + e];
    return k == 0 ? nullptr : &live_[k - 1];
  }

  void onExecute(const Instruction&, uint64_t step, const ExecAccess& access) override {
    for (const ResolvedView& v : access.reads)
      forEach(v, [&](uint32_t k) { live_[k].add(stamp_[k] == 0 ? step : stamp_[k] - 1, step); });
    for (const ResolvedView& v : access.writes)
      forEach(v, [&](uint32_t k) {
        stamp_[k] = uint32_t(step + 1);
        live_[k].add(step, step);
      });
  }

  void finish(uint64_t steps) {
    for (TensorId t = 0; t < p_.tensors.size(); ++t) {
      if (!p_.tensors[t].output) continue;
      for (uint32_t k : slot_[t])
        if (k != 0 && stamp_[k - 1] != 0) live_[k - 1].add(stamp_[k - 1] - 1, steps);
    }
  }

 private:
  void charge(uint64_t bytes, const Tensor& t) {
    used_ += bytes;
    if (used_ > opts_.max_tracking_bytes)
      throw InputError(t.loc, "byte-level liveness needs more than " + std::to_string(opts_.max_tracking_bytes) +
                                  " bytes of bookkeeping (at tensor '" + t.name + "')");
  }

  template <typename F>
  void forEach(const ResolvedView& v, F&& f) {
    if (v.tensor >= slot_.size() || slot_[v.tensor].empty()) return;
    const std::vector<uint32_t>& s = slot_[v.tensor];
    const uint64_t row = p_.tensors[v.tensor].elements;
    for (uint32_t q = 0; q < v.partitions; ++q)
      for (uint32_t j = 0; j < v.count2; ++j) {
        uint64_t begin = (uint64_t(v.partition) + q) * row + v.offset + uint64_t(j) * v.step2;
        for (uint64_t i = 0; i < v.count; ++i)
          if (uint32_t k = s[begin + i]) f(k - 1);
      }
  }

  const Program& p_;
  const LivenessOptions& opts_;
  std::vector<std::vector<uint32_t>> slot_;  // by tensor, row-major elements: index + 1 into live_, 0 = untracked
  std::vector<uint32_t> stamp_;              // by tracked element: last write step + 1, 0 = never
  std::vector<LiveIntervals> live_;          // by tracked element
  uint64_t used_ = 0;
};

}  // namespace

std::vector<std::optional<ByteConflict>> byteConflicts(const Program& program, const std::vector<SuspectPair>& pairs,
                                                       const LivenessOptions& opts) {
  Program scratch;
  const Program& p = withPreorderIds(program, scratch);
  ByteWalk walk(p, opts);
  std::vector<ByteRegion> regions;
  for (const SuspectPair& s : pairs) {
    const Tensor& a = p.tensors[s.a];
    regions.push_back(byteRegion(p.arch, a.space, s.region));
    walk.track(s.a, layoutOf(p.arch, a), regions.back());
    walk.track(s.b, layoutOf(p.arch, p.tensors[s.b]), regions.back());
  }
  InterpOptions io;
  io.input_seed = opts.input_seed;
  io.max_steps = std::min<uint64_t>(opts.max_steps, std::numeric_limits<uint32_t>::max() - 2);
  io.observer = &walk;
  io.record_reads = false;
  io.release_dead = true;
  io.values = false;
  io.progress = opts.progress;
  io.progress_phase = opts.progress_phase;
  InterpResult run = interpret(p, io);
  walk.finish(run.steps);

  std::vector<std::optional<ByteConflict>> out;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const SuspectPair& s = pairs[i];
    const Layout la = layoutOf(p.arch, p.tensors[s.a]), lb = layoutOf(p.arch, p.tensors[s.b]);
    const ByteRegion& r = regions[i];
    std::optional<ByteConflict> best;
    for (uint64_t row = r.row_lo; row < r.row_hi; ++row) {
      const LiveIntervals* last_a = nullptr;
      const LiveIntervals* last_b = nullptr;
      for (uint64_t byte = r.lo; byte < r.hi; ++byte) {
        ByteConflict c;
        if (!la.at(row, byte, c.a_partition, c.a_element) || !lb.at(row, byte, c.b_partition, c.b_element)) continue;
        const LiveIntervals* ea = walk.element(s.a, c.a_partition, c.a_element);
        const LiveIntervals* eb = walk.element(s.b, c.b_partition, c.b_element);
        if (!ea || !eb || (ea == last_a && eb == last_b)) continue;  // the same two elements as the byte before
        last_a = ea;
        last_b = eb;
        std::optional<CommonStep> when = firstCommonStep(*ea, *eb);
        if (!when || (best && best->when.step <= when->step)) continue;
        c.when = *when;
        c.partition = row;
        c.byte = byte;
        best = c;
      }
    }
    out.push_back(best);
  }
  return out;
}

}  // namespace allocsim
