#include "verify/memory_bounds.h"

#include <algorithm>
#include <vector>

#include "alloc/liveness.h"
#include "alloc/psum/psum_bank_model.h"

namespace allocsim {

MemoryBounds maxLiveBounds(const Program& p) {
  const Liveness live = computeLiveness(p);
  const size_t n = live.order.positions.size();
  std::vector<int64_t> area(n + 1, 0), banks(n + 1, 0);  // difference arrays over positions
  MemoryBounds b;
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& x = p.tensors[t];
    const LiveRange& r = live.tensors[t];
    if (r.empty() || x.space == Space::Dram) continue;
    const int64_t size = x.space == Space::Sbuf ? int64_t(x.partitions * x.bytesPerPartition())
                                                : int64_t(psumBanksOf(p.arch, x));
    auto& delta = x.space == Space::Sbuf ? area : banks;
    addOverSegments(delta, r, size);
    if (x.space == Space::Sbuf) b.sbuf_bytes = std::max(b.sbuf_bytes, x.bytesPerPartition());
  }
  int64_t a = 0, k = 0, peak_area = 0;
  for (size_t i = 0; i < n; ++i) {
    a += area[i];
    k += banks[i];
    peak_area = std::max(peak_area, a);
    b.psum_banks = std::max(b.psum_banks, uint64_t(k));
  }
  const uint64_t parts = std::max<uint64_t>(1, p.arch.sbuf_partitions);
  b.sbuf_bytes = std::max(b.sbuf_bytes, (uint64_t(peak_area) + parts - 1) / parts);
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
