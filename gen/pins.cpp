#include "gen/pins.h"

#include <algorithm>

namespace allocsim {

uint32_t pinPlacements(Program& p, Choices& c, uint32_t percent) {
  const Arch& a = p.arch;
  uint64_t next_byte = 0, next_bank = 0;
  uint32_t pinned = 0;
  for (Tensor& t : p.tensors) {
    if (t.space == Space::Dram || t.pinned || t.placement) continue;
    if (c.below(100) < 100 - std::min<uint32_t>(percent, 100)) continue;  // choice 0: not pinned
    if (t.space == Space::Sbuf) {
      const uint64_t align = a.sbuf_align ? a.sbuf_align : 1;
      const uint64_t at = (next_byte + align - 1) / align * align;
      if (t.partitions > a.sbuf_partitions || at + t.bytesPerPartition() > a.sbuf_bytes / 2) continue;
      t.placement = Placement{0, at, 0};
      next_byte = at + t.bytesPerPartition();
    } else {
      // Whole banks per partition row, as docs/format.md lays PSUM out.
      const uint64_t bank = a.psum_bank_bytes;
      const uint64_t banks = bank ? (t.bytesPerPartition() + bank - 1) / bank : 0;
      if (banks == 0 || t.partitions > a.psumPartitions() || next_bank + banks > a.psum_banks / 2) continue;
      t.placement = Placement{0, 0, uint32_t(next_bank)};
      next_bank += banks;
    }
    t.pinned = true;
    ++pinned;
  }
  return pinned;
}

uint32_t placeDramTensors(Program& p, Choices& c, uint32_t percent) {
  uint64_t next = 0;
  uint32_t placed = 0;
  for (Tensor& t : p.tensors) {
    if (t.space != Space::Dram || t.placement) continue;
    if (c.below(100) < 100 - std::min<uint32_t>(percent, 100)) continue;  // choice 0: not placed
    const uint64_t size = dtypeSize(t.dtype);
    const uint64_t at = (next + size - 1) / size * size + size * c.below(3);
    if (at > p.arch.dram_limit || t.totalBytes() > p.arch.dram_limit - at) continue;
    Placement pl;
    pl.offset = at;
    t.placement = pl;
    t.pinned = c.below(2) == 1;
    next = at + t.totalBytes();
    ++placed;
  }
  return placed;
}

}  // namespace allocsim
