// Where select puts a rectangle among its already colored neighbours (as in the production allocator: SBUF's select
// "does a 2-D first/best-fit over partition x byte rectangles"; the production allocator: BestFitMemoryManager's SB
// corner placement). Every policy searches the whole placement grid — base partitions that are multiples of
// sbuf_partition_quantum, byte offsets that are multiples of sbuf_align, the rectangle inside SBUF — so each finds a
// position whenever one is free (the degree test of sbuf_degree.h relies on it); they differ only in which free
// position wins.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "alloc/first_fit.h"
#include "ir/arch.h"
#include "ir/program.h"

namespace allocsim {

enum class SbufPolicy : uint8_t {
  FirstFit,   // lowest band, then lowest offset (alloc/first_fit.h firstFitSbuf): the production lower-left corner
  BestFit,    // the tightest free gap: the smallest free byte run, from the aligned start to the next obstacle
              // in the band, that holds the rectangle (BestFitMemoryManager's size index); ties: lowest band,
              // then lowest offset. The run after a band's last obstacle counts as unlimited (a last resort), so
              // the position is the one the policy picks with unlimited room whenever that one is within SBUF
  UpperLeft,  // highest band that has room, lowest offset in it: the production upper-left corner, which keeps short
              // tensors out of the bands that full-height ones need
  LowestOffset,  // the lowest free offset over every band, then the lowest band: the peak a placement reaches
                 // is the highest byte used, so a short tensor goes beside a neighbour in a free band rather
                 // than above it in the first band (a 2-D "bottom-left" skyline; on one partition, first fit)
};
inline constexpr uint32_t kSbufPolicyCount = 4;
const char* sbufPolicyName(SbufPolicy p);

// A `partitions` x `bytes` rectangle's position under `policy`, overlapping no rectangle of `taken`; nullopt when
// no grid position is free.
std::optional<Placement> placeSbufRect(const Arch& arch, SbufPolicy policy, uint32_t partitions, uint64_t bytes,
                                       const std::vector<SbufRect>& taken);

}  // namespace allocsim
