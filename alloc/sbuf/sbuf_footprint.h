// How much SBUF an allocation occupies, the figure the SBUF colorer's score and its utilization line use and the
// one the tests compare with placeGreedy: for each partition, the high-water mark (the largest offset + bytes of
// a rectangle covering it), summed over the partitions. Never below the max-live lower bound of
// sbuf_interference.h (at the position where the most bytes are live, each partition holds at least its share
// below its high-water mark).
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/first_fit.h"
#include "ir/arch.h"
#include "ir/program.h"

namespace allocsim {

uint64_t sbufFootprintBytes(const Arch& arch, const std::vector<SbufRect>& rects);

// Over every placed SBUF tensor of `p`.
uint64_t sbufFootprintBytes(const Program& p);

}  // namespace allocsim
