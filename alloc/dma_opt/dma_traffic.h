// DMAReport::DMA_analysis (the production allocator, DMAOptimization, "Pre/PostGcaDMAAccesses"): the DMA traffic of a
// program, snapshotted before ("Pre GCA") and after ("Post GCA") the DMA optimization. GCA, graph-coloring allocation,
// is the production compiler's name for the colorers; the figures keep its names. The pass counts them here; the
// report's lines are written in tools/report_format.cpp.
//
//   instructions   dma statements in the program text
//   executed       dma instructions executed (loop bodies times their trip counts; an if's body counted as if its
//                  condition always held: an upper bound)
//   descriptors    executed descriptors: one per contiguous element run per partition, the larger of the
//                  source's and the destination's count (a DRAM view covering whole rows still needs one per row
//                  on the SBUF/PSUM side), so an [8, 64] full-row DMA is 8 descriptors
//   bytes          executed bytes moved
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

struct DmaTraffic {
  uint64_t instructions = 0;
  uint64_t executed = 0;
  uint64_t descriptors = 0;
  uint64_t bytes = 0;
  bool operator==(const DmaTraffic&) const = default;
};

// Descriptors of one execution of a dma instruction.
uint64_t dmaDescriptors(const Program& p, const Instruction& dma);
uint64_t dmaBytes(const Program& p, const Instruction& dma);

DmaTraffic measureDmaTraffic(const Program& p);

}  // namespace allocsim
