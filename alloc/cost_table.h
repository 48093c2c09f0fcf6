// The cycle costs the allocators charge for the data movement they insert (a DMA costs a fixed
// latency + bytes / bandwidth). Data, not code: one row per (source space, destination space), so that the
// simulator's timing table can replace the figures without touching an allocator. The SBUF colorer prices its
// DRAM spill stores and reloads here (alloc/sbuf/sbuf_costs.h); PSUM keeps its bank model in
// alloc/psum/psum_spill_latency.h, whose figures the PSUM <-> SBUF row repeats.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

struct DmaCostRow {
  Space from = Space::Dram;
  Space to = Space::Sbuf;
  uint64_t fixed_cycles = 0;     // descriptor issue and completion
  uint64_t bytes_per_cycle = 1;  // bandwidth of the path
};

// Assumptions, kept as data: off-chip transfers pay a long fixed latency and half the on-chip bandwidth.
inline constexpr DmaCostRow kDmaCostTable[] = {
    {Space::Dram, Space::Sbuf, 640, 32}, {Space::Sbuf, Space::Dram, 640, 32},
    {Space::Dram, Space::Psum, 640, 32}, {Space::Psum, Space::Dram, 640, 32},
    {Space::Sbuf, Space::Sbuf, 64, 64},  {Space::Psum, Space::Sbuf, 64, 64},
    {Space::Sbuf, Space::Psum, 64, 64},  {Space::Psum, Space::Psum, 64, 64},
};

// Cycles of one DMA of `bytes` bytes from `from` to `to` (DRAM to DRAM, which no program may contain, is priced
// like a DRAM load).
inline uint64_t dmaCycles(Space from, Space to, uint64_t bytes) {
  for (const DmaCostRow& r : kDmaCostTable)
    if (r.from == from && r.to == to) return r.fixed_cycles + (bytes + r.bytes_per_cycle - 1) / r.bytes_per_cycle;
  return dmaCycles(Space::Dram, Space::Sbuf, bytes);
}

}  // namespace allocsim
