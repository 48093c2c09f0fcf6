#include "alloc/dma_opt/partial_dma.h"

#include <algorithm>
#include <vector>

#include "ir/plant.h"

namespace allocsim {
namespace {

struct Hull {
  uint64_t row_lo = UINT64_MAX, row_hi = 0, lo = UINT64_MAX, hi = 0;
  bool all = false;
  bool empty() const { return !all && row_lo >= row_hi; }
  void add(const AccessPattern& ap) {
    if (ap.hasRegister() || ap.partition.constant < 0 || ap.offset.constant < 0 || ap.count2 != 1) {
      all = true;
      return;
    }
    row_lo = std::min<uint64_t>(row_lo, uint64_t(ap.partition.constant));
    row_hi = std::max<uint64_t>(row_hi, uint64_t(ap.partition.constant) + ap.partitions);
    lo = std::min<uint64_t>(lo, uint64_t(ap.offset.constant));
    const uint64_t short_by = ALLOCSIM_PLANT("dma_partial_hull_one_short") ? 1 : 0;
    hi = std::max<uint64_t>(hi, uint64_t(ap.offset.constant) + ap.count - short_by);
  }
};

// Every view an instruction reads, by tensor, with its instruction: one walk of the program instead of one per DMA
// (a walk per DMA would make the pass O(DMAs x instructions)). The views
// are pointers into the program, so a view an earlier shrink narrowed is seen narrowed, as a fresh walk would.
// The views each tensor is read through, in program order. Flat (one array, each tensor's reads a slice of it): the
// pass runs on every allocation, and a vector per tensor was a heap block per tensor read.
struct ReadIndex {
  using Read = std::pair<const Instruction*, const AccessPattern*>;
  std::vector<uint32_t> start;  // by tensor: its reads are reads[start[t], start[t + 1])
  std::vector<Read> reads;

  explicit ReadIndex(const Program& p) : start(p.tensors.size() + 1, 0) {
    forEachRead(p.body, [&](const Instruction&, const AccessPattern& ap) { ++start[ap.tensor + 1]; });
    for (size_t t = 1; t < start.size(); ++t) start[t] += start[t - 1];
    reads.resize(start.back());
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    forEachRead(p.body, [&](const Instruction& i, const AccessPattern& ap) { reads[next[ap.tensor]++] = {&i, &ap}; });
  }

  // Calls f(instruction, view) for every view of a declared tensor that an instruction of `body` reads.
  template <class F>
  void forEachRead(const std::vector<Instruction>& body, F&& f) const {
    for (const Instruction& i : body) {
      if (hasBody(i.op)) {
        forEachRead(i.body, f);
        continue;
      }
      auto read = [&](const AccessPattern& ap) {
        if (ap.tensor + size_t(1) < start.size()) f(i, ap);
      };
      switch (i.op) {
        case Op::Dma: case Op::Copy: case Op::Reduce: case Op::Select: case Op::RegLoad: read(i.a); break;
        case Op::Transpose: case Op::Broadcast: case Op::BnStats: case Op::BnAggr: read(i.a); break;
        case Op::TT: read(i.a); read(i.b); break;
        case Op::TTScan:
          read(i.a);
          read(i.b);
          if (i.scalar.kind == ScalarOperand::Kind::Tensor) read(i.scalar.ap);
          break;
        case Op::Act:
        case Op::TS:
          read(i.a);
          for (const ScalarOperand* sc : scalarOperands(i))
            if (sc->kind == ScalarOperand::Kind::Tensor) read(sc->ap);
          break;
        case Op::Matmul: read(i.a); read(i.b); read(i.dst); break;
        default: break;
      }
    }
  }

  // The hull of the views of `t` read by instructions other than `skip`.
  Hull readsOf(TensorId t, const Instruction* skip) const {
    Hull h;
    if (t + size_t(1) < start.size())
      for (uint32_t k = start[t]; k < start[t + 1]; ++k)
        if (reads[k].first != skip) h.add(*reads[k].second);
    return h;
  }
};

class Shrinker {
 public:
  Shrinker(Program& p, DmaOptInstance instance) : p_(p), instance_(instance), reads_(p) {}

  uint32_t run() {
    forEachBody(p_.body, [&](std::vector<Instruction>& body) {
      for (Instruction& i : body) shrink(i);
    });
    p_.renumber();
    return shrunk_;
  }

 private:
  void shrink(Instruction& d) {
    if (!isOptimizable(p_, d, instance_) || !isPlainRun(d.dst) || !isPlainRun(d.a)) return;
    if (d.dst.count2 != 1 || d.a.count2 != 1 || d.dst.partitions != d.a.partitions || d.dst.count != d.a.count) return;
    const Tensor& r = p_.tensors[d.dst.tensor];
    if (r.origin == Origin::Source || r.pinned) return;  // a stand-in or a spill slot only
    const Hull h = reads_.readsOf(d.dst.tensor, &d);
    if (h.all || h.empty()) return;  // an unread load is dead_store's
    const uint64_t row0 = uint64_t(d.dst.partition.constant), e0 = uint64_t(d.dst.offset.constant);
    const uint64_t rlo = std::max(h.row_lo, row0), rhi = std::min(h.row_hi, row0 + d.dst.partitions);
    const uint64_t lo = std::max(h.lo, e0), hi = std::min(h.hi, e0 + d.dst.count);
    if (rlo >= rhi || lo >= hi) return;
    if (rhi - rlo == d.dst.partitions && hi - lo == d.dst.count) return;  // already exact
    d.dst = subView(d.dst, uint32_t(rlo - row0), uint32_t(rhi - rlo), uint32_t(lo - e0), uint32_t(hi - lo));
    d.a = subView(d.a, uint32_t(rlo - row0), uint32_t(rhi - rlo), uint32_t(lo - e0), uint32_t(hi - lo));
    d.origin = Origin::Partial;
    ++shrunk_;
  }

  Program& p_;
  DmaOptInstance instance_;
  const ReadIndex reads_;  // built before any shrink; the program's instructions do not move until renumber()
  uint32_t shrunk_ = 0;
};

}  // namespace

uint32_t shrinkPartialDmas(Program& p, DmaOptInstance instance) { return Shrinker(p, instance).run(); }

}  // namespace allocsim
