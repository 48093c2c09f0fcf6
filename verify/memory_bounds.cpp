#include "verify/memory_bounds.h"

#include <algorithm>
#include <vector>

#include "alloc/liveness.h"
#include "alloc/psum/psum_bank_model.h"

namespace allocsim {

MemoryBounds maxLiveBounds(const Program& p) {
  const Liveness live = computeLiveness(p);
  const size_t n = live.order.positions.size();
  const uint64_t parts = std::max<uint64_t>(1, p.arch.sbuf_partitions);
  // difference arrays over positions: SBUF area, the bytes per partition of SBUF tensors on every partition, banks
  std::vector<int64_t> area(n + 1, 0), full(n + 1, 0), banks(n + 1, 0);
  MemoryBounds b;
  std::vector<TensorId> partial;  // SBUF tensors on fewer partitions than the machine's
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& x = p.tensors[t];
    const LiveRange& r = live.tensors[t];
    if (r.empty() || x.space == Space::Dram) continue;
    if (x.space == Space::Psum) {
      addOverSegments(banks, r, int64_t(psumBanksOf(p.arch, x)));
      continue;
    }
    addOverSegments(area, r, int64_t(x.partitions * x.bytesPerPartition()));
    if (x.partitions >= parts) addOverSegments(full, r, int64_t(x.bytesPerPartition()));
    else partial.push_back(t);
    b.sbuf_bytes = std::max(b.sbuf_bytes, x.bytesPerPartition());
  }
  int64_t a = 0, f = 0, k = 0, peak_area = 0;
  std::vector<int64_t> full_at(n, 0);
  for (size_t i = 0; i < n; ++i) {
    a += area[i];
    f += full[i];
    k += banks[i];
    full_at[i] = f;
    peak_area = std::max(peak_area, a);
    b.psum_banks = std::max(b.psum_banks, uint64_t(k));
  }
  b.sbuf_bytes = std::max(b.sbuf_bytes, (uint64_t(peak_area) + parts - 1) / parts);
  // A tensor on some partitions shares each of them with every tensor on all partitions live with it: its bytes
  // per partition come on top of theirs wherever it goes.
  if (!partial.empty()) {
    // a segment tree of range maxima over full_at (2n entries; leaves at [n, 2n))
    std::vector<int64_t> tree(2 * n, 0);
    std::copy(full_at.begin(), full_at.end(), tree.begin() + std::ptrdiff_t(n));
    for (size_t i = n; i-- > 1;) tree[i] = std::max(tree[2 * i], tree[2 * i + 1]);
    auto rangeMax = [&](size_t lo, size_t hi) {  // inclusive
      int64_t m = 0;
      for (lo += n, hi += n + 1; lo < hi; lo /= 2, hi /= 2) {
        if (lo & 1) m = std::max(m, tree[lo++]);
        if (hi & 1) m = std::max(m, tree[--hi]);
      }
      return m;
    };
    for (TensorId t : partial) {
      const LiveRange& r = live.tensors[t];
      for (size_t i = 0; i < r.segmentCount(); ++i) {
        const Segment s = r.segment(i);
        b.sbuf_bytes = std::max(b.sbuf_bytes, uint64_t(rangeMax(s.first, s.last)) + p.tensors[t].bytesPerPartition());
      }
    }
  }
  return b;
}

MemoryUse memoryUse(const Program& out) {
  MemoryUse u;
  const Liveness live = computeLiveness(out);
  std::vector<bool> bank_used(out.arch.psum_banks, false);
  for (TensorId t = 0; t < out.tensors.size(); ++t) {
    const Tensor& x = out.tensors[t];
    if (x.origin == Origin::Spill) u.spill_bytes += x.totalBytes();
    // A tensor's spill slot or reload names the tensor (alloc/copy_tensor.h); a register's slot names nothing.
    if ((x.origin == Origin::Spill || x.origin == Origin::Reload) && x.copy_of != kNone) ++u.spilled_tensors;
    if (x.origin == Origin::Spill && x.copy_of == kNone) ++u.register_slots;
    if (!x.placement || live.tensors[t].empty()) continue;
    if (x.space == Space::Sbuf) u.sbuf_peak = std::max(u.sbuf_peak, x.placement->offset + x.bytesPerPartition());
    if (x.space == Space::Psum)
      for (uint64_t k = x.placement->bank; k < x.placement->bank + psumBanksOf(out.arch, x) && k < bank_used.size(); ++k)
        bank_used[k] = true;
  }
  u.psum_banks = uint64_t(std::count(bank_used.begin(), bank_used.end(), true));
  return u;
}

}  // namespace allocsim
